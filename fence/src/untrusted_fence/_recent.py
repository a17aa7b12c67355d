"""The caches of the last few long texts' results, and one way to empty them all.

One fence call asks several times for the same view, marks or scan of the same long text (the
step, marker detection, the rewrite, the fixed-point proof, the nonce check), so each of those
keeps its results for the last few long inputs.  A later call on an equal text finds them
too; a benchmark of what one call costs empties them first (:func:`forget`).
"""

from __future__ import annotations

from typing import Any, TypeVar

__all__ = ["forget", "registered"]

_T = TypeVar("_T")
_CACHES: list[list[Any]] = []


def registered(cache: list[_T]) -> list[_T]:
    """``cache``, an empty list a module keeps its recent results in, known to :func:`forget`."""
    _CACHES.append(cache)
    return cache


def forget() -> None:
    """Empty every registered cache."""
    for cache in _CACHES:
        cache.clear()
