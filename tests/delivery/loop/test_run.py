"""``run``: scheduling on a virtual clock, cancellation, and the dry run."""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import anyio
import pytest

from comment_wake.delivery import DeliveryConfig, DeliveryLoop
from comment_wake.store import open_store
from review_monitor import Delivered, Notice, Publisher, PublishOutcome
from review_monitor.store import Store, SyncStore
from review_monitor.testing import InMemoryPublisher, VirtualClock

pytestmark = pytest.mark.anyio

NoticeFactory = Callable[..., Notice]


def loop_for(
    store: Store, clock: VirtualClock, publisher: Publisher, **options: object
) -> DeliveryLoop:
    return DeliveryLoop(
        store,
        route=lambda worker: publisher,
        clock=clock,
        config=DeliveryConfig.model_validate({"backoff_base": "10s", "backoff_jitter": 0.0}),
        rng=random.Random(1),
        **options,  # type: ignore[arg-type]
    )


async def test_run_delivers_a_poked_notice_without_waiting(
    tmp_path: Path, make_notice: NoticeFactory
) -> None:
    clock = VirtualClock()
    publisher = InMemoryPublisher()
    notice = make_notice()
    with open_store(tmp_path / "s.db", clock=clock) as store:
        loop = loop_for(store, clock, publisher)
        async with anyio.create_task_group() as tg:
            tg.start_soon(loop.run)
            await clock.settle()
            await store.call(SyncStore.enqueue, [notice], at=clock.now())
            loop.poke()
            await clock.settle()
            tg.cancel_scope.cancel()
    assert [notice.key] == publisher.delivered_keys


async def test_run_retries_a_busy_head_when_its_backoff_ends(
    tmp_path: Path, make_notice: NoticeFactory
) -> None:
    clock = VirtualClock()
    publisher = InMemoryPublisher()
    publisher.busy()
    notice = make_notice()
    with open_store(tmp_path / "s.db", clock=clock) as store:
        await store.call(SyncStore.enqueue, [notice], at=clock.now())
        loop = loop_for(store, clock, publisher)
        async with anyio.create_task_group() as tg:
            tg.start_soon(loop.run)
            await clock.advance(timedelta(seconds=9))
            before = list(publisher.delivered_keys)
            await clock.advance(timedelta(seconds=1))
            tg.cancel_scope.cancel()
    assert ([], [notice.key]) == (before, publisher.delivered_keys)


async def test_a_head_whose_attempt_ends_while_the_loop_reads_is_not_attempted_again(
    tmp_path: Path, make_notice: NoticeFactory, caplog: pytest.LogCaptureFixture
) -> None:
    # The loop's look (one store call) reads the head while its attempt is publishing;
    # the attempt then delivers it and ends before the look returns.  The look's head is
    # stale: attempting it again fails ("delivered, not pending") or, for merged
    # notices, delivers a comment twice.
    gate, publishing, ended = anyio.Event(), anyio.Event(), anyio.Event()
    hold = False

    class Gated(InMemoryPublisher):
        async def publish(self, notice: Notice) -> PublishOutcome:
            publishing.set()
            await gate.wait()
            return await super().publish(notice)

    clock = VirtualClock()
    publisher = Gated()
    notice = make_notice()
    with open_store(tmp_path / "s.db", clock=clock) as store:
        real_call = store.call

        async def call(fn: Any, /, *args: Any, **kwargs: Any) -> Any:
            result = await real_call(fn, *args, **kwargs)
            if hold and "_look" in getattr(fn, "__qualname__", ""):
                gate.set()  # the attempt goes on while this look's answer is on its way
                await ended.wait()
            return result

        store.call = call  # type: ignore[method-assign]
        await store.call(SyncStore.enqueue, [notice], at=clock.now())
        loop = loop_for(store, clock, publisher)
        async with anyio.create_task_group() as tg:
            tg.start_soon(loop.run)
            await publishing.wait()
            hold = True
            loop.poke()  # a look while the attempt publishes
            while (entry := await real_call(SyncStore.entry_by_key, notice.key)) is None or (
                entry.status == "pending"
            ):
                await anyio.sleep(0.01)
            hold = False
            await clock.settle()  # the attempt's end: its worker is free again
            ended.set()
            await clock.settle()
            tg.cancel_scope.cancel()
    errors = [r.getMessage() for r in caplog.records if r.levelname == "ERROR"]
    assert ([notice.key], []) == (publisher.delivered_keys, errors)


