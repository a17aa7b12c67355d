"""The hidden marker every post made through the worker tools carries.

``<!-- comment-wake:KEY -->``, KEY being 128 random bits in hex, chosen when the tool
call writes the post's intent.  The marker alone proves nothing (anyone can copy it): the
``own-post-id`` rule trusts it only on an item the token's own login wrote, for a key
this PR has an intent of, whose recorded body hash matches the text.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from typing import Final

__all__ = ["MARKER", "marker", "marker_keys", "new_post_key", "text_sha256"]

MARKER: Final = re.compile(r"<!-- comment-wake:([0-9a-f]{32}) -->")
"""A post's marker, its key the one group."""


def new_post_key() -> str:
    """A fresh post key: 128 random bits."""
    return secrets.token_hex(16)


def marker(key: str) -> str:
    if MARKER.fullmatch(f"<!-- comment-wake:{key} -->") is None:
        raise ValueError("a post key is 32 lower-case hex digits")
    return f"<!-- comment-wake:{key} -->"


def marker_keys(text: str) -> tuple[str, ...]:
    """The keys of every marker in ``text``, in order."""
    return tuple(m[1] for m in MARKER.finditer(text))


def text_sha256(text: str) -> str:
    """A post body's hash as its intent records it (UTF-8, as written)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
