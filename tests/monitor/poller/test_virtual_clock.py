"""The test clocks: sleepers wake in time order, and time moves only when driven."""

from __future__ import annotations

from datetime import timedelta

import anyio
import anyio.lowlevel
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
async def test_sleepers_due_at_one_instant_wake_together_in_the_order_they_slept() -> None:
    # As an event loop runs all its due timers in one pass (and a fleet bench's 200
    # daemons cost one settle a tick): the second sleeper runs while the first one
    # yields, rather than only once the first has finished.
    clock = VirtualClock()
    due = clock.now() + 10 * S
    steps: list[str] = []

    async def first() -> None:
        await clock.sleep_until(due)
        steps.append("first woke")
        await anyio.lowlevel.checkpoint()
        steps.append("first done")

    async def second() -> None:
        await clock.sleep_until(due)
        steps.append("second woke")

    async with anyio.create_task_group() as tg:
        tg.start_soon(first)
        await clock.settle()
        tg.start_soon(second)
        await clock.advance(20 * S)
    assert ["first woke", "second woke", "first done"] == steps


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
