"""Inline constructs of GitHub Markdown that hide text, as cmark-gfm parses them: images (alt
text and all), link destinations and titles, table cells beyond the header's column count, and
the labels of footnote references.  Each is one regex pass or one left-to-right walk, and each
errs towards marking too much (``tests/fence/test_differential.py`` checks them against
cmark-gfm)."""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Collection

__all__ = [
    "BLANK_LINE_RE",
    "code_span_readings",
    "escaped",
    "footnote_refs",
    "holds",
    "images",
    "in_html_paragraph",
    "intersect",
    "label_key",
    "link_labels",
    "link_tails",
    "strict_breaks",
    "table_excess",
]

_NO_BLANK = r"\n(?![ \t]*+\n)"


def holds(text: str, needle: str) -> bool:
    """``needle in text``, each of its characters looked for first: a search for one character
    runs at memory speed, one for several much slower (most texts lack one of the characters
    of most of the scans' triggers: a tilde, a caret, a parenthesis)."""
    return all(char in text for char in needle) and needle in text


def _balanced(depth: int) -> str:
    """One piece of a bare link destination: a run without spaces or parentheses, a backslash
    escape, or "(" followed by pieces one level deeper and its ")" if there is one (cmark-gfm
    ends a destination at a space whatever the depth, and allows 32 levels)."""
    atom = r"[^ \t\n()\\]++|\\[^\n]?"
    unit = f"(?:{atom})"
    for _ in range(depth):
        unit = rf"(?:{atom}|\({unit}*+\)?+)"
    return unit


_DEST = rf"(?:<(?:[^<>\n\\]++|\\[^\n]?)*+>|(?!<){_balanced(32)}++)"
_TITLE = (
    rf'''(?:"(?:[^"\\\n]++|\\[^\n]?|{_NO_BLANK})*+"'''
    rf"""|'(?:[^'\\\n]++|\\[^\n]?|{_NO_BLANK})*+'"""
    rf"|\((?:[^()\\\n]++|\\[^\n]?|{_NO_BLANK})*+\))"
)
# "(destination title)" after a link's or an image's "]"; the "]" is part of the match so the
# regex starts on a literal (the engine skips ahead to it).
_TAIL = rf"\([ \t\n]*+(?:{_DEST})?(?:[ \t\n]++{_TITLE})?[ \t\n]*+\)"
_LINK_TAIL_RE = re.compile(rf"\]{_TAIL}")
_INLINE_TAIL_RE = re.compile(_TAIL)
# "[label]" of a full or collapsed reference (labels may span lines).
_REF_TAIL_RE = re.compile(r"\[(?:[^\[\]\\]++|\\[^\n]?){0,999}+\]")
_BRACKET_RE = re.compile(r"[\[\]]")
BLANK_LINE_RE = re.compile(r"\n[ \t]*+\n")
"""A blank line (with the newline before it): where a paragraph ends."""
# "[label]:" anywhere: a superset of the link-reference definitions (for shortcut images).
_LINK_LABEL_RE = re.compile(r"\[((?:[^\[\]\\]|\\[^\n]?){1,999}+)\]:")
_SPACES_RE = re.compile(r"\s+")
_FOOTNOTE_REF_RE = re.compile(r"\[\^([^\]\n]++)\](?!:)")
# A table's delimiter row ("| --- | :-: |"): it needs a pipe, or it is a setext underline.
_DELIMITER_ROW_RE = re.compile(
    r"^[ \t>]*+(?=[^\n]*\|)\|?[ \t]*+:?-++:?[ \t]*+(?:\|[ \t]*+:?-++:?[ \t]*+)*+\|?[ \t]*+$",
    re.M,
)
_ROW_LEAD_RE = re.compile(r"[ \t>]*+\|?")


