"""Guards: comment shapes that GitHub's renderer makes slow or huge, found on the raw text.

A text that trips a guard takes the fallback (the cleaned raw source) instead of the renderer.
Each guard is one or two linear regular-expression scans of the text (at most 65,536
characters, LF only), never a render.  Why each threshold is where it is: lexbor is quadratic
in nesting depth, each container marker beyond a line's first opens ~56 bytes of HTML, open
raw-HTML tags are cloned into the paragraphs after them, and cmark-gfm pads every row to the
table's columns.  docs/fence.md, "Guards and the fallback", gives the measurements.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["GUARDS", "guard"]

MAX_DEPTH = 64
MAX_CONTAINERS = 4096
MAX_OPEN_TAGS = 64
MAX_TABLE_CELLS = 50_000

_MARKER = r"(?:>|[-*+](?=[ \t]|$)|[0-9]{1,9}[.)](?=[ \t]|$))"
_MARKS = ">-*+.)"  # one of these in each marker of a prefix (digits only before . or ))
# Container prefixes (up to their last marker) of two markers or more, and those of 33
# characters or more, the only ones that can be over 64 deep (a tab counts four columns).
_PREFIX = re.compile(rf"^(?:[ \t]*+{_MARKER}){{2,}}", re.MULTILINE)
_LONG_PREFIX = re.compile(rf"^(?=[ \t0-9>*+.)-]{{33}})(?:[ \t]*+{_MARKER})+", re.MULTILINE)
_TAG = re.compile(r"<(/?)([a-z][^\s/>\x00]*)")  # in the lower-cased text
_VOID = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "keygen", "link", "meta"}
    | {"param", "source", "track", "wbr"}
)
_DELIMITER_ROW = re.compile(r"^(?=[^\n]*\|)(?=[^\n]*-)[ \t>]*+[|:\- \t]++$", re.MULTILINE)
_DASHES = re.compile(r"-+")
_BLANK = re.compile(r"\n[ \t]*(?:\n|\Z)")


@dataclass(frozen=True)
class Guard:
    """A shape: its name, its threshold, and whether a text goes over it."""

    name: str
    threshold: int
    over: Callable[[str, int], bool]


def _markers(prefix: str) -> int:
    return sum(prefix.count(mark) for mark in _MARKS)


def _deep(text: str, limit: int) -> bool:
    """A line's depth: its container markers, plus the columns of white space between them
    beyond one each, halved (lines indented in steps of two nest lists; a tab counts four)."""
    for prefix in _LONG_PREFIX.findall(text):
        markers, columns = _markers(prefix), prefix.count(" ") + 4 * prefix.count("\t")
        if markers + max(0, columns - markers + 1) // 2 > limit:
            return True
    return False


def _containers(text: str, limit: int) -> bool:
    prefixes = _PREFIX.findall(text)
    return _markers("".join(prefixes)) - len(prefixes) > limit


def _open_tags(text: str, limit: int) -> bool:
    """Start tags of non-void elements open, an end tag closes one of its name.  Tag-like text
    counts too, and end tags the renderer escapes close here (measured harmless)."""
    if text.count("<") <= limit:
        return False
    open_by_name: dict[str, int] = {}
    total = 0
    for slash, name in _TAG.findall(text.lower()):
        if slash:
            if open_by_name.get(name):
                open_by_name[name] -= 1
                total -= 1
        elif name not in _VOID:
            open_by_name[name] = open_by_name.get(name, 0) + 1
            total += 1
            if total > limit:
                return True
    return False


def _table_cells(text: str, limit: int) -> bool:
    block_end = lines = -1
    for row in _DELIMITER_ROW.finditer(text):
        if row.end() > block_end:
            blank = _BLANK.search(text, row.end())
            block_end = blank.start() if blank else len(text)
            lines = text.count("\n", row.end(), block_end)
        # (A later delimiter row in the block is given the first one's lines: more, not fewer.)
        cells = row.end() - row.start()  # at least its columns
        if cells * lines > limit and len(_DASHES.findall(row.group())) * lines > limit:
            return True
    return False


GUARDS: tuple[Guard, ...] = (
    Guard("nesting", MAX_DEPTH, _deep),
    Guard("containers", MAX_CONTAINERS, _containers),
    Guard("open-tags", MAX_OPEN_TAGS, _open_tags),
    Guard("table-cells", MAX_TABLE_CELLS, _table_cells),
)


def guard(text: str) -> str | None:
    """The name of the first guard that ``text`` trips, or None: safe to render."""
    return next((each.name for each in GUARDS if each.over(text, each.threshold)), None)
