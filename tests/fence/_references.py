"""Plain definitions that the fence's fast paths are held to: the block walk line by line, and
the marker rules as first written."""

from __future__ import annotations

from untrusted_fence import _blocks, _chars, _markers

__all__ = ["RULES_AS_WRITTEN", "line_by_line"]

# The rules of each view as first written (a lookbehind before a word, not after its first
# letter; alternations led by lookbehinds), in the order of ``_markers._RULES``.
RULES_AS_WRITTEN = (
    _markers._Rules(_chars.casefold, casefold_view=True, fast=False),
    _markers._Rules(_chars.fold, casefold_view=False, fast=False),
)


def line_by_line(text: str) -> _blocks.Blocks:
    """The block walk with only the plain runs, fenced code and HTML blocks skipped at the top
    level (every other line walked on its own)."""
    walk = _blocks._Walk()
    walk.runs = False
    start, size = 0, len(text)
    while start <= size:
        if not walk.stack:
            start = walk.skip(text, start)
            if start > size:
                break
        end = text.find("\n", start)
        end = size if end < 0 else end
        walk.line(text, start, end)
        start = end + 1
    walk.truncate(0, size)
    return walk.out
