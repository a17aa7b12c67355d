"""The differential oracle of the fence: what a GitHub reader sees of a Markdown text.

``shown(markdown)`` renders with GitHub's own parser (cmark-gfm through ``cmarkgfm``: unsafe
HTML, footnotes, and GitHub's extensions table, strikethrough, autolink, tagfilter, tasklist),
parses the HTML with a real HTML5 parser (lexbor through ``selectolax``), applies GitHub's
sanitizer allowlist, and returns the text a browser then displays.

``targets(markdown)`` are the link targets and image sources the sanitizer keeps.

``generate(rng)`` builds one document from :data:`PIECES` (each ``{t}`` a fresh token,
``{l}`` the document's one shared label), each piece under a container prefix, and
``leaks(doc, tokens)`` names the tokens whose occurrences the fence's view places wrongly, per
occurrence: every occurrence GitHub hides is inside a hidden (or collapsed) mark, every one it
shows is outside one, and every target occurrence is in a link or image target.

The oracle is an independent walk of its own; it uses the fence only in ``leaks``, to read
the view under test.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import cmarkgfm  # type: ignore[import-untyped]
from cmarkgfm.cmark import Options  # type: ignore[import-untyped]
from selectolax.lexbor import LexborHTMLParser, LexborNode

import untrusted_fence as uf

__all__ = [
    "CONTAINERS",
    "GITHUB_ELEMENTS",
    "PIECES",
    "REMOVED_WITH_CONTENT",
    "SEPARATORS",
    "Document",
    "fill",
    "generate",
    "leaks",
    "minimise",
    "render",
    "shown",
    "shown_in_html",
    "targets",
]

# GitHub's sanitizer: html-pipeline's SanitizationFilter ALLOWLIST (v2.14, the last public
# version GitHub's pipeline was built on: lib/html/pipeline/sanitization_filter.rb), elements
# only; ``input`` is added for the checkboxes of task lists.  Attributes never show as text, so
# only two matter here and both are allowed there: ``open`` (on ``details``) and ``lang`` (on
# ``pre``, the highlighting a fence's first info word picks).  An element outside the list is
# unwrapped (its content stays); the filter's ``remove_contents`` drops ``script`` with its
# content, and ``style`` is dropped the same way here (tagfilter escapes both anyway).
_ELEMENTS = """
    h1 h2 h3 h4 h5 h6 h7 h8 br b i strong em a pre code img tt div ins del sup sub p ol ul
    table thead tbody tfoot blockquote dl dt dd kbd q samp var hr ruby rt rp li tr td th s
    strike summary details caption figure figcaption abbr bdo cite dfn mark small span time wbr
    input
"""
GITHUB_ELEMENTS = frozenset(_ELEMENTS.split())
REMOVED_WITH_CONTENT = frozenset({"script", "style"})

# GitHub's options for a comment: a single newline is a line break there (hard breaks).
_OPTIONS = Options.CMARK_OPT_UNSAFE | Options.CMARK_OPT_FOOTNOTES | Options.CMARK_OPT_HARDBREAKS


def render(markdown: str) -> str:
    """cmark-gfm's HTML for ``markdown``, as GitHub renders a comment."""
    html: str = cmarkgfm.github_flavored_markdown_to_html(markdown, options=_OPTIONS)
    return html


def shown(markdown: str) -> str:
    """The text a GitHub reader sees of ``markdown`` (text nodes joined by spaces)."""
    return shown_in_html(render(markdown))


def shown_in_html(html: str) -> str:
    """The text a browser shows of ``html`` after GitHub's sanitizer: the text nodes of the
    HTML5 parse, without comments or attributes, without the content of removed elements, of
    ``<rp>`` (shown only by browsers without ruby support) and of collapsed ``<details>``
    (without ``open``; its first ``<summary>`` child shows), plus ``<pre lang>`` values."""
    parts: list[str | tuple[str]] = []
    _walk_fragment(html, parts)
    return " ".join(p for p in parts if isinstance(p, str))


_SCHEMES = {"a": ("href", ("http", "https", "mailto")), "img": ("src", ("http", "https"))}


