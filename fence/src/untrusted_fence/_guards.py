r"""Guards: comment shapes that GitHub's renderer makes slow or huge, found on the raw text.

The fence renders a comment as GitHub does (cmark-gfm, then a lexbor fragment parse and a
walk); a text that trips a guard takes the fallback instead (the cleaned raw source).  Each
guard is one or two linear regular-expression scans of the text (at most 65,536 characters, LF
only), never a render.  Figures: CPU ms of render + parse + walk at 64 KiB, best of 3, over
three runs of ``tests/bench/fence_render_shapes.py`` on a shared two-core host; the plain
comment took 2.0-5.1 ms there (HTML 2.3 x, 7,700 nodes), so 50 x plain is 100-250 ms.

============  ==========  ============================================================
guard         threshold   measurement
============  ==========  ============================================================
nesting       64 levels   ``">" * n + " x"``: 6,000-7,400 ms (lexbor is quadratic in
                          depth), HTML 60 x; ``"> " * n``: 1,160-1,660 ms.  A line's
                          depth: its container markers, plus the columns of white space
                          between them beyond one each, halved (lines indented in steps
                          of two nest lists; a tab counts four).  Just under, one line:
                          1 ms.  Indented lists alone stay fast (250 levels, all that
                          64 KiB holds: 1.8 ms); cmark-gfm stops lists at 100 levels.
containers    4,096       Markers beyond the first on a line each open an element of
                          ~56 bytes of HTML: ``">" * 64 + " x\n\n"`` repeated (under
                          ``nesting``) gives HTML 56 x, 96-133 ms; ``"- " * 64`` 42 x.
                          Just under, 4,095 of them and the plain comment: HTML 5.7 x.
open-tags     64 open     ``"<ul><li>" * n``: 236-394 ms; ``"<div>" * n``: 179-228 ms.
                          Start tags of non-void elements open, an end tag closes one
                          of its name.  Just under: 64 formatting tags, which the parser
                          clones into each of 21,000 paragraphs: 24-85 ms, 65,000 nodes.
                          End tags the renderer escapes close here too; the densest such
                          trick, ``"x " + "<ul><li>`</li></ul>`" * n``: 43-47 ms.  Tag-like
                          text counts (``<<<untrusted-comment-end``, ``<s><!-->`` lines).
table-cells   50,000      A delimiter row's columns times the lines after it up to a
                          blank line.  2,000 columns, 28,000 rows: 1,000-2,200 ms, HTML
                          310 x (cmark-gfm pads the rows).  Just under, 2,000 x 24 and
                          the plain comment: 72-113 ms, HTML 30 x.
============  ==========  ============================================================

Not guarded: floods of one-character constructs (``"|x\n"`` rows of a one-column table,
``"-\n"``, ``"~a"``, full 200-column tables) make 50,000-131,000 nodes and HTML of 21-29 x
through the ``data-sourcepos`` attributes alone, linearly: 35-153 ms, the worst ``"|x\n"``
rows (fastest single call 64 ms, 32 x the fastest plain call).  Refusing them would refuse
ordinary lists and tables.
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
    for prefix in _LONG_PREFIX.findall(text):
        markers, columns = _markers(prefix), prefix.count(" ") + 4 * prefix.count("\t")
        if markers + max(0, columns - markers + 1) // 2 > limit:
            return True
    return False


def _containers(text: str, limit: int) -> bool:
    prefixes = _PREFIX.findall(text)
    return _markers("".join(prefixes)) - len(prefixes) > limit


def _open_tags(text: str, limit: int) -> bool:
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
    for each in GUARDS:
        if each.over(text, each.threshold):
            return each.name
    return None
