"""The fixed-point shortcut of ``clean``: ``_settled`` never claims a false fixed point."""

from __future__ import annotations

import pytest
from _timing import cpu_ratio
from hypothesis import given
from hypothesis import strategies as st

from untrusted_fence import _blocks, _clean, _hidden, _inline, _markers

_MARK = "\u27e6hidden: "
# Fragments that make a second step differ from the first: constructs exposed by removing or
# normalising a character, hidden regions whose cleaned content is empty, marks with spaces
# inside, whitespace to tidy, backtick runs that pair differently once a region is masked.
_FRAGMENTS = [
    "<!--", "-->", "<", "!", "--", "<?", "?>", "<!X", "<a title=x>", "[a](b)", "](", "![i]",
    "[", "]", "(", ")", "[x]: /u", "]:", "[^1]: note", "[^1]", "`", "``", "```", "```py x",
    "~~~", "\n", "\n\n", "\n\n\n\n", " ", "   ", "\t", "> ", "e", "\u0301", "\u1100", "\u1161",
    "\u200b", "\x1b]0;", "\x1b]0;\u200b\x07", "\x07", "\x1b[8m", "\x1b[0m", "\r", "\u2028",
    "\uff1c", "\uff01", "\u27e6", "\u27e7", _MARK, _MARK + "x\u27e7", _MARK + " x \u27e7",
    _MARK + "\u27e7", "\u2b1a", "&lt;", "&#60;", "END", "UNTRUSTED", "x", "\u00a0", "\ufb01",
]  # fmt: skip
texts = st.one_of(
    st.lists(st.sampled_from(_FRAGMENTS), max_size=30).map("".join),
    st.text(max_size=80),
)


@given(texts)
def test_a_settled_step_output_is_a_fixed_point_of_the_step(text: str) -> None:
    once = _clean._step(text)
    if _clean._settled(once):
        assert once == _clean._step(once)


@given(texts)
def test_a_settled_marker_free_text_is_a_fixed_point_of_the_step(text: str) -> None:
    if not _markers.find_markers(text) and _clean._settled(text):
        assert text == _clean._step(text)


@given(texts)
def test_clean_equals_the_loop_that_always_confirms_the_fixed_point(text: str) -> None:
    expected = text
    for _ in range(_clean._MAX_STEPS):
        again = _clean._step(expected)
        if again == expected:
            break
        expected = again
    assert expected == _clean.clean(text)


def test_the_replacement_holds_no_marker() -> None:
    # _settled relies on every output of neutralise being marker-free, REPLACEMENT included.
    assert not _markers.find_markers(_markers.REPLACEMENT)


def test_a_typical_markdown_comment_is_settled_after_one_step() -> None:
    comment = (
        "Looks good! See [the docs](https://example.com/d) and `fetch_all`:\n\n"
        "```python\nx = 1  # caf\u00e9 \u65e5\u672c\n```\n\n<details><summary>log</summary>\n\n"
        "<!-- note to self -->\n\n</details>\n\n> quoted\n\nThanks! \U0001f389\n\n"
    )
    assert _clean._settled(_clean._step(comment * 20))


def test_a_step_that_exposes_a_comment_is_not_settled() -> None:
    # Removing the zero-width space makes "<!--" appear, which only the next step hides.
    once = _clean._step("a <\u200b!-- b")
    assert "<!--" in once
    assert not _clean._settled(once)


def test_a_step_that_normalises_into_a_comment_is_not_settled() -> None:
    # NFKC turns the fullwidth "<" into "<", so the comment only hides on the next step.
    once = _clean._step("x \uff1c!-- y")
    assert not _clean._settled(once)
    assert once != _clean._step(once)


@given(st.text(alphabet=" \tab", max_size=4))
def test_a_mark_with_blank_or_unstripped_content_is_not_settled(inner: str) -> None:
    text = f"x {_MARK}{inner}\u27e7"
    assert (inner != "" and inner.strip() == inner) == _clean._settled(text)


