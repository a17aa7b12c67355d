"""The seam between the outbox and whatever reaches a worker."""

from __future__ import annotations

from datetime import timedelta
from typing import Protocol

import msgspec

from ._notice import Notice

__all__ = ["Busy", "Delivered", "Gone", "PublishOutcome", "Publisher", "Refused"]


class Delivered(msgspec.Struct, frozen=True, tag="delivered"):
    """The worker has the notice; ``session_id`` is the session that took it, when it says."""

    session_id: str | None = None  # a new session id the worker now answers under


class Busy(msgspec.Struct, frozen=True, tag="busy"):
    """The worker cannot take it now (mid-turn): try again later, merged with what came
    since.  ``retry_after``: how long the receiver asked to be left alone (a webhook's
    ``Retry-After``), which raises the publisher's own backoff up to its cap."""

    reason: str = ""
    retry_after: timedelta | None = None


class Gone(msgspec.Struct, frozen=True, tag="gone"):
    """The worker will never take it (its session ended): hand it to the orchestrator."""

    reason: str = ""


class Refused(msgspec.Struct, frozen=True, tag="refused"):
    """The publisher cannot work as configured: park the notice until an operator fixes it."""

    reason: str = ""


PublishOutcome = Delivered | Busy | Gone | Refused
"""A publisher's answer for one notice."""


class Publisher(Protocol):
    """Delivers one notice.  Passes ``notice.key`` on so the receiver can drop repeats.

    A publisher returns an outcome for what it knows; it raises only for a fault it
    cannot classify (the outbox retries those with backoff).
    """

    async def publish(self, notice: Notice) -> PublishOutcome: ...
