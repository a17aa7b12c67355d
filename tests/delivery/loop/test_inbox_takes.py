"""Fleet mode: a host's loop records the notices it writes into inboxes, and at its scans
which of them a hook took, so the store knows the notices delivered but never taken."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

import pytest

from comment_wake.delivery import DeliveryConfig, DeliveryLoop, InboxPublisher, take
from comment_wake.store import open_store, untaken
from review_monitor import Notice, Publisher
from review_monitor.store import Store
from review_monitor.testing import FixedClock, InMemoryPublisher

pytestmark = pytest.mark.anyio

NoticeFactory = Callable[..., Notice]


def _loop(
    store: Store, clock: FixedClock, publisher: Publisher, host_id: str | None
) -> DeliveryLoop:
    return DeliveryLoop(
        store,
        route=lambda worker: publisher,
        clock=clock,
        config=DeliveryConfig(),
        rng=random.Random(1),
        host_id=host_id,
    )


async def test_a_fleet_loop_records_an_inbox_notice_it_delivered_as_untaken(
    tmp_path: Path, make_notice: NoticeFactory
) -> None:
    clock = FixedClock()
    notice = make_notice("w1")
    with open_store(tmp_path / "state.db", clock=clock) as store:
        store.sync.enqueue([notice], at=clock.now())
        await _loop(store, clock, InboxPublisher(tmp_path / "inbox"), "h1").run_once()
        found = untaken(store.sync, "h1")
    assert [("w1", notice.key, str(tmp_path / "inbox"))] == [
        (d.worker, d.key, d.root) for d in found
    ]


async def test_a_fleet_loop_records_the_take_of_a_notice_at_its_next_scan(
    tmp_path: Path, make_notice: NoticeFactory
) -> None:
    clock = FixedClock()
    with open_store(tmp_path / "state.db", clock=clock) as store:
        store.sync.enqueue([make_notice("w1")], at=clock.now())
        loop = _loop(store, clock, InboxPublisher(tmp_path / "inbox"), "h1")
        await loop.run_once()
        take(tmp_path / "inbox", "w1")
        clock.advance(DeliveryConfig().scan_interval)
        stats = await loop.run_once()
        found = untaken(store.sync, "h1")
    assert (1, ()) == (stats.takes, found)


async def test_a_fleet_loop_leaves_a_notice_nobody_took_untaken(
    tmp_path: Path, make_notice: NoticeFactory
) -> None:
    clock = FixedClock()
    with open_store(tmp_path / "state.db", clock=clock) as store:
        store.sync.enqueue([make_notice("w1")], at=clock.now())
        loop = _loop(store, clock, InboxPublisher(tmp_path / "inbox"), "h1")
        await loop.run_once()
        clock.advance(DeliveryConfig().scan_interval)
        stats = await loop.run_once()
        found = untaken(store.sync, "h1")
    assert (0, 1) == (stats.takes, len(found))


async def test_a_fleet_loop_records_no_inbox_delivery_for_another_publisher(
    tmp_path: Path, make_notice: NoticeFactory
) -> None:
    clock = FixedClock()
    with open_store(tmp_path / "state.db", clock=clock) as store:
        store.sync.enqueue([make_notice("w1")], at=clock.now())
        await _loop(store, clock, InMemoryPublisher(), "h1").run_once()
        found = untaken(store.sync, "h1")
    assert () == found


async def test_a_fleet_loop_records_no_inbox_delivery_for_an_orchestrators_hand_off(
    tmp_path: Path, make_notice: NoticeFactory
) -> None:
    clock = FixedClock()
    with open_store(tmp_path / "state.db", clock=clock) as store:
        store.sync.enqueue([make_notice("o1", kind="handoff")], at=clock.now())
        await _loop(store, clock, InboxPublisher(tmp_path / "inbox"), "h1").run_once()
        found = untaken(store.sync, "h1")
    assert () == found
