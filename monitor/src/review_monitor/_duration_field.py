"""The configuration's field type for durations written as ``"90s"``."""

from __future__ import annotations

from datetime import timedelta
from typing import Annotated

from pydantic import BeforeValidator, PlainSerializer

from ._duration import format_duration, parse_duration

__all__ = ["Duration"]


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
