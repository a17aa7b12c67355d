"""Durations as configuration writes them: an integer and ``ms``, ``s``, ``m``, ``h`` or
``d`` (milliseconds for what tests and drills shorten, such as fleet lease renewals).

Pure: the command line parses them too, without pydantic (``_duration_field`` has the
configuration's field type)."""

from __future__ import annotations

import re
from datetime import timedelta

__all__ = ["format_duration", "parse_duration"]

_DURATION = re.compile(r"^([0-9]{1,9})(ms|[smhd])$")
_UNIT = {"s": 1, "m": 60, "h": 3600, "d": 86400}
_MS = timedelta(milliseconds=1)


def parse_duration(text: str) -> timedelta:
    """``"90s"`` -> 90 seconds.  Raise ``ValueError`` saying what to write instead."""
    m = _DURATION.match(text.strip()) if isinstance(text, str) else None
    if m is None:
        raise ValueError(
            f"not a duration: {text!r}; write an integer followed by ms, s, m, h or d, "
            'for example "90s" or "5m"'
        )
    if m[2] == "ms":
        return int(m[1]) * _MS
    return timedelta(seconds=int(m[1]) * _UNIT[m[2]])


def format_duration(d: timedelta) -> str:
    """The shortest exact spelling: 300 s -> ``"5m"``, 0.3 s -> ``"300ms"``."""
    if d % timedelta(seconds=1):
        return f"{d // _MS}ms"
    seconds = int(d.total_seconds())
    for unit in ("d", "h", "m"):
        if seconds and seconds % _UNIT[unit] == 0:
            return f"{seconds // _UNIT[unit]}{unit}"
    return f"{seconds}s"
