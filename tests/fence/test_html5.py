"""Raw HTML as GitHub shows it (issue 12, finding 3): the WHATWG tokenizer's states in
``_html5`` and what ``clean`` marks with them.

Each finding is pinned twice: cmark-gfm (GitHub's renderer, through ``cmarkgfm``) passes the
raw HTML through to the page verbatim, and the fence keeps the payload inside a hidden mark.
"""

from __future__ import annotations

import html

import cmarkgfm  # type: ignore[import-untyped]
import pytest
from _timing import cpu_ratio
from cmarkgfm.cmark import Options  # type: ignore[import-untyped]
from hypothesis import example, given
from hypothesis import strategies as st

import untrusted_fence as uf
from untrusted_fence import _hidden, _html5


def rendered(markdown: str) -> str:
    """What GitHub's renderer emits for ``markdown`` (before the page's HTML5 parse)."""
    options = Options.CMARK_OPT_UNSAFE | Options.CMARK_OPT_FOOTNOTES
    html: str = cmarkgfm.github_flavored_markdown_to_html(markdown, options=options)
    return html


def marked(markdown: str, payload: str) -> bool:
    """Whether ``payload`` is kept, inside a hidden mark, and not in the visible text."""
    hidden = "\n".join(uf.hidden_regions(markdown))
    return payload in hidden and payload not in uf.visible_text(markdown)


# -- the findings, each as GitHub renders it -----------------------------------------------

VERBATIM = [
    # (Markdown, the raw HTML cmark-gfm emits verbatim, the payload a reader never sees)
    ('<div title="x\n\npayload one\n\npayload two\n', '<div title="x\n<p>payload one', "two"),
    ('<div>\n<span/title="payload">\n', '<span/title="payload">', "payload"),
    ('<div @x="payload">\nshown\n', '<div @x="payload">', "payload"),
    ("<div>\n<! payload >\n", "<! payload >", "payload"),
    ("<div>\n</3 payload>\n", "</3 payload>", "payload"),
    ("<div>\n<!-payload->\n", "<!-payload->", "payload"),
    ('<div>\n<a\ftitle="payload">x</a>\n', '<a\ftitle="payload">', "payload"),
    ('<div>\n<a\vtitle="payload">x</a>\n', '<a\vtitle="payload">', "payload"),
    ("<div>\n<!DOCTYPE payload>\n", "<!DOCTYPE payload>", "payload"),
    ("<div>\n<![CDATA[ payload ]]>\n", "<![CDATA[ payload ]]>", "payload"),
    ("<div>\n<?payload>\n", "<?payload>", "payload"),
    ("<div>\n<script\f>payload</script\f>\n", "<script\f>payload</script\f>", "payload"),
    ("<div>\n<style/x>payload</style/x>\n", "<style/x>payload</style/x>", "payload"),
    ("<div>\n<!-- a\n\npayload --> b\n", "<!-- a\n<p>payload --&gt; b", "payload"),
    ("<script\f>\n\npayload\n", "<script\f>\n\npayload", "payload"),
    ("x <script\f>payload</script\f> y", "<script\f>payload</script\f>", "payload"),
    ('x <a\vtitle="payload">y</a>', '<a\vtitle="payload">', "payload"),
    ('> <div @x="payload">\n', '<div @x="payload">', "payload"),
    ('- <div @x="payload">\n', '<div @x="payload">', "payload"),
    ("Note[^1]\n\n[^1]: payload\n\n<div title='x\n", "<div title='x\n<section", "payload"),
    ("a <payload> b", "<payload>", "payload"),
    ("a </payload> b", "</payload>", "payload"),
    ("a <Input/> b", "<Input/>", "Input"),
]  # fmt: skip


@pytest.mark.parametrize(("markdown", "raw", "payload"), VERBATIM)
def test_raw_html_github_passes_through_is_marked_where_html5_hides_it(
    markdown: str, raw: str, payload: str
) -> None:
    assert (True, True) == (raw in rendered(markdown), marked(markdown, payload))


