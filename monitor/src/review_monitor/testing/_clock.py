"""Test clocks that implement ``Clock`` without real waiting."""

from __future__ import annotations

import heapq
import itertools
from datetime import UTC, datetime, timedelta

import anyio
import anyio.lowlevel
import anyio.to_thread

__all__ = ["FixedClock", "VirtualClock"]

_DEFAULT_START = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)


def _aware(t: datetime) -> datetime:
    if t.tzinfo is None:
        raise ValueError("clock times must be timezone-aware (UTC)")
    return t.astimezone(UTC)


class FixedClock:
    """A clock that stands still until a test moves it.

    ``sleep_until`` jumps the clock forward to the requested time and returns at once,
    which suits code with a single sleeper.  For several concurrent sleepers use
    ``VirtualClock``.
    """

    def __init__(self, start: datetime = _DEFAULT_START) -> None:
        self._now = _aware(start)

    def now(self) -> datetime:
        return self._now

    def set(self, t: datetime) -> None:
        self._now = _aware(t)

    def advance(self, by: timedelta) -> datetime:
        self._now += by
        return self._now

    async def sleep_until(self, t: datetime) -> None:
        t = _aware(t)
        if t > self._now:
            self._now = t
        await anyio.lowlevel.checkpoint()


class VirtualClock:
    """A clock for async tests and replays: time moves only when the driver moves it.

    Tasks call ``sleep_until`` and stay suspended; the driver calls ``advance`` or
    ``advance_to``, which wakes the sleepers in time order: it sets ``now()`` to each
    deadline, wakes every sleeper due at that instant (in the order they slept) and lets
    the woken tasks run until the program is idle again (every task waiting, no worker
    thread busy).  Nothing sleeps in real time except a sub-millisecond pause while a
    worker thread finishes.
    """

    def __init__(self, start: datetime = _DEFAULT_START, *, settle_spins: int = 40) -> None:
        self._now = _aware(start)
        self._sleepers: list[tuple[datetime, int, anyio.Event]] = []
        self._order = itertools.count()
        self._settle_spins = settle_spins

    def now(self) -> datetime:
        return self._now

    @property
    def sleepers(self) -> int:
        """How many tasks are waiting on this clock."""
        return sum(1 for _, _, ev in self._sleepers if not ev.is_set())

    def next_deadline(self) -> datetime | None:
        """The earliest time a sleeper waits for, or None when nobody sleeps."""
        self._drop_woken()
        return self._sleepers[0][0] if self._sleepers else None

    async def sleep_until(self, t: datetime) -> None:
        t = _aware(t)
        if t <= self._now:
            await anyio.lowlevel.checkpoint()
            return
        event = anyio.Event()
        heapq.heappush(self._sleepers, (t, next(self._order), event))
        try:
            await event.wait()
        finally:
            # A cancelled sleeper leaves its entry behind: mark it so it is skipped.
            event.set()

    async def settle(self) -> None:
        """Let every runnable task run until all of them wait (on this clock or elsewhere)."""
        idle = 0
        while idle < self._settle_spins:
            if anyio.to_thread.current_default_thread_limiter().borrowed_tokens:
                idle = 0
                await anyio.sleep(0.0005)
                continue
            await anyio.lowlevel.checkpoint()
            idle += 1

    async def advance_to(self, t: datetime) -> None:
        """Move time to ``t``, waking each sleeper due on the way, earliest first."""
        t = _aware(t)
        if t < self._now:
            raise ValueError(f"a clock does not go back: {t} is before {self._now}")
        await self.settle()
        while True:
            self._drop_woken()
            if not self._sleepers or self._sleepers[0][0] > t:
                break
            # Every sleeper due at this instant wakes before the program settles, as an
            # event loop runs all its due timers in one pass; a fleet of daemons whose
            # loops share a period then costs one settle a tick, not one per daemon.
            due = self._sleepers[0][0]
            self._now = max(self._now, due)
            while self._sleepers and self._sleepers[0][0] == due:
                heapq.heappop(self._sleepers)[2].set()
            await self.settle()
        self._now = t
        await self.settle()

    async def advance(self, by: timedelta) -> None:
        """Move time forward by ``by`` (see ``advance_to``)."""
        await self.advance_to(self._now + by)

    async def run_until_idle(self, *, limit: timedelta = timedelta(days=1)) -> None:
        """Wake sleepers one deadline after another until none is left within ``limit``."""
        end = self._now + limit
        while (deadline := self.next_deadline()) is not None and deadline <= end:
            await self.advance_to(deadline)

    def _drop_woken(self) -> None:
        while self._sleepers and self._sleepers[0][2].is_set():
            heapq.heappop(self._sleepers)
