"""The wake's errors (expected outcomes are values, never exceptions).

WakeError
 └── MarkError   a stored mark that cannot be read
"""

from __future__ import annotations

__all__ = ["MarkError", "WakeError"]


class WakeError(Exception):
    """Base of the wake's errors."""


class MarkError(WakeError, ValueError):
    """A stored mark is not one this build can read; the message says which and why."""