# HTML blocks inside block quotes and list items: cmark-gfm passes the block's content, its
# lines without the containers' markers, so a token runs over the lines as the page holds them.
# The first five are the leaks the differential run left (minimised).
CONTAINED = [
    # (Markdown, the raw HTML cmark-gfm emits, the payload a reader never sees)
    (">\t<v>\n>/<payload", "<v>\n/<payload", "payload"),
    ("- <details>\n  </details><epayload", "<details>\n</details><epayload", "payload"),
    ("- <d>\n  </ payload", "<d>\n</ payload", "payload"),
    ("1. <details>\n   </details payload", "<details>\n</details payload", "payload"),
    ("1. <b>\n   <! payload", "<b>\n<! payload", "payload"),
    ('> <div title="x\n> payload">\n>\n> more', '<div title="x\npayload">', "payload"),
    ('> <div>\n> <span/title="payload">\n> shown', '<div>\n<span/title="payload">', "payload"),
    ("> - <div>\n>   <!-- payload\n>   -->", "<div>\n<!-- payload\n-->", "payload"),
    ('> <div title="x\n> payload\n>\n> more', '<div title="x\npayload\n<p>more', "more"),
    ("- > <div>\n  > <a @x='payload'>", "<div>\n<a @x='payload'>", "payload"),
    # An inline tag over lines of a quoted paragraph: cmark-gfm strips the markers there too.
    (">c<X\n>payload>", "c<X\npayload>", "payload"),
    ('> a <span\n> title="payload">b</span>', '<span\ntitle="payload">', "payload"),
    (">.<!X\n>payload>", ".<!X\npayload>", "payload"),
    ("> a <!X\n> b\n> payload>", "<!X\nb\npayload>", "payload"),
]  # fmt: skip


@pytest.mark.parametrize(("markdown", "raw", "payload"), CONTAINED)
def test_an_html_block_in_a_container_is_tokenized_whole_without_the_markers(
    markdown: str, raw: str, payload: str
) -> None:
    assert (True, True) == (raw in rendered(markdown), marked(markdown, payload))


def test_text_after_a_closed_multiline_tag_in_a_quote_stays_visible() -> None:
    text = '> <div title="x\n> y">\n>\n> shown after'
    assert ("<p>shown after</p>" in rendered(text), "shown after") == (
        True,
        uf.visible_text(text)[-11:],
    )


def test_an_unclosed_attribute_value_swallows_the_following_paragraphs() -> None:
    text = '<div title="x\n\nfirst paragraph\n\nsecond paragraph\n'
    assert "" == uf.visible_text(text).strip()


def test_a_generic_in_prose_is_marked_not_deleted() -> None:
    # cmark-gfm emits "<Data>" as a tag; the sanitizer strips it, so GitHub shows "List".
    assert ("<p>List<Data> x</p>", "List\u27e6hidden: <Data>\u27e7 x") == (
        rendered("List<Data> x").strip(),
        uf.clean("List<Data> x"),
    )


def test_a_framing_word_as_a_type_parameter_stays_unmarked() -> None:
    # GitHub hides "<Context>" here too, but the marker rules accept it only right after an
    # identifier, which a hidden mark would hide from them.
    assert [] == uf.hidden_regions("Option<Context> and List<User>")


def test_a_tag_the_tag_filter_escapes_shows_as_text() -> None:
    # cmark-gfm turns "<script>" into "&lt;script>": the reader sees the text.
    text = "<div>\n<script>alert(1)</script>\n"
    assert ("&lt;script>" in rendered(text), "alert(1)" in uf.visible_text(text)) == (True, True)


def test_an_allowed_tag_without_attributes_stays_visible() -> None:
    assert "<div>\n<b>bold</b>" == uf.clean("<div>\n<b>bold</b>\n")