# Where an inline subject (a paragraph) surely ends: a blank line, or a line that starts another
# block (a quote, a list item, a heading, a fence, HTML, a thematic break or setext underline,
# a table's delimiter row, a footnote definition).
# Code spans never cross one; a break that is really none only makes less text code.
# A line indented by four columns can be indented code: it is a paragraph of its own there.
_BLOCK_START = (
    r"[ \t]*+(?=\n|$)|[ \t]{0,3}+(?:(?P<quote>>)|[-+*](?=[ \t\n])|[0-9]{1,9}+[.)](?=[ \t\n])"
    r"|#{1,6}+(?=[ \t\n])|```|~~~|<[A-Za-z/!?]|(?:[-=_*][ \t]*+){3,}+(?=\n|$)"
    r"|\|?[ \t]*+:?-++:?[ \t]*+\||\[\^[^\]\n]++\]:)|(?:\t| {4})"
)
_BREAK_RE = re.compile(rf"\n(?:{_BLOCK_START})")
_BLOCK_START_RE = re.compile(_BLOCK_START)
_QUOTE_LINE_RE = re.compile(r"\n[ \t]{0,3}+>")
_QUOTE_MARKERS_RE = re.compile(r"(?:[ \t]{0,3}+>[ \t]?+)++")
_INDENTED_LINE_RE = re.compile(r"\n(?:\t| {4})[^\n]*+")
# A fence line after quote or list markers: fenced code there ends with its container, so its
# end is a break too (in the same reading).
_FENCE_LINE_RE = re.compile(
    r"^[ \t>]*+(?:(?:[-+*]|[0-9]{1,9}+[.)])[ \t]++)*+(?:```|~~~)[^\n]*+", re.M
)
# A line that starts like a link-reference or footnote definition: a definition is no
# paragraph, so its backticks open no code span past its end (in the same reading).
_DEFINITION_LINE_RE = re.compile(r"^[ \t>]*+\[[^\]\n]++\]:[^\n]*+", re.M)
# The end of a line holding a pipe: table rows are inline subjects of their own.
_PIPE_LINE_RE = re.compile(r"\|[^\n]*+")
# A line that starts like HTML after quote or list markers: an HTML block of types 1-5 can end
# on it, so in the reading that breaks at every block start its end is a break too.
_HTML_LINE_RE = re.compile(
    r"^[ \t>]*+(?:(?:[-+*]|[0-9]{1,9}+[.)])[ \t]++)*+<[A-Za-z/!?][^\n]*+", re.M
)


def strict_breaks(text: str) -> list[int]:
    """The ``_BREAK_RE`` breaks of ``text``, but a quote line after a quote line is none unless
    a block starts after its markers (the quote's paragraph goes on)."""
    out = [m.start() for m in _BREAK_RE.finditer(text)]
    if ">" not in text:
        return out
    # The breaks of quote lines are exactly where _QUOTE_LINE_RE matches (its "quote" group).
    kept_on: set[int] = set()
    for m in _QUOTE_LINE_RE.finditer(text):
        start = m.start()
        line = text.rfind("\n", 0, start) + 1
        if text[line:start].lstrip(" \t").startswith(">"):
            markers = _QUOTE_MARKERS_RE.match(text, start + 1)
            rest = start + 1 if markers is None else markers.end()
            inner = _BLOCK_START_RE.match(text, rest)
            if inner is None or inner.group("quote") is not None:
                kept_on.add(start)  # the quote's paragraph goes on
    return [pos for pos in out if pos not in kept_on] if kept_on else out


def code_span_readings(
    text: str, runs: list[tuple[int, int]], breaks: Collection[int] = ()
) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """Code spans from the backtick runs of ``text`` (those outside code blocks and HTML
    blocks) in two readings of where paragraphs end: at every line that may start another
    block (``_BREAK_RE``), and at blank lines only.  Each pairs as cmark-gfm pairs: an opener
    (its first backtick literal when escaped) closes at the next run of its length in the same
    paragraph, and cmark-gfm's memo of where it last saw a run of each length is honoured:
    once a scan found no closer, an opener whose length was last seen before it stays literal
    (in ``"`` `a` `b`"`` the unpaired "``" makes the first scan run to the end, the pair around
    "a" then leaves the memo of single backticks before "b", so "`b`" is not code)."""
    # The next run of the same length, and of one less (for an opener whose first backtick is
    # escaped), for every run (one pass from the right).  A closer is inside the code span,
    # where a backslash is literal, so its whole run counts.
    following = [-1] * len(runs)
    shorter = [-1] * len(runs)
    seen: dict[int, int] = {}
    for i in range(len(runs) - 1, -1, -1):
        length = runs[i][1] - runs[i][0]
        following[i] = seen.get(length, -1)
        shorter[i] = seen.get(length - 1, -1)
        seen[length] = i
    if not runs:
        return [], []
    every = strict_breaks(text)
    if "\t" in text or "    " in text:
        every += [m.end() for m in _INDENTED_LINE_RE.finditer(text)]
        if text.startswith(("\t", "    ")):
            first = text.find("\n")
            every.append(len(text) if first < 0 else first)
    if "<" in text:
        every += [m.end() for m in _HTML_LINE_RE.finditer(text)]
    if holds(text, "```") or holds(text, "~~~"):
        every += [m.end() for m in _FENCE_LINE_RE.finditer(text)]
    if holds(text, "]:"):
        every += [m.end() for m in _DEFINITION_LINE_RE.finditer(text)]
    if "|" in text:
        every += [m.end() for m in _PIPE_LINE_RE.finditer(text)]
    every.sort()
    # The second reading ends paragraphs at blank lines and at the lines the block walk saw
    # start a new block (``breaks``, from ``_blocks``): cmark-gfm's own reading, when the walk
    # follows it.
    blank = sorted([m.start() for m in BLANK_LINE_RE.finditer(text)] + list(breaks))
    return (
        _pair(text, runs, following, shorter, [*every, len(text)]),
        _pair(text, runs, following, shorter, [*blank, len(text)]),
    )


