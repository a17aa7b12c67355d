"""The test clocks: sleepers wake in time order, and time moves only when driven."""

from __future__ import annotations

from datetime import timedelta

import anyio
import pytest

from review_monitor.testing import FixedClock, VirtualClock

S = timedelta(seconds=1)


@pytest.mark.anyio
async def test_sleepers_wake_in_time_order_each_at_its_own_time() -> None:
    clock = VirtualClock()
    t0 = clock.now()
    woke: list[tuple[str, object]] = []

    async def sleeper(name: str, seconds: int) -> None:
        await clock.sleep_until(t0 + seconds * S)
        woke.append((name, clock.now()))

    async with anyio.create_task_group() as tg:
        tg.start_soon(sleeper, "late", 30)
        tg.start_soon(sleeper, "early", 10)
        await clock.advance(60 * S)
    assert [("early", t0 + 10 * S), ("late", t0 + 30 * S)] == woke


@pytest.mark.anyio
async def test_a_sleeper_stays_asleep_until_its_time_comes() -> None:
    clock = VirtualClock()
    done = anyio.Event()

    async def sleeper() -> None:
        await clock.sleep_until(clock.now() + 10 * S)
        done.set()

    async with anyio.create_task_group() as tg:
        tg.start_soon(sleeper)
        await clock.advance(9 * S)
        before = done.is_set()
        await clock.advance(1 * S)
    assert (False, True) == (before, done.is_set())


@pytest.mark.anyio
async def test_advance_waits_for_work_in_a_worker_thread() -> None:
    clock = VirtualClock()
    results: list[int] = []

    async def sleeper() -> None:
        await clock.sleep_until(clock.now() + S)
        results.append(await anyio.to_thread.run_sync(lambda: 42))

    async with anyio.create_task_group() as tg:
        tg.start_soon(sleeper)
        await clock.advance(S)
        assert [42] == results


@pytest.mark.anyio
async def test_a_fixed_clock_jumps_to_the_time_slept_until() -> None:
    clock = FixedClock()
    t0 = clock.now()
    await clock.sleep_until(t0 + 5 * S)
    assert t0 + 5 * S == clock.now()
