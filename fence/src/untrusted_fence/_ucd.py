"""Typed access to the two third-party libraries the fence depends on (neither ships stubs)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Literal, cast

import regex  # type: ignore[import-untyped]
import unicodedata2  # type: ignore[import-not-found]

__all__ = ["category", "grapheme_ends", "name", "normalize"]

_GRAPHEME = regex.compile(r"\X")


def normalize(form: Literal["NFC", "NFD", "NFKC", "NFKD"], text: str) -> str:
    """Unicode normalisation with the pinned tables (unicodedata2)."""
    return cast(str, unicodedata2.normalize(form, text))


def name(ch: str) -> str:
    """The character's name in the pinned tables ("" when it has none)."""
    return cast(str, unicodedata2.name(ch, ""))


def category(ch: str) -> str:
    """General category with the pinned tables (unicodedata2)."""
    return cast(str, unicodedata2.category(ch))


def grapheme_ends(text: str, start: int, stop: int) -> Iterator[int]:
    """End offsets of the extended grapheme clusters of ``text[start:stop]``."""
    for m in _GRAPHEME.finditer(text, start, stop):
        yield cast(int, m.end())