def targets(markdown: str) -> list[str]:
    """The href of each link and the src of each image that GitHub's sanitizer keeps, where
    a reader sees them (not inside an ``<rp>`` or a collapsed ``<details>``)."""
    parts: list[str | tuple[str]] = []
    _walk_fragment(render(markdown), parts)
    return [p[0] for p in parts if isinstance(p, tuple)]


def _target(node: LexborNode) -> str | None:
    rule = _SCHEMES.get(node.tag or "")
    if rule is None or "data-footnote-ref" in node.attributes:
        return None
    if node.attributes.get("class") == "footnote-backref":
        return None
    value = node.attributes.get(rule[0])
    if value is None:
        return None
    scheme = value.split(":", 1)[0].lower() if ":" in value.split("/", 1)[0] else None
    return value if scheme is None or scheme in rule[1] else None


def _walk_fragment(html: str, parts: list[str | tuple[str]]) -> None:
    # As a fragment, the way GitHub's pipeline parses a comment's HTML and a browser parses it
    # inside the page's comment element: a document parse would move a leading <template> to
    # the head and let <frameset> replace the body, which neither does.
    root = LexborHTMLParser(html, is_fragment=True).root
    if root is not None:
        for node in root.iter(include_text=True):
            _visit(node, parts)


def _walk(node: LexborNode, parts: list[str | tuple[str]]) -> None:
    child = node.child
    while child is not None:
        _visit(child, parts)
        child = child.next


def _visit(node: LexborNode, parts: list[str | tuple[str]]) -> None:
    tag = node.tag
    if tag == "-text":
        parts.append(node.text_content or "")
        return
    if tag is None or tag.startswith("-") or tag in REMOVED_WITH_CONTENT:
        return  # comments and doctypes never show; removed elements take their content
    if tag == "template":
        # The parser keeps a template's content apart; the sanitizer unwraps it (shown).
        inner = node.html or ""
        _walk_fragment(inner[inner.find(">") + 1 : inner.rfind("<")], parts)
        return
    if tag not in GITHUB_ELEMENTS:
        _walk(node, parts)  # unwrapped by the sanitizer
        return
    if tag == "rp":
        return
    if tag == "details" and "open" not in node.attributes:
        child = node.child
        while child is not None:
            if child.tag == "summary":
                _visit(child, parts)
                return
            child = child.next
        return
    target = _target(node)
    if target is not None:
        parts.append((target,))
    if tag == "pre":
        lang = node.attributes.get("lang")
        if lang:
            parts.append(lang)
    _walk(node, parts)


