"""GitHub's view of a text, rendered once for the rule and the notice that both need it.

A writer's comment is rendered by the ``blank`` rule (does a reader see anything?) and
again by the notice that quotes it; rendering (cmark-gfm, then an HTML5 parse) is the
costly part of a wake.  ``render`` is a pure function of the text, so its last few views
are kept.  Only texts that reach those two places are rendered, never a stranger's.
"""

from __future__ import annotations

from functools import lru_cache

from untrusted_fence import View, render

__all__ = ["view_of"]


@lru_cache(maxsize=64)
def view_of(text: str) -> View:
    """``render(text)``, the same object for the same text while it is among the last 64."""
    return render(text)
