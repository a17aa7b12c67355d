"""Block structure of raw Markdown, the way cmark-gfm's block phase decides it.

One left-to-right walk over the lines (no backtracking, nothing rescanned): block quotes and
list items as containers, with tabs expanded to the next multiple of four columns; fenced code,
HTML blocks (the seven CommonMark start and end conditions), indented code, paragraphs, setext
and ATX headings, thematic breaks and GitHub tables as leaves; paragraph continuation lines that
are lazy.  It yields only what the hidden-text scan needs: where fenced code and HTML blocks lie,
the info strings of opening fences, and where a line of paragraph text starts with ``[`` (where a
link-reference or footnote definition can start).

cmark-gfm itself is not run here: on block-dense text (long lists, long tables, deep ``>``
nesting) its block phase alone is slower than the fence's throughput target (docs/fence.md).
The differential tests in ``tests/fence/test_blocks.py`` hold this walk to its output.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from itertools import accumulate

from ._html5 import factored

__all__ = ["Blocks", "blocks"]

# Containers deeper than this are treated as text: the walk stays linear on deep ">" runs.
_MAX_DEPTH = 32

_QUOTE = -1  # a block quote on the container stack; a list item is its content width (>= 0)
_FOOTNOTE_WIDTH = 4  # a footnote definition holds the lines indented by four columns

_NONE, _PARA, _TABLE, _FENCE, _HTML, _INDENTED = range(6)

_FENCE_RE = re.compile(r"(`{3,}+|~{3,}+)([^\n]*+)")
_CLOSE_RE = re.compile(r"(`{3,}+|~{3,}+)[ \t]*+$")
_ITEM_RE = re.compile(r"(?:[-+*]|([0-9]{1,9}+)[.)])(?=[ \t]|$)")
_BREAK_RE = re.compile(r"(?:(?:\*[ \t]*+){3,}+|(?:-[ \t]*+){3,}+|(?:_[ \t]*+){3,}+)$")
_SETEXT_RE = re.compile(r"(?:=++|-++)[ \t]*+$")
_ATX_RE = re.compile(r"#{1,6}+(?:[ \t]|$)")
_DELIMITER_RE = re.compile(
    r"\|?+[ \t]*+:?+-++:?+[ \t]*+(?:\|[ \t]*+:?+-++:?+[ \t]*+)*+\|?+[ \t]*+$"
)
_FOOTNOTE_RE = re.compile(r"\[\^([^\] \t\r\n\x00]++)\]:")
# A line whose first character is none of these continues a paragraph or starts one.
_BLOCK_FIRST = frozenset(" \t>-+*0123456789=_#`~<[|:")
# Runs of lines the walk skips in one step outside containers: paragraph text and empty lines,
# lines of fenced code that cannot close it, and everything up to the end of an HTML block.
_PLAIN_RUN_RE = re.compile(r"(?:[^ \t>\-+*0-9=_#`~<\[|:\n][^\n]*+\n|\n)*+")
_CODE_RUN_RE = {
    "`": re.compile(r"(?:(?! {0,3}+```)[^\n]*+\n)*+"),
    "~": re.compile(r"(?:(?! {0,3}+~~~)[^\n]*+\n)*+"),
}
_BLANK_AT_RE = re.compile(r"^[ \t]*+$", re.M)
_DEEP_FENCE_RE = re.compile(r"(?:(?:>|[-+*]|[0-9]{1,9}+[.)])[ \t]*+)++(`{3,}+|~{3,}+)([^\n]*+)")
_TOP_FENCE_RE = re.compile(r" {0,3}+(`{3,}+|~{3,}+)([^\n]*+)")
_TOP_CLOSE_RE = re.compile(r" {0,3}+(`{3,}+|~{3,}+)[ \t]*+$")
# A list item at column 0 whose text starts right after one space with a character that starts
# no block (the common case, decided without the general walk).
_SIMPLE_QUOTE_RE = re.compile(r"> ?+(?=[^ \t\n>\-+*0-9=_#`~<\[|:])")
_SIMPLE_ITEM_RE = re.compile(r"(?:[-+*]|([0-9]{1,9}+)[.)]) (?=[^ \t\n>\-+*0-9=_#`~<\[|:])")
# After a simple list item's first line, the lines that need no walk: its lazy continuation
# lines, then empty lines, then simple items at column 0 again (each with the same).  A line at
# column 0 after an empty line ends the list; every other line leaves the run.
_LAZY_LINES = r"(?:[^ \t>\-+*0-9=_#`~<\[|:\n][^\n]*+\n)*+"
_SIMPLE_ITEM_LINE = r"(?:[-+*]|[0-9]{1,9}+[.)]) (?=[^ \t\n>\-+*0-9=_#`~<\[|:])[^\n]*+\n"
_ITEMS = rf"\n*+(?:{_SIMPLE_ITEM_LINE}{_LAZY_LINES}\n*+)*+"
# The run while the item's paragraph is open, and after an empty line (no lazy line then).
_ITEM_RUN_RE = {_PARA: re.compile(_LAZY_LINES + _ITEMS), _NONE: re.compile(_ITEMS)}
# After a simple block quote's first line: "> text" lines and lazy ones continue its paragraph.
_QUOTE_RUN_RE = re.compile(
    r"(?:(?:> ?+(?=[^ \t\n>\-+*0-9=_#`~<\[|:])|(?=[^ \t>\-+*0-9=_#`~<\[|:\n]))[^\n]*+\n)*+"
)
# A simple list at the top level: its first item line and its run (to be taken whole it must
# end with an empty line, and the next line must start at column 0, which ends the list).
_WHOLE_LIST_RE = re.compile(_SIMPLE_ITEM_LINE + _LAZY_LINES + _ITEMS)
# A simple block quote at the top level that an empty line ends: its first line and its run.
_WHOLE_QUOTE_RE = re.compile(rf"{_SIMPLE_QUOTE_RE.pattern}[^\n]*+\n{_QUOTE_RUN_RE.pattern}\n")
_FENCES = ("```", "~~~")
# What a plain run at the top level can stop at and be followed by no other skip.
_PLAIN_END = frozenset(">-+*0123456789=_#|:\t")
# Lines of paragraph text at the top level that start with "[" but not "[^" (no footnote
# definition starts there): each is recorded in ``Blocks.brackets``.
_BRACKET_RUN_RE = re.compile(r"(?:\[(?!\^)[^\n]*+\n)++")
# A whole fenced code block at the top level: the opening line, the lines that cannot close it
# and a closing line (a candidate closing line that does not close it leaves the match).
_WHOLE_FENCE_RE = {
    "`": re.compile(
        r" {0,3}+(`{3,}+)([^`\n]*+)\n((?:(?! {0,3}+```)[^\n]*+\n)*+) {0,3}+\1`*+[ \t]*+(?:\n|\Z)"
    ),
    "~": re.compile(
        r" {0,3}+(~{3,}+)([^\n]*+)\n((?:(?! {0,3}+~~~)[^\n]*+\n)*+) {0,3}+\1~*+[ \t]*+(?:\n|\Z)"
    ),
}
_CELL_SPLIT_RE = re.compile(r"(?<!\\)\|")
_BLOCK_TAGS = (
    "address|article|aside|base|basefont|blockquote|body|caption|center|col|colgroup|dd|details|"
    "dialog|dir|div|dl|dt|fieldset|figcaption|figure|footer|form|frame|frameset|h1|h2|h3|h4|h5|"
    "h6|head|"
    "header|hr|html|iframe|legend|li|link|main|menu|menuitem|nav|noframes|ol|optgroup|option|p|"
    "param|section|source|summary|table|tbody|td|tfoot|th|thead|title|tr|track|ul"
)


def _html_start(block_tags: str) -> str:
    return (
        r"<(?:(?P<raw>script|pre|style|textarea)(?=[ \t\v\f>]|$)|(?P<comment>!--)|(?P<pi>\?)"
        r"|(?P<cdata>!\[CDATA\[)|(?P<decl>![A-Za-z])"
        rf"|(?P<block>/?(?:{block_tags})(?=[ \t\v\f>]|/>|$)))"
    )


_BLOCK_TAG_NAMES = _BLOCK_TAGS.split("|")
_HTML_START_RE = re.compile(_html_start(factored(_BLOCK_TAG_NAMES)), re.I)
# cmark-gfm's whitespace inside a tag and after a start condition's name includes VT and FF.
_ATTRIBUTE = (
    r"[ \t\v\f]++[A-Za-z_:][A-Za-z0-9_.:-]*+"
    r"""(?:[ \t\v\f]*+=[ \t\v\f]*+(?:[^ \t\n\v\f"'=<>`]++|'[^'\n]*+'|"[^"\n]*+"))?+"""
)
_COMPLETE_TAG_RE = re.compile(
    rf"(?:<[A-Za-z][A-Za-z0-9-]*+(?:{_ATTRIBUTE})*+[ \t\v\f]*+/?>"
    r"|</[A-Za-z][A-Za-z0-9-]*+[ \t\v\f]*+>)[ \t]*+$"
)
_RAW_END_RE = re.compile(r"</(?:script|pre|style|textarea)>", re.I)
# A paragraph that is only link-reference definitions has no text left for a setext heading.
_DEFINITIONS_RE = re.compile(
    r"(?:[ \t]{0,3}+\[(?:[^\[\]\\]|\\.){1,999}+\]:[ \t]*+\n?[ \t]*+(?:<[^<>\n]*+>|[^ \t\n<]\S*+)"
    r"""(?:(?:[ \t]++|[ \t]*+\n[ \t]*+)(?:"[^"]*+"|'[^']*+'|\([^()]*+\)))?[ \t]*+(?:\n|$))++""",
    re.S,
)
# A line at column 0 that starts with "<" but no HTML block that can interrupt a paragraph
# (types 1 to 6): inside a paragraph it is a continuation line.
_NOT_HTML_START = re.sub(r"\?P<\w+>", "", _HTML_START_RE.pattern[1:]).replace("$", "(?=\n)")
_TAG_TEXT_RUN_RE = re.compile(rf"(?:<(?i:(?!{_NOT_HTML_START}))[^\n]*+\n)++")
_END = {"comment": "-->", "pi": "?>", "cdata": "]]>", "decl": ">"}


@dataclass(frozen=True)
class Blocks:
    """What the walk found, as offsets into the text (sorted)."""

    fences: list[tuple[int, int]] = field(default_factory=list)
    """Fenced code blocks: the opening line's start to the end of the closing line (or of the
    last line inside, when a container or the text ends first)."""
    infos: list[tuple[int, int]] = field(default_factory=list)
    """The info string of each opening fence (from after the fence run to the line's end)."""
    html: list[tuple[int, int]] = field(default_factory=list)
    """HTML blocks: the first line's start to the end of the last line."""
    contained_html: list[list[tuple[int, int]]] = field(default_factory=list)
    """The HTML blocks that start inside a block quote or list item: each line's content
    (after the container markers and indentation, to the line's end), as cmark-gfm passes
    it to the page; empty lines left out."""
    indented: list[tuple[int, int]] = field(default_factory=list)
    """Indented code blocks: the first line's start to the end of the last non-blank line."""
    brackets: list[int] = field(default_factory=list)
    """Offsets of a ``[`` that starts a line of paragraph text (after its containers)."""
    footnotes: list[tuple[int, int, str]] = field(default_factory=list)
    """Footnote definitions: from the ``[^`` to the end of the last line, and the label."""
    breaks: list[int] = field(default_factory=list)
    """The newline before each line that does not continue the inline text of the line before
    it (a code span never pairs across one)."""


_SPACES_RE = re.compile(r"[ \t]*+")


def _indent(line: str, i: int, col: int) -> tuple[int, int]:
    """The index and column of the first character after spaces and tabs from ``i``, which
    sits at column ``col`` (a tab may be partly consumed: it still ends at a multiple of 4).
    Past 64 columns of indentation the column is a lower bound: every decision is made by then
    (the rest of the line is code or paragraph text), and the walk stays linear."""
    if i >= len(line) or (line[i] != " " and line[i] != "\t"):
        return i, col
    m = _SPACES_RE.match(line, i)
    assert m is not None
    j = m.end()
    if j - i > 64 or line.find("\t", i, j) < 0:
        return j, col + (j - i)
    for ch in line[i:j]:
        col = col + 1 if ch == " " else (col // 4 + 1) * 4
    return j, col


def _advance(line: str, i: int, col: int, columns: int) -> tuple[int, int]:
    """Consume ``columns`` columns of spaces and tabs from ``i`` at column ``col``."""
    n = len(line)
    while columns > 0 and i < n:
        ch = line[i]
        if ch == " ":
            i += 1
            col += 1
            columns -= 1
        elif ch == "\t":
            width = (col // 4 + 1) * 4 - col
            if width <= columns:
                i += 1
                col += width
                columns -= width
            else:
                col += columns
                columns = 0
        else:
            break
    return i, col


def _cells(row: str) -> int:
    row = row.strip(" \t")
    if row.startswith("|"):
        row = row[1:]
    if row.endswith("|") and not row.endswith("\\|"):
        row = row[:-1]
    return len(_CELL_SPLIT_RE.split(row))


class _Walk:
    """The walk's state between lines."""

    runs = True
    """Whether lines are skipped in runs beyond the plain runs at the top level (tag lines in a
    paragraph, lines inside one simple container): the tests walk without them too."""

    def __init__(self) -> None:
        self.stack: list[int] = []
        self.filled: list[bool] = []  # per container: whether it holds a block yet
        self.notes: list[tuple[int, str] | None] = []  # per container: a footnote's start, label
        self.leaf = _NONE
        self.fence = ""  # the open fence's run
        self.html_end = ""  # the open HTML block's end string ("" ends at a blank line)
        self.start = 0  # where the open fence or HTML block starts
        self.code_end = 0  # the end of the open indented code's last non-blank line
        self.para: list[tuple[int, int]] = []  # the open paragraph's lines, content only
        # The content lines of an open HTML block that started inside a container.
        self.html_lines: list[tuple[int, int]] | None = None
        self.out = Blocks()

    def close_leaf(self, end: int) -> None:
        if self.leaf == _FENCE:
            self.out.fences.append((self.start, end))
        elif self.leaf == _HTML:
            self.out.html.append((self.start, end))
            if self.html_lines is not None:
                self.out.contained_html.append(self.html_lines)
                self.html_lines = None
        elif self.leaf == _INDENTED:
            self.out.indented.append((self.start, self.code_end))
        self.leaf = _NONE

    def truncate(self, depth: int, end: int) -> None:
        """Close the containers deeper than ``depth`` and the open leaf (before ``end``)."""
        if depth < len(self.stack):
            for note in self.notes[depth:]:
                if note is not None:
                    self.out.footnotes.append((note[0], end, note[1]))
            del self.stack[depth:]
            del self.filled[depth:]
            del self.notes[depth:]
        self.close_leaf(end)

    def push(self, kind: int, note: tuple[int, str] | None = None) -> None:
        if self.filled:
            self.filled[-1] = True
        self.stack.append(kind)
        self.filled.append(note is not None)  # a blank line does not end a footnote
        self.notes.append(note)

    def open_leaf(self, leaf: int) -> None:
        if self.filled:
            self.filled[-1] = True
        self.leaf = leaf

    def line(self, text: str, start: int, end: int) -> None:
        """One line, ``text[start:end]`` (without its newline); ``end + 1`` starts the next."""
        if start < end and text[start] not in _BLOCK_FIRST:
            # Most lines: text at column 0 matches no container and starts no block.
            leaf = self.leaf
            if leaf == _PARA:
                self.para.append((start, end))  # a continuation, lazy under containers
                return
            if not self.stack:
                if leaf == _FENCE:
                    return
                if leaf == _TABLE:
                    self.out.breaks.append(start - 1)  # a row
                    return
            if leaf != _HTML or self.stack:
                self.out.breaks.append(start - 1)
                self.truncate(0, start)
                self.leaf = _PARA
                self.para = [(start, end)]
                return
        elif start == end:
            self._empty_line(start)
            return
        elif text[start] == ">" and (quote := self._simple_quote(text, start, end)):
            # "> text" at column 0: a new block quote or, in one, its paragraph.
            if self.stack:
                self.para.append((quote, end))  # continues the quoted paragraph
                return
            self.out.breaks.append(start - 1)
            self.truncate(0, start)
            self.push(_QUOTE)
            self.open_leaf(_PARA)
            self.para = [(quote, end)]
            return
        elif self.stack or self.leaf not in (_FENCE, _HTML):
            item = _SIMPLE_ITEM_RE.match(text, start, end)
            if item is not None and not (
                not self.stack and self.leaf == _PARA and item.group(1) not in (None, "1")
            ):
                # "- text" or "1. text" at column 0: a new item, whatever was open.
                self.out.breaks.append(start - 1)
                self.truncate(0, start)
                self.push(item.end() - start)
                self.open_leaf(_PARA)
                self.para = [(item.end(), end)]
                return
        line = text[start:end]
        n = len(line)
        self.out.breaks.append(start - 1)
        i = col = 0
        matched = 0
        stack = self.stack
        for depth, kind in enumerate(stack):
            j, jc = _indent(line, i, col)
            if kind == _QUOTE:
                if jc - col > 3 or j >= n or line[j] != ">":
                    break
                i, col = _advance(line, j + 1, jc + 1, 1)
            elif jc - col >= kind:
                i, col = _advance(line, i, col, kind)
            elif j < n or not self.filled[depth] or (n and self.notes[depth] is not None):
                # An item that starts with a blank line ends at a second one; a footnote
                # definition holds empty lines, not lines of spaces (cmark-gfm's rule).
                break
            else:
                i, col = j, jc  # a blank line: its spaces are consumed
            matched += 1
        all_matched = matched == len(stack)
        leaf = self.leaf
        if leaf in (_FENCE, _HTML):
            if not all_matched:
                self.close_leaf(start)
            elif leaf == _FENCE:
                j, jc = _indent(line, i, col)
                close = _CLOSE_RE.match(line, j) if jc - col <= 3 else None
                run = close.group(1) if close else ""
                if run[:1] == self.fence[0] and len(run) >= len(self.fence):
                    self.close_leaf(end + 1)
                return
            else:
                blank = not self.html_end and not line[i:].strip(" \t")
                if self.html_lines is not None and not blank:
                    self.html_lines.append((start + i, end))
                if self.html_end:
                    if self._html_ends(line, i):
                        self.close_leaf(end + 1)
                elif blank:
                    self.close_leaf(start)
                return
        while True:
            j, jc = _indent(line, i, col)
            indent = jc - col
            container_para = all_matched and self.leaf == _PARA
            if j >= n:  # blank
                if self.leaf != _INDENTED or not all_matched:
                    self.truncate(matched, start)
                return
            if indent >= 4:
                if self.leaf == _PARA:
                    break  # a paragraph continuation (possibly lazy)
                if self.leaf != _INDENTED or not all_matched:
                    self.truncate(matched, start)
                    self.open_leaf(_INDENTED)
                    self.start = start
                self.code_end = end
                return
            ch = line[j]
            if ch == ">" and len(stack) < _MAX_DEPTH:
                self.truncate(matched, start)
                self.push(_QUOTE)
                matched = len(stack)
                all_matched = True
                i, col = _advance(line, j + 1, jc + 1, 1)
                continue
            if ch == "`" or ch == "~":
                m = _FENCE_RE.match(line, j)
                if m and not (ch == "`" and "`" in m.group(2)):
                    self.truncate(matched, start)
                    self.open_leaf(_FENCE)
                    self.fence = m.group(1)
                    self.start = start
                    self.out.infos.append((start + m.start(2), end))
                    return
            elif ch == "<":
                m = _HTML_START_RE.match(line, j)
                start_kind = m.lastgroup if m else None
                if start_kind is None and not container_para and _COMPLETE_TAG_RE.match(line, j):
                    start_kind = "tag"  # type 7: cannot interrupt a paragraph
                if start_kind is not None:
                    self.truncate(matched, start)
                    self.open_leaf(_HTML)
                    self.start = start
                    self.html_lines = [(start + j, end)] if stack else None
                    blank_ends = start_kind in ("block", "tag")
                    self.html_end = "" if blank_ends else _END.get(start_kind, "raw")
                    if self.html_end and self._html_ends(line, j):
                        self.close_leaf(end + 1)
                    return
            if container_para and (ch == "=" or ch == "-") and _SETEXT_RE.match(line, j):
                if not self._only_definitions(text):
                    self.leaf = _NONE  # the paragraph becomes a heading
                    return
                self.para.append((start + j, end))
                return  # the line is paragraph text (and no table delimiter)
            if (ch == "*" or ch == "-" or ch == "_") and _BREAK_RE.match(line, j):
                self.truncate(matched, start)
                self.open_leaf(_NONE)
                return
            if (ch in "-+*" or ch.isdigit()) and len(stack) < _MAX_DEPTH:
                m = _ITEM_RE.match(line, j)
                if m is not None:
                    k, kc = _indent(line, m.end(), jc + m.end() - j)
                    empty = k >= n
                    number = m.group(1)
                    if not (container_para and (empty or (number is not None and number != "1"))):
                        marker = jc - col + m.end() - j
                        spaces = kc - (jc + m.end() - j)
                        width = marker + (1 if empty or spaces >= 5 else spaces)
                        self.truncate(matched, start)
                        self.push(width)
                        matched = len(stack)
                        all_matched = True
                        i, col = _advance(line, m.end(), jc + m.end() - j, width - marker)
                        if empty:
                            return
                        continue
            if ch == "[" and len(stack) < _MAX_DEPTH:
                m = _FOOTNOTE_RE.match(line, j)
                if m is not None:
                    self.truncate(matched, start)
                    self.push(_FOOTNOTE_WIDTH, (start + j, m.group(1)))
                    matched = len(stack)
                    all_matched = True
                    i, col = _advance(line, m.end(), jc + m.end() - j, 1 << 30)
                    continue
            if ch == "#" and _ATX_RE.match(line, j):
                self.truncate(matched, start)
                self.open_leaf(_NONE)
                return
            deep = _DEEP_FENCE_RE.match(line, j) if len(stack) >= _MAX_DEPTH else None
            if deep is not None and not (deep.group(1)[0] == "`" and "`" in deep.group(2)):
                # Too deep to follow: the line is text here, but a fence in it may open code
                # in cmark-gfm, so its info string is marked (too much rather than too little).
                self.out.infos.append((start + deep.start(2), end))
            break
        # Paragraph text, a table row or a delimiter row.
        j, jc = _indent(line, i, col)
        content = line[j:]
        if (
            self.leaf == _PARA
            and all_matched
            and jc - col < 4
            and "-" in content
            and _DELIMITER_RE.match(content)
            and _cells(content) == _cells(self._last_para_line(text))
        ):
            self.leaf = _TABLE  # the paragraph's last line is the header
            return
        if self.leaf == _TABLE and all_matched:
            return
        if self.leaf != _PARA:
            self.truncate(matched, start)
            self.open_leaf(_PARA)
            self.para = []
        else:  # a continuation line (lazy when not all matched)
            self.out.breaks.pop()
        self.para.append((start + j, end))
        if content.startswith("["):
            self.out.brackets.append(start + j)

    def _simple_quote(self, text: str, start: int, end: int) -> int:
        """Where the text of a "> text" line starts, when the line continues the paragraph
        of the only open container, a block quote, or starts a block quote at the top level
        (else 0: the general walk decides)."""
        if self.stack:
            if self.stack != [_QUOTE] or self.leaf != _PARA:
                return 0
        elif self.leaf in (_FENCE, _HTML):
            return 0
        quote = _SIMPLE_QUOTE_RE.match(text, start, end)
        return 0 if quote is None else quote.end()

    def _empty_line(self, start: int) -> None:
        """An empty line: it matches the list items that hold a block, up to the first block
        quote; it ends a paragraph and, unmatched, the leaf."""
        self.out.breaks.append(start - 1)
        matched = 0
        for depth, kind in enumerate(self.stack):
            if kind == _QUOTE or not self.filled[depth]:
                break
            matched += 1
        leaf = self.leaf
        if matched == len(self.stack):
            if leaf == _HTML and not self.html_end:
                self.close_leaf(start)
            elif leaf not in (_FENCE, _HTML, _INDENTED):
                self.leaf = _NONE
        else:
            self.truncate(matched, start)

    def run(self, text: str, start: int) -> int:
        """Inside one simple list item or block quote (its paragraph open, or an item's after
        an empty line): where the lines from ``start`` that need no walk end, the state
        updated as if they had been walked."""
        stack = self.stack
        if len(stack) != 1 or self.notes[0] is not None or not self.filled[0]:
            return start
        leaf = self.leaf
        if leaf == _PARA:
            first = self.para[0][0]
            if text[first : first + 1] == "[":
                return start  # a paragraph of definitions needs all its lines
        elif leaf != _NONE or stack[0] == _QUOTE:
            return start
        if stack[0] == _QUOTE:
            m = _QUOTE_RUN_RE.match(text, start)
            stop = m.end() if m is not None else start
            if stop > start:
                line = text.rfind("\n", 0, stop - 1) + 1
                quote = _SIMPLE_QUOTE_RE.match(text, line, stop - 1)
                self.para.append((line if quote is None else quote.end(), stop - 1))
            if text.startswith("\n", stop):  # an empty line ends the quote
                self.out.breaks.append(stop - 1)
                self.truncate(0, stop)
                stop += 1
            return stop
        m = _ITEM_RUN_RE[leaf].match(text, start)
        stop = m.end() if m is not None else start
        if stop == start:
            return start
        item, last = self._item_breaks(text, start, stop)
        if item >= 0:
            found = _SIMPLE_ITEM_RE.match(text, item)
            assert found is not None
            stack[0] = found.end() - item
            self.para = [(found.end(), text.index("\n", item))]
        if last == stop - 1:
            self.leaf = _NONE  # the run ends with an empty line
        else:
            self.leaf = _PARA
            if last != item:
                self.para.append((last, stop - 1))
        return stop

    def _item_breaks(self, text: str, start: int, stop: int) -> tuple[int, int]:
        """The breaks of the lines of a simple list from ``start`` to ``stop`` (whole lines):
        an item line and an empty line start a block, a lazy line continues the paragraph.
        Returns where the last item line and the last line start (-1: none)."""
        breaks = self.out.breaks
        item = last = -1
        pos = start
        while pos < stop:
            last = pos
            ch = text[pos]
            if ch == "\n":
                breaks.append(pos - 1)
                pos += 1
                continue
            if ch in "-+*0123456789":
                breaks.append(pos - 1)
                item = pos
            pos = text.index("\n", pos) + 1
        return item, last

    def skip(self, text: str, start: int) -> int:
        """Outside containers: where the lines from ``start`` that need no walk end (the
        state is updated as if they had been walked)."""
        while start <= len(text) and not self.stack:
            plain = self.runs and self.leaf in (_PARA, _NONE)
            stop = self._skip(text, start)
            if stop == start or (
                # After a plain run, only a fence or tag lines could be skipped.
                plain and self.leaf != _FENCE and text[stop : stop + 1] in _PLAIN_END
            ):
                if not plain:
                    return stop
                opened = self._open_simple(text, stop)
                if opened == stop:
                    return stop
                if not self.stack and text[stop] != ">" and not text.startswith(_FENCES, opened):
                    # A whole list was taken: its next line is walked as the list's run left
                    # it (a fence at column 0 would be walked as at the top level).
                    return opened
                stop = opened  # a container is open, or a whole block quote was taken
            start = stop
        return start

    def _open_simple(self, text: str, start: int) -> int:
        """At the top level, no leaf but a paragraph open: a "- text" or "> text" line at
        ``start`` opens its container as ``line`` would (where the next line starts; a block
        quote that an empty line ends is taken whole, to the line after that), and any other
        line is left to ``line`` (``start``)."""
        end = text.find("\n", start)
        if end < 0:
            end = len(text)
        if text.startswith(">", start):
            whole = _WHOLE_QUOTE_RE.match(text, start)
            if whole is not None:
                # Opened, run and ended by its empty line (no footnote, no leaf to close).
                self.out.breaks.extend((start - 1, whole.end() - 2))
                self.leaf = _NONE
                return whole.end()
            found = _SIMPLE_QUOTE_RE.match(text, start, end)
            kind = _QUOTE
        else:
            found = _SIMPLE_ITEM_RE.match(text, start, end)
            if found is None or (self.leaf == _PARA and found.group(1) not in (None, "1")):
                return start
            kind = found.end() - start
            whole = _WHOLE_LIST_RE.match(text, start)
            stop = whole.end() if whole is not None else start
            if stop > start and text[stop - 2] == "\n" and text[stop : stop + 1] not in " \t":
                # Ended by an empty line and a line at column 0 (or the end of the text).
                self._item_breaks(text, start, stop)
                self.leaf = _NONE
                return stop
        if found is None:
            return start
        self.out.breaks.append(start - 1)
        self.stack.append(kind)
        self.filled.append(True)
        self.notes.append(None)
        self.leaf = _PARA
        self.para = [(found.end(), end)]
        return end + 1

    def _skip(self, text: str, start: int) -> int:
        leaf = self.leaf
        if leaf in (_PARA, _NONE):
            m = _PLAIN_RUN_RE.match(text, start)
            stop = m.end() if m else start
            if stop == start:
                tags = _TAG_TEXT_RUN_RE.match(text, start) if leaf == _PARA and self.runs else None
                if tags is not None:
                    self.para.append((start, tags.end() - 1))  # continuation lines
                    return tags.end()
                if self.runs:
                    stop = self._runs(text, start, leaf)
                    if stop > start:
                        return stop
                fence = _TOP_FENCE_RE.match(text, start)
                if fence is None or (fence.group(1)[0] == "`" and "`" in fence.group(2)):
                    return start
                self.out.breaks.append(start - 1)
                self.truncate(0, start)
                self.open_leaf(_FENCE)
                self.fence = fence.group(1)
                self.start = start
                self.out.infos.append(fence.span(2))
                return fence.end() + 1
            last_end = stop - 1
            last_start = text.rfind("\n", start, last_end) + 1 or start
            if last_start == last_end:  # the run ends with an empty line
                self.leaf = _NONE
                return stop
            blank = text.rfind("\n\n", start - 1 if start else 0, last_end)
            first = blank + 2 if blank >= 0 else start + 1 if text[start] == "\n" else start
            if first == start and leaf == _PARA:
                self.para.append((start, last_end))  # continuation lines
            else:
                if first == start:
                    self.out.breaks.append(start - 1)
                self.leaf = _PARA
                self.para = [(first, last_end)]
            return stop
        if leaf == _FENCE:
            m = _CODE_RUN_RE[self.fence[0]].match(text, start)
            stop = m.end() if m else start
            line_end = text.find("\n", stop)
            if line_end < 0:
                line_end = len(text)
            close = _TOP_CLOSE_RE.match(text, stop, line_end)
            run = close.group(1) if close is not None else ""
            if run[:1] == self.fence[0] and len(run) >= len(self.fence):
                self.out.breaks.append(stop - 1)
                self.close_leaf(line_end + 1)
            return line_end + 1  # a closing fence, or a line of code
        if leaf == _HTML:
            if not self.html_end:
                blank_line = _BLANK_AT_RE.search(text, start)
                return len(text) + 1 if blank_line is None else blank_line.start()
            if self.html_end == "raw":
                raw = _RAW_END_RE.search(text, start)
                found = -1 if raw is None else raw.start()
            else:
                found = text.find(self.html_end, start)
            return len(text) + 1 if found < 0 else text.rfind("\n", start, found) + 1 or start
        return start

    def _runs(self, text: str, start: int, leaf: int) -> int:
        """At the top level, no leaf but a paragraph open and no plain line at ``start``: where
        a run of "[" lines or a whole fenced code block from ``start`` ends, the state updated
        as if each line had been walked (``start``: neither is there)."""
        ch = text[start : start + 1]
        if ch == "[":
            m = _BRACKET_RUN_RE.match(text, start)
            if m is None:
                return start
            stop = m.end()
            if leaf == _PARA:
                self.para.append((start, stop - 1))  # continuation lines
            else:
                self.out.breaks.append(start - 1)
                self.leaf = _PARA
                self.para = [(start, stop - 1)]
            widths = map((1).__add__, map(len, text[start : stop - 1].split("\n")[:-1]))
            self.out.brackets.extend(accumulate(widths, initial=start))  # each line's start
            return stop
        if ch == " ":
            ch = text[start : start + 4].lstrip(" ")[:1]
        if ch == "`" or ch == "~":
            m = _WHOLE_FENCE_RE[ch].match(text, start)
            if m is None:
                return start
            stop = m.end()
            line_end = stop - 1 if text[stop - 1] == "\n" else stop
            self.out.breaks.extend((start - 1, m.end(3) - 1))
            self.out.infos.append(m.span(2))
            self.out.fences.append((start, line_end + 1))
            self.leaf = _NONE
            return line_end + 1
        return start

    def _last_para_line(self, text: str) -> str:
        a, b = self.para[-1]
        return text[max(a, text.rfind("\n", a, b) + 1) : b]

    def _only_definitions(self, text: str) -> bool:
        first = self.para[0][0]
        if text[first : first + 1] != "[":
            return False
        return _DEFINITIONS_RE.fullmatch("\n".join(text[a:b] for a, b in self.para)) is not None

    def _html_ends(self, line: str, i: int) -> bool:
        if self.html_end == "raw":
            return _RAW_END_RE.search(line, i) is not None
        return line.find(self.html_end, i) >= 0


def blocks(text: str) -> Blocks:
    """The block structure of ``text`` (LF line ends) that the hidden-text scan needs."""
    walk = _Walk()
    start = 0
    size = len(text)
    while start <= size:
        stack = walk.stack
        if not stack:
            start = walk.skip(text, start)
            if start > size:
                break
            if walk.stack:
                continue  # the skip opened a simple container: its run is next
        else:
            start = walk.run(text, start)
            if not walk.stack:
                continue
            if len(stack) == 1 and walk.leaf != _PARA and text.startswith(_FENCES, start):
                # A fence at column 0 closes the one container (no paragraph is open for it to
                # continue lazily) and is walked as at the top level.
                walk.truncate(0, start)
                continue
        end = text.find("\n", start)
        if end < 0:
            end = size
        walk.line(text, start, end)
        start = end + 1
    walk.truncate(0, size)
    return walk.out