# Pieces of a generated document.  ``{t}`` becomes a fresh token (``tok<N>q``), ``{l}`` the
# document's shared label, so that definitions and references can meet.
PIECES: tuple[str, ...] = (
    # Plain text, comments and other hidden HTML constructs of the CommonMark spec.
    "plain {t}", "<!-- {t} -->", "<!-- {t}", "<?x {t} ?>", "<!X {t}>", "<![CDATA[ {t} ]]>",
    "<!-- a -- {t} -->", "<!---->{t}", "<!-->{t}",
    # Link-reference and footnote definitions, references (labels across lines too).
    "[{t}]: /u", '[l]: /u "{t}"', "[//]: # ({t})", "[^{t}]: {t}", "[x]:\n  /u\n  '{t}\n{t}'",
    "[{l}]: /u '{t}'", "[^{l}]: {t}", "text[^{l}]", "text[^{t}]", "[x][{l}]", "[{l}]",
    "[x][a\n{t}]", "`[^{l}]`", "[a\n{t}]: /u",
    "[^]: {t}", "[^]: /u '{t}'", "[^ ]: {t}", "x[^{t}]\n\n[^{u}]: y",
    "x[^{t}]\n\n[^{u}]: y\n\n[^{u}]: {t}",
    "x[^{t}] [^{u}]\n\n[^{u}]: y\n    {t}", "[^{l}]:\n    {t}", "[^{t}]:", "[^{l}]",
    "x[^{t}]\n\n> [^{u}]: y", "`x[^{t}]`\n\n[^{u}]: {t}", "\\[^{t}]\n\n[^{u}]: {t}",
    "1. [^{t}]: y\n2. x[^{u}]", "[^a]: x\n\n[^a]: {t}\n\n[^a]",
    # Images, links and their titles (balanced parentheses in destinations, escaped quotes).
    '![{t}](/i.png "{t}")', '[{t}](/u "{t}")', "![{t}][{l}]", '[a](/u(x) "{t}")',
    "[a](/u((x)) ({t}))", "![a](/i(1).png '{t}')", "[a](</u v> '{t}')", '[a](/u "x \\" {t}")',
    "[a](/u(x '{t}')", "[a](/u<x> '{t}')", "![{t}]\n\n[{u}]: /i.png", "![{t}][]\n\n[{u}]: /i.png",
    "![a [{t}] b](/i.png)", "![a\n{t}](/i.png)", "![[{t}](/u)](/i.png)", "![`{t}`](/i.png)",
    "![a ![{t}](/j.png) b](/i.png)", "![a *{t}* b](/i.png)", "![a [b [{t}]]](/i.png)",
    "![a \\] {t}](/i.png)", "![a `]` {t}](/i.png)",
    # Code spans, backslash-escaped backticks, fences (a tab before one).
    "`code {t}`", "\\`", "`", "``", "`a\\`<!-- {t} -->`", "\\``![{t}](/i.png)`",
    "`a\\`![{t}](/i.png)`", "[^a\n{t}]",
    "`` `{t}` ``", "`a\n{t}`", "```js {t} {t}\ncode {t}\n```", "~~~ {t} {t}\n{t}\n~~~",
    "    indented {t}", "```", "~~~", "```{t}", "\t```", "  \t```js {t}",
    # Raw HTML that the allowlist and the browser decide.
    '<img alt="{t}" src="/x.png">', '<a href="/{t}" title="{t}">{t}</a>',
    "<details><summary>{t}</summary>{t}</details>", "<details open>{t}</details>",
    "<ruby>a<rp>(</rp><rt>{t}</rt><rp>)</rp></ruby>", "<b>x</b>", "<div>", "</div>",
    "<rp>{t}</rp>", "<details>\n{t}\n</details>", "<details>\n\n{t}\n\n</details>",
    "<details><summary>a</summary>\n\n{t}\n\n</details>", "<{t} a=b>",
    "<details>\n<details open>{t}</details>\n</details>", '<span\ftitle="{t}">',
    '<span\vtitle="{t}">', "<{t}>", "\\``<!-- {t} -->`",
    # The HTML5 tokenizer's shapes, and HTML blocks over several lines (inside containers too).
    '<div title="{t}\n\n{t}', '<span/title="{t}">', '<div @x="{t}">', "<! {t} >", "</3 {t}>",
    "<!-{t}->", "<span {t}", '<div>\n<span/title="{t}">\nx', '<div title="x\n{t}">\nx',
    "<details>\n</details><x{t}", "<div>\n</ {t}>", "<div>\n<!-- {t}\n-->\nx",
    "> <details>\n{t}\n</details>", "<!-- x\n\n{t}", "> <!-- x\n{t}", "- <div title='x\n\n  {t}'>",
    "<script>\n{t}", "<pre>\n<x a={t}>", "1. <!X\n   {t}>", "<![CDATA[\n{t}", "<?php\n{t}\n?>",
    "> - <div>\n>   <span @a='{t}'>", "<div>\n\n<span a='{t}'>", "<span title=\"{t}\n>\n",
    "<details>\n<summary>\n{t}\n</summary>\n{t}\n</details>",
    "> <details open>\n> {t}\n> </details>",
    "- <details>\n\n  {t}\n\n  </details>", "<details><summary>a</summary>\n\n> {t}", "</details>",
    "<ruby>\n<rp>{t}</rp>\n</ruby>", "> <ruby>a<rp>{t}</rp></ruby>", "<rp>{t}", "<!DOCTYPE {t}>",
    "<img src=x alt='{t}\n\n{t}'>", "<a title='{t}'\n>x</a>", "<x-y {t}=1>", "<br/{t}>",
    "<a\nhref=x>{t}</a>", "<div\ntitle='{t}'>",
    # Document-level tags, which a fragment parse (GitHub's and the page's) ignores.
    "<frameset>{t}</frameset>", "<template>{t}</template>", "<template>\n{t}", "<head>{t}",
    "<body title='{t}'>{t}", "<html>\n{t}",
    # Tables (cells beyond the header's count), lists, quotes, task lists.
    "| a |\n| - |\n| {t} |", "a | b\n- | -\nc | {t}", "| a |\n| - |\n| b | {t} |",
    "a | b\n- | -\nc | d | {t}", "| a |\n|---|\nb | {t}\nc \\| d | {t}",
    "- [ ] {t}", "> {t}", "- item {t}",
)  # fmt: skip


