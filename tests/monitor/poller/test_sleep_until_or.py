"""``sleep_until_or``: the one "sleep until t, or until poked" every loop uses."""

from __future__ import annotations

from datetime import timedelta

import anyio
import pytest

from review_monitor import sleep_until_or
from review_monitor.testing import VirtualClock

pytestmark = pytest.mark.anyio


async def _run(
    clock: VirtualClock, t_after: timedelta | None, poke_after: timedelta | None
) -> timedelta:
    """How long on ``clock`` the wait took."""
    start = clock.now()
    poked = anyio.Event()
    done = anyio.Event()

    async def waiter() -> None:
        await sleep_until_or(clock, None if t_after is None else start + t_after, poked)
        done.set()

    async with anyio.create_task_group() as tg:
        tg.start_soon(waiter)
        await clock.advance_to(start)
        for step in range(1, 121):
            at = start + timedelta(seconds=step)
            await clock.advance_to(at)
            if poke_after is not None and at - start >= poke_after:
                poked.set()
            await anyio.wait_all_tasks_blocked()
            if done.is_set():
                return at - start
        tg.cancel_scope.cancel()
    return timedelta(seconds=-1)


async def test_it_returns_at_t_when_nobody_pokes() -> None:
    assert timedelta(seconds=30) == await _run(VirtualClock(), timedelta(seconds=30), None)


async def test_a_poke_before_t_ends_it_then() -> None:
    took = await _run(VirtualClock(), timedelta(seconds=60), timedelta(seconds=5))
    assert timedelta(seconds=5) == took


async def test_without_t_only_a_poke_ends_it() -> None:
    assert timedelta(seconds=90) == await _run(VirtualClock(), None, timedelta(seconds=90))
