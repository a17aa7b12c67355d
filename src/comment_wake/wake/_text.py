"""The fence library's text functions, in one place."""

from __future__ import annotations

import random

import untrusted_fence
from untrusted_fence import Kind

__all__ = ["clean", "fence_text", "is_blank"]


def clean(text: str) -> str:
    return untrusted_fence.clean(text)


def is_blank(text: str) -> bool:
    return untrusted_fence.is_blank(text)


def fence_text(
    text: str, *, kind: Kind, source: str, max_chars: int, rng: random.Random | None
) -> str:
    return untrusted_fence.fence(text, kind=kind, source=source, max_chars=max_chars, rng=rng).text
