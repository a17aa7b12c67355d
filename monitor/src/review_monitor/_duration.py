"""Durations as configuration writes them: an integer and ``s``, ``m``, ``h`` or ``d``.

Pure: the command line parses them too, without pydantic (``_duration_field`` has the
configuration's field type)."""

from __future__ import annotations

import re
from datetime import timedelta

__all__ = ["format_duration", "parse_duration"]

_DURATION = re.compile(r"^([0-9]{1,9})([smhd])$")
_UNIT = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def parse_duration(text: str) -> timedelta:
    """``"90s"`` -> 90 seconds.  Raise ``ValueError`` saying what to write instead."""
    m = _DURATION.match(text.strip()) if isinstance(text, str) else None
    if m is None:
        raise ValueError(
            f"not a duration: {text!r}; write an integer followed by s, m, h or d, "
            'for example "90s" or "5m"'
        )
    return timedelta(seconds=int(m[1]) * _UNIT[m[2]])


def format_duration(d: timedelta) -> str:
    """The shortest exact spelling: 300 s -> ``"5m"``."""
    seconds = int(d.total_seconds())
    for unit in ("d", "h", "m"):
        if seconds and seconds % _UNIT[unit] == 0:
            return f"{seconds // _UNIT[unit]}{unit}"
    return f"{seconds}s"
