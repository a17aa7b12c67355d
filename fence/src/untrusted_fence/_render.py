"""Render a text as GitHub does (docs/fence.md, "The pipeline") into the worker's view.

cmark-gfm, then an HTML5 fragment parse (lexbor) walked under GitHub's sanitizer allowlist
(``_writer``), then cleaning and markers (``_settle``).  What cmark-gfm consumes (definitions,
info words after the first, extra cells) and what the HTML5 parser would drop of raw HTML (a
doctype, a duplicate attribute, root tags' attributes) are put back into the HTML here as
notes, at the place they stood, so the walk shows them hidden in document order.
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass
from typing import Literal, cast

import cmarkgfm  # type: ignore[import-untyped]
from cmarkgfm.cmark import Options  # type: ignore[import-untyped]
from selectolax.lexbor import LexborHTMLParser

from ._guards import guard
from ._settle import Piece, settle, written
from ._writer import siblings, text_of, walk

__all__ = ["RAW_LIMIT", "View", "clean", "plain", "render", "shows_nothing"]

# GitHub's options.  Source positions change the HTML (a raw attribute left open by the text
# ends at their first quote), so they are only asked for in a second render, which says where
# each of cmark-gfm's own tags came from.
_OPTIONS = Options.CMARK_OPT_UNSAFE | Options.CMARK_OPT_FOOTNOTES | Options.CMARK_OPT_HARDBREAKS
_POSITIONED = _OPTIONS | Options.CMARK_OPT_SOURCEPOS
# Beyond GitHub's comment cap (65,536 characters) with room for a check run's summary and
# text together; the rest is cut before any work and counted in the truncation note.
RAW_LIMIT = 1 << 17
_SURROGATE_RE = re.compile("[\ud800-\udfff]")
# A shortcut: what the second render finds needs a fence line with two info words or a table's
# delimiter row (each tried once per run or line: a run from its first character, a row from
# its line's start).
_INFO_WORDS_RE = re.compile(r"(?:(?<!`)`{3,}+|(?<!~)~{3,}+)[ \t]*+[^ \t\n]++[ \t]++[^ \t\n]")
_DELIMITER_ROW_RE = re.compile(r"(?m)^(?=[^\n|]*+\|)[ \t>*+\d.)|:-]*+$")
_DEFINITION_BREAK = "]\u2060:"
# Pieces no reader sees as text: the writer's markup, the marks' brackets, hidden fragments.
_NOT_SHOWN = frozenset({"markup", "inline", "mark", "open", "close", "hidden"})


@dataclass(frozen=True, slots=True)
class View:
    """What a reader on GitHub sees of a text, as the worker will read it: ``pieces``, whose
    texts joined are :attr:`text`, the light Markdown with hidden fragments in ``⟦hidden: …⟧``
    and collapsed ``<details>`` content in ``⟦collapsed: …⟧``.  ``path``: ``rendered``;
    ``fallback``, the cleaned raw source of a text a guard (``guard``) kept from the renderer;
    or ``plain``, a text that is not Markdown.  ``dropped`` counts the raw characters cut
    before any work (beyond :data:`RAW_LIMIT`)."""

    pieces: tuple[Piece, ...]
    path: Literal["rendered", "fallback", "plain"]
    guard: str | None = None
    dropped: int = 0

    @property
    def text(self) -> str:
        return "".join(t for _, t in self.pieces)

    @property
    def shows_anything(self) -> bool:
        """Whether a reader sees anything: text, code, a link's target or an image."""
        return any(k not in _NOT_SHOWN and t.strip() for k, t in self.pieces)

    @property
    def collapsed(self) -> bool:
        return any(k == "open" for k, _ in self.pieces)


def _prepare(text: str) -> tuple[str, int]:
    """The only changes before rendering: CRLF and CR become LF, and a lone surrogate (which
    cmarkgfm refuses) U+FFFD; and how many characters beyond :data:`RAW_LIMIT` were cut."""
    dropped = max(0, len(text) - RAW_LIMIT)
    text = text[:RAW_LIMIT].replace("\r\n", "\n").replace("\r", "\n")
    return _SURROGATE_RE.sub("\ufffd", text), dropped


def plain(text: str) -> View:
    """A text that is not Markdown (a worker's message, a title), cleaned and settled."""
    text, dropped = _prepare(text)
    return View(settle([("raw", text)]), "plain", dropped=dropped)


def render(text: str) -> View:
    """The view of ``text`` as GitHub renders it in a comment."""
    text, dropped = _prepare(text)
    tripped = guard(text)
    if tripped is not None:
        return View(settle([("raw", text)]), "fallback", tripped, dropped)
    note = _Notes()
    out = _html(text)
    if "]:" in text or _INFO_WORDS_RE.search(text) or _DELIMITER_ROW_RE.search(text):
        out = _put_back(text, out, note)
    out = _dropped_tokens(out, note)
    pieces = walk(LexborHTMLParser(out, is_fragment=True).root, note.name, note.texts)
    return View(settle(written(pieces)), "rendered", dropped=dropped)