def test_an_abruptly_closed_comment_ends_at_once() -> None:
    # HTML5: "<!-->" and "<!--->" are whole comments; the text after them shows.
    assert ["<!-->", "<!--->"] == uf.hidden_regions("<!--> shown <!---> too")


def test_a_comment_closed_by_dash_dash_bang_ends_there() -> None:
    assert ("<!-- a --!> shown" in rendered("<div>\n<!-- a --!> shown\n"), ["<!-- a --!>"]) == (
        True,
        uf.hidden_regions("<div>\n<!-- a --!> shown\n"),
    )


def test_an_unclosed_comment_inside_an_html_block_hides_the_rest() -> None:
    assert (
        ""
        == uf.visible_text("<div>\n<!-- a\n\nb --> payload\n\nmore\n").replace("<div>", "").strip()
    )


def test_rp_content_with_markup_is_marked() -> None:
    text = "<ruby>\u6f22<rp><b>payload</b></rp><rt>kan</rt></ruby>"
    assert marked(text, "payload")


def test_nested_rp_elements_hide_to_the_outer_close() -> None:
    assert marked("<rp>a<rp>b</rp>payload</rp> shown", "payload")


def test_an_unclosed_rp_ends_at_the_ruby_close() -> None:
    text = "<ruby>x<rp>payload</ruby> shown"
    assert ("shown" in uf.visible_text(text), marked(text, "payload")) == (True, True)


def test_a_collapsed_details_hides_what_follows_a_nested_open_one() -> None:
    text = "<details><summary>s</summary><details open>a</details> payload</details> after"
    assert (True, "after" in uf.visible_text(text)) == (marked(text, "payload"), True)


def test_a_details_with_open_only_inside_an_attribute_value_is_collapsed() -> None:
    assert marked('<details title=" open ">\n\npayload\n\n</details>\n', "payload")


def test_a_details_with_an_open_attribute_shows_its_body() -> None:
    assert "body" in uf.visible_text("<details OPEN>\n\nbody\n\n</details>\n")


# -- the tokenizer against a plain transcription of the WHATWG states ---------------------