def _reference_hidden_spans(text: str) -> list[tuple[int, int]]:
    """hidden_spans with code blocks and spans paired up front (before they became lazy)."""
    found = _blocks.blocks(text)
    html = _hidden._HtmlBlocks(found.html, found.contained_html)
    blocks, info_tails = found.fences, _hidden._code_fences(text, found)
    spans = _hidden._Code(text, html, blocks, found.breaks).spans()
    regions = _hidden._Regions(blocks + spans)

    class Eager(_hidden._Code):
        def contains(self, pos: int) -> bool:
            return regions.contains(pos)

    code = Eager(text, html, blocks, found.breaks, found.indented)
    spans = list(info_tails)
    if "<" in text:
        spans += _hidden._raw_html(text, code, html)
    spans += _inline.images(text, code.contains, _inline.link_labels(text))
    spans += _inline.link_tails(text, code.contains)
    spans += _inline.table_excess(text, code.contains)
    if "]:" in text:
        defs = _hidden._LINK_DEF_RE.finditer(text)
        spans += [m.span() for m in defs if not code.contains(m.start())]
        for pos in found.brackets:
            m = _hidden._LINK_DEF_AT_RE.match(text, pos)
            if m is not None and not code.contains(pos):
                spans.append(m.span())
        hidden = _hidden._Regions(_hidden.merge(spans))
        spans += _hidden._footnotes(text, code, found, hidden, _hidden._Regions([]))
    return _hidden.merge(spans)


@given(texts)
def test_hidden_spans_with_lazy_code_regions_equal_the_eager_definition(text: str) -> None:
    assert _reference_hidden_spans(text) == _hidden.hidden_spans(text)


# Fence lines with and without hidden info tails, in and after containers, and text close to
# each trigger of the other scans.
_SCAN_FRAGMENTS = [
    "```", "~~~", "````", "```py", "```py x", "~~~ y z", "``` (x", "~~~ `a` b", "```\u00e9",
    " ", "   ", "\n", "\n\n", "- ", "> ", "1. ", "* ", "    ", "\t", ">" * 33 + " ", "x", "`",
    "``", "[", "]", "(", ")", ":", "!", "^", "<", "|", "-", "*", "#", "[a]: /u", "\u00a0",
    "\u3000", "+", "a b", "\u2028",
]  # fmt: skip
scan_texts = st.lists(st.sampled_from(_SCAN_FRAGMENTS), max_size=30).map("".join)


@given(scan_texts)
def test_a_text_surely_hiding_nothing_has_no_hidden_span(text: str) -> None:
    if _clean._surely_nothing_hidden(text):
        assert [] == _hidden.hidden_spans(text)


def test_a_fence_with_a_hidden_info_tail_is_not_surely_hiding_nothing() -> None:
    assert not _clean._surely_nothing_hidden("- a\n\n  ```py hidden words\n  x\n  ```\n")


def test_a_commented_fence_with_one_language_surely_hides_nothing() -> None:
    assert _clean._surely_nothing_hidden("Fine.\n\n- a\n\n```python\nx = 1\n```\n\n> ok\n")


_INFO_CHARS = "`~ \t\u00a0\u2003ab+#._-1\u00e9("


@given(st.text(alphabet=st.sampled_from(_INFO_CHARS), max_size=40))
def test_a_run_with_a_hidden_info_tail_is_found_by_the_info_regexes(info: str) -> None:
    line = "```" + info
    run_end = len(line) - len(line.lstrip("`"))
    expected = _hidden._info_tail(line, run_end, len(line)) != []
    assert expected == (_clean._HIDDEN_INFO_RES[0].match(line) is not None)


def test_a_language_word_of_33_characters_has_a_hidden_info_tail() -> None:
    assert not _clean._surely_nothing_hidden("~~~" + "a" * 33 + "\n")


@pytest.mark.parametrize("fragment", ["`", "~", "x ```py\n", "~~~~ a\n"])
def test_the_info_string_check_is_linear(fragment: str) -> None:
    small, large = fragment * (1 << 15), fragment * (1 << 17)
    ratio = cpu_ratio(
        lambda: _clean._surely_nothing_hidden(large), lambda: _clean._surely_nothing_hidden(small)
    )
    # Four times the text: 4 for linear time, 16 for quadratic; the bound is their geometric
    # mean, as in the block walk's test (room for a shared CPU).
    assert ratio < 8.0, ratio