def _html(text: str, options: int = _OPTIONS) -> str:
    return cast(str, cmarkgfm.github_flavored_markdown_to_html(text, options=options))


class _Notes:
    """Hidden text put back into the HTML as an attribute of a tag: ``NAME=3_4``, NAME a
    per-render random name (raw HTML cannot guess it), 3 and 4 the texts' numbers.  It holds no
    quote, ">" or "<", so wherever the tag stands (in an attribute value, in a tag the text left
    open) the HTML parses as it did: it is more of that hidden value, or one more attribute."""

    def __init__(self) -> None:
        self.name = "data-cw-" + secrets.token_hex(8)
        self.texts: list[str] = []

    def __call__(self, *hidden: str) -> str:
        first = len(self.texts)
        self.texts += hidden
        return f" {self.name}=" + "_".join(str(n) for n in range(first, len(self.texts)))


# A start tag as cmark-gfm passes raw HTML through (CommonMark's "open tag"), its attributes,
# and a doctype.
_ATTRIBUTE = (
    r"[ \t\n]+([a-zA-Z_:][a-zA-Z0-9_.:-]*)"
    r"""(?:[ \t\n]*=[ \t\n]*(?:[^ \t\n"'=<>`]+|'[^']*'|"[^"]*"))?"""
)
_TAG_RE = re.compile(
    rf"<(?P<name>[a-zA-Z][a-zA-Z0-9-]*)(?P<attributes>(?:{_ATTRIBUTE})*+)[ \t\n]*/?>"
    r"|<!(?P<declaration>[a-zA-Z][^>]*)>"
)
_ATTRIBUTE_RE = re.compile(_ATTRIBUTE)
_DROPPED_ATTRIBUTES = frozenset({"html", "head", "body"})


def _dropped_tokens(out: str, note: _Notes) -> str:
    """cmark-gfm's HTML with what the HTML5 parser would drop of its raw HTML made visible to
    the walk, keeping how the HTML parses: a doctype becomes a bogus comment (a space after
    "<!" ends or opens nothing), a root tag (which a fragment parse ignores) an unknown
    element, whose attributes the walk hides, and a duplicate attribute a note in its tag."""
    if "<!" not in out and "=" not in out:
        return out

    def replace(m: re.Match[str]) -> str:
        declaration = m.group("declaration")
        if declaration is not None:
            return f"<! {declaration}>" if declaration[:7].lower() == "doctype" else m.group()
        name, attributes = m.group("name"), m.group("attributes")
        if not attributes:
            return m.group()
        if name.lower() in _DROPPED_ATTRIBUTES:
            return f"<{note.name}-{name}{m.group()[len(name) + 1 :]}"
        seen: set[str] = set()
        again = []
        for a in _ATTRIBUTE_RE.finditer(attributes):
            key = a.group(1).lower()
            if key in seen:
                again.append(a.group().strip())
            seen.add(key)
        if not again:
            return m.group()
        return f"<{name}{note(' '.join(again))}{m.group()[len(name) + 1 :]}"

    return _TAG_RE.sub(replace, out)


_SOURCEPOS_RE = re.compile(r' data-sourcepos="(\d+):(\d+)-\d+:\d+"')
_LEAVES = frozenset({"p", "h1", "h2", "h3", "h4", "h5", "h6"})
_BACKREF = " \u21a9"  # a footnote's "↩" back to its reference, after its last line
_CELL_RE = re.compile(r"<t[dh] data-sourcepos")


def _tags(out: str, positioned: str) -> list[tuple[int, str, int, int, int]]:
    """cmark-gfm's own tags, each as its offset in ``out``, its name, its source line and
    column (in bytes), and what cmark-gfm kept of the line: a table row's cells, a code block's
    info words (1 with a language, else 0).  The two renders differ only by the positions
    cmark-gfm adds inside its own tags, so a position found in ``positioned`` is one it added
    when ``out`` does not hold the same text at that place (raw HTML cannot put text inside
    its tags)."""
    found = []
    shift = 0  # how much longer ``positioned`` is than ``out`` before the current match
    for m in _SOURCEPOS_RE.finditer(positioned):
        if out.startswith(m.group(), m.start() - shift):
            continue  # the text's own raw HTML
        lt = positioned.rfind("<", 0, m.start())
        name = positioned[lt + 1 : m.start()]
        kept = 0
        if name == "tr":
            kept = len(_CELL_RE.findall(positioned, m.end(), positioned.find("</tr>", m.end())))
        elif name == "pre":
            kept = int(positioned.startswith(' lang="', m.end()))
        found.append((lt - shift, name, int(m.group(1)), int(m.group(2)), kept))
        shift += len(m.group())
    return found