def _reference_tokens(text: str) -> list[tuple[str, int, int, str, bool, bool]]:
    """The tokenizer states, one character at a time, as the WHATWG spec writes them (only
    extents, names and whether a tag has attributes are kept)."""
    out: list[tuple[str, int, int, str, bool, bool]] = []
    ws = "\t\n\f\r "
    state, i, start, kind, name, attrs = "data", 0, 0, "", "", False

    def emit(end: int, closed: bool = True) -> None:
        out.append((kind, start, end, name if kind in ("start", "end") else "", attrs, closed))

    while True:
        c = text[i] if i < len(text) else None
        if state == "data":
            if c is None:
                return out
            if c == "<":
                state, start, name, attrs = "tag_open", i, "", False
        elif state == "tag_open":
            if c is not None and c.isascii() and c.isalpha():
                kind, state = "start", "tag_name"
                continue
            if c == "!":
                state = "markup"
            elif c == "/":
                state = "end_tag_open"
            elif c == "?":
                kind, state = "bogus", "bogus"
                continue
            else:
                state = "data"
                continue
        elif state == "end_tag_open":
            if c is not None and c.isascii() and c.isalpha():
                kind, state = "end", "tag_name"
                continue
            if c == ">":
                kind = "end"
                emit(i + 1)
                state = "data"
            elif c is None:
                state = "data"
                continue
            else:
                kind, state = "bogus", "bogus"
                continue
        elif state == "markup":
            if text.startswith("--", i):
                kind, state = "comment", "comment_start"
                i += 2
                continue
            if text[i : i + 7].lower() == "doctype":
                kind, state = "doctype", "bogus"
                i += 7
                continue
            kind, state = "bogus", "bogus"
            continue
        elif state == "bogus":
            if c is None:
                emit(i, closed=False)
                return out
            if c == ">":
                emit(i + 1)
                state = "data"
        elif state == "comment_start":
            if c == "-":
                state = "comment_start_dash"
            elif c == ">":
                emit(i + 1)
                state = "data"
            else:
                state = "comment"
                continue
        elif state == "comment_start_dash":
            if c == "-":
                state = "comment_end"
            elif c == ">":
                emit(i + 1)
                state = "data"
            elif c is None:
                emit(i, closed=False)
                return out
            else:
                state = "comment"
                continue
        elif state == "comment":
            if c == "<":
                state = "comment_lt"
            elif c == "-":
                state = "comment_end_dash"
            elif c is None:
                emit(i, closed=False)
                return out
        elif state == "comment_lt":
            if c == "!":
                state = "comment_lt_bang"
            elif c != "<":
                state = "comment"
                continue
        elif state == "comment_lt_bang":
            state = "comment_lt_bang_dash" if c == "-" else "comment"
            if c != "-":
                continue
        elif state == "comment_lt_bang_dash":
            state = "comment_lt_bang_dash_dash" if c == "-" else "comment_end_dash"
            if c != "-":
                continue
        elif state == "comment_lt_bang_dash_dash":
            state = "comment_end"
            continue
        elif state == "comment_end_dash":
            if c == "-":
                state = "comment_end"
            elif c is None:
                emit(i, closed=False)
                return out
            else:
                state = "comment"
                continue
        elif state == "comment_end":
            if c == ">":
                emit(i + 1)
                state = "data"
            elif c == "!":
                state = "comment_end_bang"
            elif c is None:
                emit(i, closed=False)
                return out
            elif c != "-":
                state = "comment"
                continue
        elif state == "comment_end_bang":
            if c == "-":
                state = "comment_end_dash"
            elif c == ">":
                emit(i + 1)
                state = "data"
            elif c is None:
                emit(i, closed=False)
                return out
            else:
                state = "comment"
                continue
        elif c is None:  # every tag state: end of file drops the tag
            emit(i, closed=False)
            return out
        elif state == "tag_name":
            if c in ws:
                state = "before_attr_name"
            elif c == "/":
                state = "self_closing"
            elif c == ">":
                emit(i + 1)
                state = "data"
            else:
                name += c.lower() if c.isascii() else c
        elif state == "before_attr_name":
            if c in "/>":
                state = "after_attr_name"
                continue
            if c not in ws:
                attrs, state = True, "attr_name"
                if c == "=":
                    i += 1
                    continue
                continue
        elif state == "attr_name":
            if c in ws + "/>":
                state = "after_attr_name"
                continue
            if c == "=":
                state = "before_attr_value"
        elif state == "after_attr_name":
            if c == "/":
                state = "self_closing"
            elif c == "=":
                state = "before_attr_value"
            elif c == ">":
                emit(i + 1)
                state = "data"
            elif c not in ws:
                attrs, state = True, "attr_name"
                continue
        elif state == "before_attr_value":
            if c == '"':
                state = "value_dq"
            elif c == "'":
                state = "value_sq"
            elif c == ">":
                emit(i + 1)
                state = "data"
            elif c not in ws:
                state = "value_unquoted"
                continue
        elif state in ("value_dq", "value_sq"):
            if c == ('"' if state == "value_dq" else "'"):
                state = "after_value_quoted"
        elif state == "value_unquoted":
            if c in ws:
                state = "before_attr_name"
            elif c == ">":
                emit(i + 1)
                state = "data"
        elif state == "after_value_quoted":
            if c in ws:
                state = "before_attr_name"
            elif c == "/":
                state = "self_closing"
            elif c == ">":
                emit(i + 1)
                state = "data"
            else:
                state = "before_attr_name"
                continue
        elif state == "self_closing":
            if c == ">":
                emit(i + 1)
                state = "data"
            else:
                state = "before_attr_name"
                continue
        i += 1


