"""Named kill points: a test-only hook that SIGKILLs the process at a point in the delivery path.

``COMMENT_WAKE_KILL_AT=<point>[:<nth>]`` is read once, when this module is imported; the
process kills itself the ``nth`` time (default 1) it reaches ``point``.  Unset, a kill point
costs one global lookup.  The crash test uses it to stop a delivery run exactly between a
side effect and the transaction that records it.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Mapping
from typing import Final

__all__ = ["KILL_AT_ENV", "KILL_POINTS", "KillSwitch", "kill_point", "parse_kill_at"]

KILL_AT_ENV: Final = "COMMENT_WAKE_KILL_AT"
"""The environment variable that arms a kill point: ``<point>[:<nth>]``."""

KILL_POINTS: Final = (
    # a listener (or the crash driver) committed a mark and its notices to the outbox
    "outbox-written",
    # the loop took a worker's head and is about to call its publisher
    "before-publish",
    # the publisher answered (the worker may have the notice) and nothing is recorded yet
    "published",
    # the outcome (delivered, busy, error, hand-off, park) is committed
    "outcome-recorded",
    # later notices were merged into a busy head, not yet published
    "merged",
    # acknowledgement: reactions taken from the store, the mutation not sent yet
    "ack-before-send",
    # acknowledgement: GitHub answered the mutation, the reactions are not recorded done
    "ack-sent",
)
"""The named points, in the order a delivery reaches them."""


def parse_kill_at(text: str) -> tuple[str, int]:
    """``"published:3"`` -> ``("published", 3)``; raise ``ValueError`` for anything else."""
    point, sep, nth_text = text.strip().partition(":")
    if point not in KILL_POINTS:
        raise ValueError(
            f"{KILL_AT_ENV}: unknown kill point {point!r}; one of {', '.join(KILL_POINTS)}"
        )
    if not sep:
        return point, 1
    if not nth_text.isdigit() or int(nth_text) < 1:
        raise ValueError(f"{KILL_AT_ENV}: the count after ':' must be a positive integer")
    return point, int(nth_text)


class KillSwitch:
    """Kills the process the ``nth`` time ``point`` is reached."""

    def __init__(self, point: str, nth: int = 1) -> None:
        self.point = point
        self.nth = nth
        self.hits = 0

    @classmethod
    def from_env(cls, environ: Mapping[str, str]) -> KillSwitch | None:
        text = environ.get(KILL_AT_ENV, "")
        if not text:
            return None
        return cls(*parse_kill_at(text))

    def reach(self, point: str) -> None:
        if point != self.point:
            return
        self.hits += 1
        if self.hits >= self.nth:
            os.kill(os.getpid(), signal.SIGKILL)


_SWITCH: Final = KillSwitch.from_env(os.environ)


def kill_point(point: str) -> None:
    """Mark a named point; the armed process dies here (see the module docstring)."""
    if _SWITCH is not None:
        _SWITCH.reach(point)
