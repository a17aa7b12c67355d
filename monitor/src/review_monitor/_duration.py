"""Durations as configuration writes them: an integer and ``s``, ``m``, ``h`` or ``d``."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Annotated

from pydantic import BeforeValidator, PlainSerializer

__all__ = ["Duration", "format_duration", "parse_duration"]

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


def _coerce(value: object) -> object:
    if isinstance(value, timedelta):
        return value
    if isinstance(value, str):
        return parse_duration(value)
    raise ValueError('a duration is a string such as "90s", "5m", "2h" or "1d"')


Duration = Annotated[
    timedelta,
    BeforeValidator(_coerce),
    PlainSerializer(format_duration, return_type=str),
]
"""A pydantic field type for durations written as ``"90s"``."""