def intersect(a: list[tuple[int, int]], b: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The intersection of two sorted lists of disjoint spans."""
    if a == b:
        return a
    out: list[tuple[int, int]] = []
    i = j = 0
    while i < len(a) and j < len(b):
        start, end = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if start < end:
            out.append((start, end))
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return out


def _pair(
    text: str,
    runs: list[tuple[int, int]],
    following: list[int],
    shorter: list[int],
    breaks: list[int],
) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    memo: dict[int, int] = {}  # run length -> start of the run of that length seen last
    scanned = False  # a scan reached the paragraph's end without a closer
    paragraph = -1
    count = len(runs)
    i = 0
    while i < count:
        start, end = runs[i]
        b = bisect_left(breaks, end)
        if b != paragraph:
            paragraph, memo, scanned = b, {}, False
        backslashed = start > 0 and text[start - 1] == "\\" and escaped(text, start)
        j = shorter[i] if backslashed else following[i]
        length = end - start - backslashed
        if length == 0 or (scanned and memo.get(length, -1) < end):
            i += 1
            continue
        limit = breaks[b]
        if j >= 0 and runs[j][0] <= limit:
            for k in range(i + 1, j + 1):
                run_start, run_end = runs[k]
                memo[run_end - run_start] = run_start
            spans.append((start + backslashed, runs[j][1]))
            i = j + 1
        else:
            k = i + 1
            while k < count and runs[k][0] <= limit:
                run_start, run_end = runs[k]
                memo[run_end - run_start] = run_start
                k += 1
            scanned = True
            i += 1
    return spans


def escaped(text: str, pos: int) -> bool:
    """Whether the character at ``pos`` follows an odd number of backslashes."""
    count = 0
    while pos - count > 0 and text[pos - count - 1] == "\\":
        count += 1
    return count % 2 == 1


def label_key(label: str) -> str:
    """A link or footnote label as cmark-gfm compares them: case folded, spaces collapsed."""
    return _SPACES_RE.sub(" ", label.strip()).casefold()


def link_labels(text: str) -> set[str]:
    """The keys of every ``[label]:`` in ``text`` (more than the real definitions)."""
    if not holds(text, "]:"):
        return set()
    return {label_key(m.group(1)) for m in _LINK_LABEL_RE.finditer(text)}


def link_tails(text: str, in_code: Callable[[int], bool]) -> list[tuple[int, int]]:
    """The ``(destination "title")`` of every inline link or image outside code."""
    if not holds(text, "]("):
        return []
    tails = [(m.start() + 1, m.end()) for m in _LINK_TAIL_RE.finditer(text)]
    return [tail for tail in tails if not in_code(tail[0])]


def images(
    text: str, in_code: Callable[[int], bool], labels: Collection[str]
) -> list[tuple[int, int]]:
    """Whole images, ``![alt](tail)``, ``![alt][label]``, ``![alt][]`` and ``![label]`` (when
    ``label`` is among ``labels``): GitHub shows none of their text; also the inside of
    ``[^...]`` spanning lines.  The alt text may hold
    balanced brackets, links, code and line breaks: brackets pair as cmark-gfm pairs them (a
    "]" closes the nearest open bracket; escaped ones and those in code do not count), within
    one paragraph (a blank line closes every bracket)."""
    if (not holds(text, "![") and not holds(text, "[^")) or "]" not in text:
        return []
    blanks = [m.start() for m in BLANK_LINE_RE.finditer(text)]
    blanks.append(len(text))
    b = 0
    stack: list[tuple[int, bool]] = []
    spans: list[tuple[int, int]] = []
    for m in _BRACKET_RE.finditer(text):
        pos = m.start()
        if pos > blanks[b]:
            stack.clear()
            while pos > blanks[b]:
                b += 1
        if pos and text[pos - 1] == "\\" and escaped(text, pos):
            continue
        if in_code(pos):
            continue
        if text[pos] == "[":
            bang = pos - 1
            image = bang >= 0 and text[bang] == "!" and not escaped(text, bang)
            stack.append((bang if image else pos, image))
            continue
        if not stack:
            continue
        start, image = stack.pop()
        opened = start + 1 + image  # the first character inside the brackets
        if text.startswith("^", opened) and "\n" in text[opened:pos]:
            # cmark-gfm drops the label of "[^...]" when it holds a line break ("[^a\nb]"
            # shows as "[^]"): mark it all.
            spans.append((opened, pos))
        if not image:
            continue
        tail = _INLINE_TAIL_RE.match(text, pos + 1) or _REF_TAIL_RE.match(text, pos + 1)
        if tail is not None:
            spans.append((start, tail.end()))
        elif label_key(text[start + 2 : pos]) in labels:
            spans.append((start, pos + 1))
    return spans


def footnote_refs(text: str, shows: Callable[[int], bool]) -> dict[str, list[int]]:
    """The footnote references that count, by key: those where ``shows(start)`` (outside
    code, hidden text and raw HTML; a reference inside an HTML comment or a code span
    references nothing), each at its ``[``."""
    refs: dict[str, list[int]] = {}
    for m in _FOOTNOTE_REF_RE.finditer(text):
        if shows(m.start()):
            refs.setdefault(label_key(m.group(1)), []).append(m.start())
    return refs


def in_html_paragraph(text: str) -> Callable[[int], bool]:
    """Whether a position follows, with no blank line between, a line that starts like HTML
    after any quote or list markers (``> <div>``, ``1. <!A>``): cmark-gfm may read it as an
    HTML block there, where Markdown is literal text."""
    starts = [m.start() for m in _HTML_LINE_RE.finditer(text)] if "<" in text else []
    blanks = [m.start() for m in BLANK_LINE_RE.finditer(text)] if starts else []

    def inside(pos: int) -> bool:
        i = bisect_right(starts, pos) - 1
        if i < 0:
            return False
        j = bisect_left(blanks, starts[i])
        return j >= len(blanks) or blanks[j] >= pos

    return inside


def table_excess(text: str, in_code: Callable[[int], bool]) -> list[tuple[int, int]]:
    """Cells beyond the header's column count in the rows of a table (cmark-gfm drops them).
    A table is a delimiter row after a non-blank line (the header has as many cells as the
    delimiter row, or there is no table); its rows run to the next blank line.  Pipes split
    cells unless escaped, inside code spans too, as in GFM."""
    if "|" not in text or "-" not in text:
        return []
    spans: list[tuple[int, int]] = []
    reach = 0
    for m in _DELIMITER_ROW_RE.finditer(text):
        start = m.start()
        if start < reach or start == 0 or in_code(start):
            continue
        header_start = text.rfind("\n", 0, start - 1) + 1
        if not text[header_start : start - 1].strip():
            continue
        columns = _cells(text, m.start(), m.end())
        pos = m.end() + 1
        while pos < len(text):
            end = text.find("\n", pos)
            end = len(text) if end < 0 else end
            if not text[pos:end].strip():
                break
            if _DELIMITER_ROW_RE.match(text, pos) is not None:
                # A row that is a delimiter row can start a table of its own (in a list item,
                # say): fewer columns mark more.
                columns = min(columns, _cells(text, pos, end))
            cut = _nth_pipe(text, _lead_end(text, pos), end, columns)
            if cut >= 0 and text[cut + 1 : end].strip() not in ("", "|"):
                spans.append((cut, end))
            pos = end + 1
        reach = pos
    return spans


def _lead_end(text: str, pos: int) -> int:
    """Past the container markers, indentation and leading pipe of the row at ``pos``."""
    lead = _ROW_LEAD_RE.match(text, pos)
    return pos if lead is None else lead.end()


def _cells(text: str, start: int, end: int) -> int:
    """The number of cells of the delimiter row ``text[start:end]``."""
    row = text[start:end].strip().lstrip(" \t>").strip()
    return max(1, row.strip("|").count("|") + 1)


def _nth_pipe(text: str, pos: int, end: int, n: int) -> int:
    """The position of the ``n``-th unescaped pipe in ``text[pos:end]``, or -1."""
    while n > 0:
        pos = text.find("|", pos, end)
        if pos < 0:
            return -1
        if not escaped(text, pos):
            n -= 1
            if n == 0:
                return pos
        pos += 1
    return -1
