"""The block walk line by line, the reference the walk's runs are held to."""

from __future__ import annotations

from untrusted_fence import _blocks

__all__ = ["line_by_line"]


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