async def test_cancelling_mid_publish_leaves_the_notice_pending(
    tmp_path: Path, make_notice: NoticeFactory
) -> None:
    started = anyio.Event()

    class Slow:
        async def publish(self, notice: Notice) -> Delivered:
            started.set()
            await anyio.sleep_forever()
            raise AssertionError("unreachable")

    clock = VirtualClock()
    notice = make_notice()
    with open_store(tmp_path / "s.db", clock=clock) as store:
        await store.call(SyncStore.enqueue, [notice], at=clock.now())
        loop = loop_for(store, clock, Slow())
        async with anyio.create_task_group() as tg:
            tg.start_soon(loop.run)
            await started.wait()
            tg.cancel_scope.cancel()
        entry = await store.call(SyncStore.entry_by_key, notice.key)
    assert entry is not None
    assert ("pending", 0) == (entry.status, entry.attempts)


async def test_dry_run_decides_and_logs_but_publishes_and_writes_nothing(
    tmp_path: Path, make_notice: NoticeFactory, caplog: pytest.LogCaptureFixture
) -> None:
    clock = VirtualClock()
    publisher = InMemoryPublisher()
    notice = make_notice()
    with open_store(tmp_path / "s.db", clock=clock) as store:
        await store.call(SyncStore.enqueue, [notice], at=clock.now())
        loop = loop_for(store, clock, publisher, dry_run=True)
        with caplog.at_level("INFO", logger="comment_wake.delivery"):
            async with anyio.create_task_group() as tg:
                tg.start_soon(loop.run)
                await clock.advance(timedelta(minutes=1))
                tg.cancel_scope.cancel()
        entry = await store.call(SyncStore.entry_by_key, notice.key)
    assert entry is not None
    assert ([], "pending", 0, 1) == (
        publisher.attempts,
        entry.status,
        entry.attempts,
        sum("dry run: would publish" in r.getMessage() for r in caplog.records),
    )


async def test_plan_names_the_hand_off_for_a_worker_without_a_publisher(
    tmp_path: Path, make_notice: NoticeFactory
) -> None:
    clock = VirtualClock()
    orchestrator = InMemoryPublisher()
    notice = make_notice()
    with open_store(tmp_path / "s.db", clock=clock) as store:
        await store.call(SyncStore.enqueue, [notice], at=clock.now())
        loop = DeliveryLoop(
            store,
            route=lambda worker: None,
            clock=clock,
            orchestrator_of=lambda worker: ("orch", orchestrator),
        )
        plan = await loop.plan()
    assert [("hand-off", "orch")] == [(d.action, d.target) for d in plan]


async def test_a_fleet_hosts_loop_delivers_only_to_its_own_recipients(
    tmp_path: Path, make_notice: NoticeFactory
) -> None:
    clock = VirtualClock()
    publisher = InMemoryPublisher()
    with open_store(tmp_path / "state.db", clock=clock) as store:
        store.sync.enqueue(
            [make_notice("w-here"), make_notice("w-elsewhere", item_ids=("IC_2",))],
            at=clock.now(),
        )
        loop = loop_for(store, clock, publisher, recipients=lambda: {"w-here"})
        await loop.run_once()
        pending = [e.worker for e in store.sync.entries()]
    delivered = [a.notice.worker for a in publisher.attempts]
    assert (["w-here"], ["w-elsewhere"]) == (delivered, pending)
