"""The caches of the last long texts' results are all known to ``_recent.forget``."""

from __future__ import annotations

import random

import untrusted_fence as uf
from untrusted_fence import _recent

# Long enough for every cache (4096 characters), with a link tail to mark.
_TEXT = "Looks good, see [the docs](https://example.com/d).\n" * 200


def test_a_fence_call_on_a_long_text_fills_every_recent_cache() -> None:
    _recent.forget()
    uf.fence(_TEXT)
    assert [] == [cache for cache in _recent._CACHES if not cache]


def test_forget_empties_every_recent_cache() -> None:
    uf.fence(_TEXT)
    _recent.forget()
    assert [] == [cache for cache in _recent._CACHES if cache]


def test_a_call_after_forget_gives_the_same_fence() -> None:

    first = uf.fence(_TEXT, rng=random.Random(1)).text
    _recent.forget()
    assert first == uf.fence(_TEXT, rng=random.Random(1)).text


def test_the_four_caches_are_registered() -> None:
    # fold's and casefold's results (_chars), the marks (_hidden), the scans (_markers).
    assert 4 == len(_recent._CACHES)
