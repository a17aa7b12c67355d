"""The comment ids a worker may name: a node id, a database id or a GitHub URL."""

from __future__ import annotations

import re

__all__ = ["parse_comment_id"]

# The fragments GitHub gives a PR conversation comment, a review comment and a review.
_URL = re.compile(
    r"https?://[^/\s]+/[^/\s]+/[^/\s]+/pull/[0-9]+(?:/[a-z]+)?"
    r"#(?:issuecomment-|discussion_r|pullrequestreview-)([0-9]{1,19})"
)
_NODE = re.compile(r"[A-Za-z][A-Za-z0-9_]*_[A-Za-z0-9_-]{4,200}")
_DATABASE = re.compile(r"[0-9]{1,19}")


def parse_comment_id(raw: str) -> tuple[str, str | int] | None:
    """``("node", node_id)`` or ``("database", n)`` for what a worker named, or None when it
    is none of a node id (``IC_...``, ``PRRC_...``, ``PRR_...``), a database id or a comment
    URL (``.../pull/N#issuecomment-ID``, ``#discussion_rID``, ``#pullrequestreview-ID``)."""
    text = raw.strip()
    if (m := _URL.fullmatch(text)) is not None:
        return "database", int(m.group(1))
    if _DATABASE.fullmatch(text):
        return "database", int(text)
    if _NODE.fullmatch(text):
        return "node", text
    return None
