"""Small text helpers shared by the publishers (pure)."""

from __future__ import annotations

import re

__all__ = ["SESSION_ID_PATTERN", "printable_tail", "session_id_from_first_line"]

# What a session id may look like: UUIDs, Codex thread names, short ids.  Anything else on
# the first line is treated as garbage, never as an id (it flows into argv later).
SESSION_ID_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]{0,199}")
_FIRST_LINE = re.compile(r"session-id:[ \t]*(\S+)[ \t]*")
_UNPRINTABLE = re.compile(r"[^\t\x20-\x7e\u00a0-\ud7ff\ue000-\ufffd]")


def session_id_from_first_line(stdout: bytes) -> str | None:
    """The id from a first line ``session-id: <id>``, or None (garbage is tolerated)."""
    first = stdout.split(b"\n", 1)[0].rstrip(b"\r")
    try:
        line = first.decode("utf-8")
    except UnicodeDecodeError:
        return None
    m = _FIRST_LINE.fullmatch(line)
    if m is None or SESSION_ID_PATTERN.fullmatch(m[1]) is None:
        return None
    return m[1]


def printable_tail(data: bytes, limit: int = 300) -> str:
    """The last non-blank line of ``data``, decoded leniently, controls removed, bounded."""
    text = data.decode("utf-8", errors="replace")
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if not lines:
        return ""
    last = _UNPRINTABLE.sub("", lines[-1])
    return last if len(last) <= limit else last[: limit - 1] + "…"