# Letters that spell no tag the tag filter escapes and neither script nor style.
_PIECES = [*"<>/!-?\"'= \t\n\f\vabDOCTYPE[3", "<!--", "<!DOCTYPE", "<![CDATA[", "--!>"]
html_like = st.lists(st.sampled_from(_PIECES), max_size=30).map("".join)


def _plain(text: str, token: tuple[str, int, int, str, bool, bool]) -> bool:
    """Whether a token is an allowed element's tag written as ``<b>`` or ``</b>``, which shows
    as it is and which the tokenizer skips in its search for the next ``<``."""
    kind, start, end, name, _, _ = token
    source = text[start:end].lower()
    return (
        kind in ("start", "end")
        and source in (f"<{name}>", f"</{name}>")
        and (name in _html5.ALLOWED_ELEMENTS)
    )


@given(html_like)
def test_the_tokenizer_equals_the_state_by_state_transcription(text: str) -> None:
    expected = [t for t in _reference_tokens(text) if not _plain(text, t)]
    ours = [
        (t.kind, t.start, t.end, t.name, t.has_attributes, t.closed) for t in _html5.tokens(text)
    ]
    assert expected == ours


def test_end_of_file_in_a_tag_cuts_the_tag_to_the_end() -> None:
    assert [("start", 0, 7, False)] == [
        (t.kind, t.start, t.end, t.closed) for t in _html5.tokens('<a b="c')
    ]


def test_end_of_file_in_a_comment_emits_the_comment() -> None:
    assert [("comment", 0, 6, False)] == [
        (t.kind, t.start, t.end, t.closed) for t in _html5.tokens("<!-- a")
    ]


def test_a_form_feed_separates_attributes_and_a_vertical_tab_does_not() -> None:
    assert [("a", True), ("a\vb=c", False)] == [
        (t.name, t.has_attributes) for t in _html5.tokens("<a\fb=c><a\vb=c>")
    ]


def test_attribute_names_are_read_as_the_tokenizer_reads_them() -> None:
    [token] = _html5.tokens('<details title=" open " =x OPEN data-open>')
    assert ["title", "=x", "open", "data-open"] == _html5.attribute_names(
        '<details title=" open " =x OPEN data-open>', token
    )


def test_the_allowlist_holds_githubs_elements_and_not_script_or_input() -> None:
    assert (True, False, False) == (
        {"details", "summary", "rp", "kbd", "wbr"} <= _html5.ALLOWED_ELEMENTS,
        "script" in _html5.ALLOWED_ELEMENTS,
        "input" in _html5.ALLOWED_ELEMENTS,
    )


# -- differential: cmark-gfm's output read by the tokenizer ---------------------------------

# Raw HTML shapes, and Markdown around them ({t}: a token to look for).  Footnotes and tables
# are left out: which of their parts show is decided elsewhere.
_HTML_PIECES = [
    '<div title="{t}', "<div>", '<span/title="{t}">', '<div @x="{t}">', "<! {t} >", "</3 {t}>",
    "<!-{t}->", '<a\ftitle="{t}">', '<a\vtitle="{t}">', "<{t}>", "List<D{t}>", "<!-- {t} -->",
    "<!-- {t}", "<!--> {t} -->", "<!-- {t} --!> {t}", "'", '"', ">", "plain {t}", "`code {t}`",
    "<b>{t}</b>", "<div title='{t}'>", "<script\f>{t}</script\f>", "<style/x>{t}", "</style/x>",
    "```\n{t}\n```", "> {t}", "- {t}", "<p>", "<?{t}>", "<![CDATA[ {t} ]]>", "[x]({t})",
    '<img alt="{t}">', "<script>", "<pre>", "?>", "<!X {t}", "</div>", '<DIV TITLE="{t}',
    "<textarea/x>{t}", '<x ="{t}">', "   <div a='{t}", "\t<div a='{t}", '1. <div @a="{t}">',
    "<a href={t}>", '<a b={t}"c>', "<span/", 'title="{t}">', "<!--", "-->", "--!>", "<", "</",
    "<div\v{t}>", "<b\f{t}>", "<{t}/>", "&quot;", "\\<b {t}>", "# <x {t}>",
    "> <div>", '> <span/title="{t}">', "- <details>", "  </details><x{t}", "> </3 {t}>",
    '> <div title="{t}', "1. <div>", "   <! {t} >",
]  # fmt: skip


