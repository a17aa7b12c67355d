"""The worker tool server's names, without the MCP SDK (every other command, a hook's
``inbox take`` among them, would pay for importing it)."""

from __future__ import annotations

import hashlib
import re

__all__ = [
    "LEGACY_SERVER_NAME",
    "POST_TOOL_NAMES",
    "SERVER_NAME_MAX",
    "TOOL_NAMES",
    "server_name",
]

TOOL_NAMES = ("message_orchestrator", "report", "pr_review_monitor", "comment_addressed")
"""The tools the server always offers."""

POST_TOOL_NAMES = ("reply", "review", "progress")
"""The posting tools, offered when they are on for the worker (``bind --post-tools``)."""

LEGACY_SERVER_NAME = "comment-wake"
"""The one name every worker's server had before names were per worker: two workers that
shared a Claude Code directory or a ``CODEX_HOME`` shared one registration and acted as
whichever was registered last.  ``bind`` tells how to remove it."""

SERVER_NAME_MAX = 24
"""The longest server name.  Claude Code calls a tool ``mcp__<server>__<tool>`` and both
CLIs' model APIs take tool names matching ``^[a-zA-Z0-9_-]{1,64}$``: 24 leaves the longest
tool name (20) its room with margin."""

_PREFIX = "cw-"
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")
_HASH_CHARS = 6


def server_name(worker: str) -> str:
    """The name ``worker``'s tool server is registered under: ``cw-`` and the worker id,
    each character outside ``[A-Za-z0-9_-]`` turned into ``_``.  A name that had to change
    (a character replaced, or longer than ``SERVER_NAME_MAX``) is cut and ends in 6 hex
    digits of the id's hash, so ``w.1`` and ``w_1`` stay two servers."""
    safe = _PREFIX + _UNSAFE.sub("_", worker)
    if safe == _PREFIX + worker and len(safe) <= SERVER_NAME_MAX:
        return safe
    digest = hashlib.sha256(worker.encode("utf-8")).hexdigest()[:_HASH_CHARS]
    return f"{safe[: SERVER_NAME_MAX - _HASH_CHARS - 1]}-{digest}"