def _put_back(text: str, out: str, note: _Notes) -> str:
    """``out`` with a note of what cmark-gfm dropped before each tag it came from: a code
    block's info words after the first, a table row's cells past the header's count, and the
    link-reference and footnote definitions that start a block."""
    positioned = _html(text, _POSITIONED)
    lines = text.split("\n")
    definitions = _definitions(text, positioned) if "]:" in text else {}
    notes: dict[int, list[str]] = {}  # by where each goes: after its tag's name
    pending = sorted(definitions)  # each goes before the first tag from its line on
    placed = 0
    for at, name, line, column, kept in _tags(out, positioned):
        here = notes.setdefault(at + 1 + len(name), [])
        while placed < len(pending) and pending[placed] <= line:
            here.append(definitions.pop(pending[placed]))
            placed += 1
        if kept and name in ("pre", "tr") and 0 < line <= len(lines):
            rest = lines[line - 1].encode()[column - 1 :].decode(errors="replace")
            dropped = _info_words(rest) if name == "pre" else _extra_cells(rest, kept)
            if dropped:
                here.append(dropped)
    parts = []
    pos = 0
    for at, hidden in notes.items():
        if hidden:
            parts += [out[pos:at], note(*hidden)]
            pos = at
    parts.append(out[pos:])
    if definitions:  # after the last block: on an element of their own
        parts.append(f"<p{note(*(definitions[n] for n in sorted(definitions)))}></p>")
    return "".join(parts)


def _info_words(fence_line: str) -> str:
    line = fence_line.lstrip(" ")
    return " ".join(line.lstrip(line[0]).split()[1:])


def _extra_cells(row: str, kept: int) -> str:
    cells = re.split(r"(?<!\\)\|", row.strip())
    if cells and not cells[0].strip():
        cells = cells[1:]
    if cells and not cells[-1].strip():
        cells = cells[:-1]
    return " | ".join(c.strip() for c in cells[kept:])


def _leaf_lines(positioned: str) -> dict[int, list[str]]:
    """The text lines of each paragraph and heading, by its start line in the source."""
    found: dict[int, list[str]] = {}
    stack = siblings(LexborHTMLParser(positioned, is_fragment=True).root)
    while stack:
        node = stack.pop()
        if node.tag in _LEAVES:
            pos = node.attributes.get("data-sourcepos") or ""
            line = int(pos.split(":", 1)[0]) if pos[:1].isdigit() else 0
            found.setdefault(line, text_of(node).split("\n"))
        else:
            stack += siblings(node.child)
    return found


def _definitions(text: str, positioned: str) -> dict[int, str]:
    """The definitions cmark-gfm consumed, by the source line of the block they start.

    Source positions cannot find them (the block that follows covers their lines), so the text
    is rendered again with every ``]:`` written ``]\\u2060:``, which makes each definition
    visible text in its block, a line per source line.  Each block is aligned line by line
    with the first render's block on the same start line (none: it was all definitions): a
    line holding the break that is not the next shown line, and those after it up to the next
    shown line, are a definition's.  A referenced footnote's label, before its shown content,
    is hidden too.
    """
    revealed = _leaf_lines(_html(text.replace("]:", _DEFINITION_BREAK), _POSITIONED))
    shown = _leaf_lines(positioned)
    notes: dict[int, str] = {}
    for line, lines in revealed.items():
        kept = shown.get(line, [])
        hidden: list[str] = []
        j, inside = 0, False
        for got in lines:
            if j < len(kept) and got.replace(_DEFINITION_BREAK, "]:") == kept[j].rstrip(_BACKREF):
                j, inside = j + 1, False
            elif _DEFINITION_BREAK in got or inside:
                label = got.find(_DEFINITION_BREAK)
                rest = got[label + 3 :].strip()
                if got.startswith("[^") and j < len(kept) and rest == kept[j].rstrip(_BACKREF):
                    hidden.append(got[: label + 3])  # a footnote shown below: its label only
                    j, inside = j + 1, False
                else:
                    hidden.append(got)
                    inside = True
            else:
                j += j < len(kept)  # a shown line the definitions changed (a reference)
        if hidden:
            notes[line] = "\n".join(hidden).replace(_DEFINITION_BREAK, "]:")
    return notes


def clean(text: str) -> str:
    """``text`` through the plain path: the seed's cleaning and markers, no rendering."""
    return plain(text).text


def shows_nothing(text: str) -> bool:
    """Whether a reader on GitHub sees nothing of ``text`` (only hidden fragments)."""
    return not render(text).shows_anything