# Container prefixes: the first line of a piece gets the prefix, later lines the matching
# continuation ("> " again, or the list item's indentation).
CONTAINERS = ("", "> ", "- ", "1. ")
SEPARATORS = ("\n\n", "\n", " ", "")


@dataclass(frozen=True)
class Document:
    """One generated document: its text, its tokens, and the piece each token came from."""

    text: str
    tokens: tuple[str, ...]
    origin: tuple[str, ...]


def _contain(text: str, prefix: str) -> str:
    if not prefix:
        return text
    rest = "> " if prefix == "> " else " " * len(prefix)
    lines = text.split("\n")
    return "\n".join([prefix + lines[0]] + [(rest + line).rstrip() for line in lines[1:]])


def fill(piece: str, tokens: list[str], label: str) -> str:
    """``piece`` with ``{l}`` as ``label``, each ``{t}`` a fresh token appended to ``tokens``,
    and ``{u}`` the piece's last token again."""
    text = piece.replace("{l}", label)
    while "{t}" in text:
        tokens.append(f"tok{len(tokens)}q")
        text = text.replace("{t}", tokens[-1], 1)
        text = text.replace("{u}", tokens[-1])
    return text


def generate(rng: random.Random, pieces: Sequence[str] = PIECES, size: int = 8) -> Document:
    """A document of 1 to ``size`` pieces, each under a random container and separator."""
    tokens: list[str] = []
    origin: list[str] = []
    label = f"lab{rng.randrange(1000)}"
    out = []
    for _ in range(rng.randint(1, size)):
        piece = pieces[rng.randrange(len(pieces))]
        known = len(tokens)
        text = fill(piece, tokens, label)
        origin += [piece] * (len(tokens) - known)
        out.append(_contain(text, rng.choice(CONTAINERS)) + rng.choice(SEPARATORS))
    return Document("".join(out), tuple(tokens), tuple(origin))


def view_classes(view: uf.View) -> tuple[str, str, str, str]:
    """What ``view`` shows, hides, collapses and links to, each joined by newlines (a token
    never runs across two pieces)."""
    shown_parts: list[str] = []
    hidden: list[str] = []
    collapsed: list[str] = []
    targets: list[str] = []
    depth = 0
    for kind, piece in view.pieces:
        if kind == "open":
            depth += 1
        elif kind == "close":
            depth -= 1
        elif kind == "hidden":
            hidden.append(piece)
        elif kind == "target":
            targets.append(piece)
        elif kind not in ("markup", "inline", "mark"):
            (collapsed if depth else shown_parts).append(piece)
    return (
        "\n".join(shown_parts),
        "\n".join(hidden),
        "\n".join(collapsed),
        "\n".join(targets),
    )


def leaks(text: str, tokens: Sequence[str]) -> tuple[list[str], list[str]]:
    """The tokens of ``text`` GitHub hides, and the tokens the view places wrongly: shown more
    or fewer times than GitHub shows them, or in fewer targets than GitHub keeps."""
    seen = shown(text)
    kept = "\n".join(targets(text))
    view_shown, _, _, view_targets = view_classes(uf.render(text))
    hidden = [t for t in tokens if t in text and t not in seen and t not in kept]
    wrong = [
        t
        for t in dict.fromkeys(tokens)
        if view_shown.count(t) != seen.count(t) or view_targets.count(t) < kept.count(t)
    ]
    return hidden, wrong


def minimise(text: str, leaked: Sequence[str]) -> str:
    """A shorter text in which one of ``leaked`` still leaks (greedy chunk removal)."""

    def still(candidate: str) -> bool:
        return bool(leaks(candidate, leaked)[1])

    return _shrink(text, still)


def _shrink(text: str, still: Callable[[str], bool]) -> str:
    size = max(1, len(text) // 2)
    while True:
        i = 0
        while i < len(text):
            candidate = text[:i] + text[i + size :]
            if candidate != text and still(candidate):
                text = candidate
            else:
                i += size
        if size == 1:
            return text
        size //= 2
