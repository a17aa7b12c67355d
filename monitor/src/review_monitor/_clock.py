"""Time as a seam: the poller, every timer and the delivery loop read it here."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Protocol

__all__ = ["Clock", "SystemClock"]


class Clock(Protocol):
    """``now()`` is timezone-aware UTC; ``sleep_until`` returns at or after ``t``."""

    def now(self) -> datetime: ...

    async def sleep_until(self, t: datetime) -> None: ...


class SystemClock:
    """The wall clock."""

    def now(self) -> datetime:
        return datetime.now(UTC)

    async def sleep_until(self, t: datetime) -> None:
        # anyio on first sleep: a command that only reads the store (it reads the clock
        # for ``now``) never imports it.
        import anyio.lowlevel

        delay = (t - self.now()).total_seconds()
        if delay > 0:
            await anyio.sleep(delay)
        else:
            await anyio.lowlevel.checkpoint()
