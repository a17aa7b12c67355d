"""The seam between the outbox and whatever reaches a worker."""

from __future__ import annotations

from typing import Protocol

import msgspec

from ._notice import Notice

__all__ = ["Busy", "Delivered", "Gone", "PublishOutcome", "Publisher", "Refused"]


class Delivered(msgspec.Struct, frozen=True, tag="delivered"):
    session_id: str | None = None  # a new session id the worker now answers under


class Busy(msgspec.Struct, frozen=True, tag="busy"):
    reason: str = ""


class Gone(msgspec.Struct, frozen=True, tag="gone"):
    reason: str = ""


class Refused(msgspec.Struct, frozen=True, tag="refused"):
    reason: str = ""


PublishOutcome = Delivered | Busy | Gone | Refused


class Publisher(Protocol):
    """Delivers one notice.  Passes ``notice.key`` on so the receiver can drop repeats.

    A publisher returns an outcome for what it knows; it raises only for a fault it
    cannot classify (the outbox retries those with backoff).
    """

    async def publish(self, notice: Notice) -> PublishOutcome: ...