def _shown_by_a_browser(markdown: str) -> str:
    """The character data of GitHub's rendered page, tokenized as HTML5 (entities decoded)."""
    page = rendered(markdown)
    parts, pos = [], 0
    for token in _html5.tokens(page):
        parts.append(page[pos : token.start])
        pos = token.end
    parts.append(page[pos:])
    return html.unescape(" ".join(parts))


html_documents = st.lists(
    st.tuples(st.sampled_from(_HTML_PIECES), st.sampled_from(["\n\n", "\n", " ", ""])),
    min_size=1,
    max_size=6,
)


@given(html_documents)
# A script start tag with a form feed starts an HTML block that runs to the end (cmark-gfm
# finds no "</script>"), so the style element after it is raw HTML and hides its text.
@example([("<script\x0c>{t}</script\x0c>", "\n\n"), ("<style/x>{t}", "\n\n")])
def test_raw_html_a_browser_does_not_show_is_never_left_unmarked(
    choices: list[tuple[str, str]],
) -> None:
    doc, tokens = "", list[str]()
    for piece, sep in choices:
        while "{t}" in piece:
            tokens.append(f"tok{len(tokens)}q")
            piece = piece.replace("{t}", tokens[-1], 1)
        doc += piece + sep
    seen, visible = _shown_by_a_browser(doc), uf.visible_text(doc)
    assert [] == [t for t in tokens if t not in seen and t in visible], doc


# -- linear time ---------------------------------------------------------------------------

FAMILIES = {
    "unclosed_attribute": '<div title="x\n\npara\n\n',
    "attribute_lines": "<div>\n<span/title=\"a\" @x='b' c=d\f>\n",
    "bogus_comments": "<div>\n<! a > </3 b> <!-c-> <?d>\n",
    "comment_closes": "<!-->x<!--->y<!-- a --!>\n",
    "stripped_tags": "List<Data> <payload> </x>\n",
    "details_nesting": "<details><summary>s</summary><details open>",
    "rp_nesting": "<rp>a<rp>",
    "script_text": "<div>\n<script\f>a</script/>\n",
    "tag_opens": "<a ",
    "details_spaces": "<details>  ",
    "comment_then_style": "<!-- a --!> <style/x> -->",
    "instruction_then_style": "<? > <style/x> ?>\n",
    "script_lines": "<script>\n",
    "declaration_lines": "<!X\n",
    "quoted_block_lines": "> <div>\n> <span/title=\"a\" @x='b'>\n",
    "item_block_lines": "- <div>\n  </ a>\n",
    "quoted_declarations": "> a <!X\n> >\n",
}


@pytest.mark.parametrize("fragment", list(FAMILIES.values()), ids=list(FAMILIES))
def test_raw_html_scanning_time_grows_linearly(fragment: str) -> None:
    # Ratio of 128 Ki to 32 Ki characters: 4 when linear, 16 when quadratic; the bound is their
    # geometric mean, as in the block walk's test (a linear family reached 6.3 under load).
    # The two sizes are timed in turns, so that load on the shared machine does not decide it.
    small = fragment * (32768 // len(fragment) + 1)
    large = small * 4
    ratio = cpu_ratio(lambda: _hidden.hidden_spans(large), lambda: _hidden.hidden_spans(small))
    assert ratio < 8, ratio
