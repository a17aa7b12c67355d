"""The fleet's janitor (issue 28, item 6): a lost host's notices go to its workers'
orchestrators, or are parked ``host-lost``, only after its lease has been expired for
three lease lives and only by a janitor that held its own lease without a break for two;
a host that comes back takes its parked notices back."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import anyio
import pytest

from comment_wake.app import App
from comment_wake.fleet import HOST_LOST, janitor_moves, lost_hosts
from comment_wake.registry import CallbackSpec
from review_monitor import (
    NOTICE_VERSION,
    Notice,
    NoticeItem,
    NoticePr,
    PrRef,
    notice_key,
)
from review_monitor.store import OutboxEntry

from .conftest import TTL, Fleet, Inboxes, daemon

T0 = datetime(2026, 12, 4, 9, 0, tzinfo=UTC)
LIFE = timedelta(seconds=30)
B = PrRef("octo", "repo", 2)


def _notice(worker: str, at: datetime) -> Notice:
    return Notice(
        version=NOTICE_VERSION,
        kind="comment-wake",
        key=notice_key(worker, B, "comment-wake", ("IC_9",)),
        worker=worker,
        pr=NoticePr(host=B.host, repo=B.repo, number=B.number, url="u", title="t"),
        items=(NoticeItem("IC_9", 9, "u", "alice", "comment"),),
        text="hello",
        created_at=at,
    )


def _entry(worker: str) -> OutboxEntry:
    return OutboxEntry(
        seq=1,
        key="k",
        worker=worker,
        pr=B,
        notice=_notice(worker, T0),
        status="pending",
        attempts=0,
        created_at=T0,
        next_attempt_at=T0,
        last_outcome=None,
        last_detail=None,
        delivered_at=None,
        session_id=None,
        routed_to=None,
    )


# -- the rules, pure ---------------------------------------------------------------------


def test_a_host_expired_for_three_lives_is_lost() -> None:
    expiries = {"h1": T0 + 10 * LIFE, "h2": T0 + LIFE}
    now = T0 + 4 * LIFE
    assert frozenset({"h2"}) == lost_hosts(expiries, now=now, ttl=LIFE, held_since=T0)


def test_a_host_expired_for_less_than_three_lives_is_not_lost() -> None:
    expiries = {"h2": T0 + LIFE}
    now = T0 + 4 * LIFE - timedelta(seconds=1)
    assert frozenset() == lost_hosts(expiries, now=now, ttl=LIFE, held_since=T0)


def test_a_janitor_that_held_its_lease_for_less_than_two_lives_judges_nobody() -> None:
    expiries = {"h2": T0}
    now = T0 + 10 * LIFE
    held_since = now - 2 * LIFE + timedelta(seconds=1)
    assert frozenset() == lost_hosts(expiries, now=now, ttl=LIFE, held_since=held_since)


def test_a_lost_workers_notice_goes_to_its_orchestrator_on_a_live_host() -> None:
    moves = janitor_moves(
        [_entry("w2")],
        {"h2"},
        host_of={"w2": "h2", "o1": "h1"},
        orchestrator_of={"w2": "o1"},
        live={"h1"},
    )
    assert [("w2", "h2", "o1")] == [(m.entry.worker, m.host_id, m.orchestrator) for m in moves]


def test_a_lost_workers_notice_is_parked_when_its_orchestrator_is_lost_too() -> None:
    moves = janitor_moves(
        [_entry("w2")],
        {"h2"},
        host_of={"w2": "h2", "o2": "h2"},
        orchestrator_of={"w2": "o2"},
        live={"h1"},
    )
    assert [None] == [m.orchestrator for m in moves]


def test_a_live_hosts_notices_do_not_move() -> None:
    moves = janitor_moves(
        [_entry("w1")], {"h2"}, host_of={"w1": "h1"}, orchestrator_of={"w1": "o1"}, live={"h1"}
    )
    assert [] == moves


# -- two daemons -------------------------------------------------------------------------


async def _run(fleet: Fleet, span: timedelta) -> None:
    end = fleet.clock.now() + span
    while fleet.clock.now() < end:
        await fleet.clock.advance(timedelta(milliseconds=250))


def _status(app: App, worker: str) -> list[str]:
    return [
        e.status
        for e in app.monitor.store.sync.entries(
            worker=worker, statuses=("pending", "parked", "delivered")
        )
    ]


@pytest.mark.anyio
async def test_a_lost_hosts_notice_is_parked_after_the_janitors_delay_and_taken_back(
    fleet: Fleet,
) -> None:
    fleet.fake.add_pr("octo/repo", 2, title="Tidy the docs")
    inboxes = Inboxes()
    async with daemon(fleet, "h1", inboxes) as one:
        async with daemon(fleet, "h2", inboxes) as two:
            assert two.registry is not None
            two.registry.add_orchestrator("o2", CallbackSpec("inbox"))
            two.registry.bind("w2", B, orchestrator="o2", publisher=CallbackSpec("inbox"))
        # h2 stopped cleanly (its lease lapsed now); a notice for its worker is queued.
        one.monitor.store.sync.enqueue([_notice("w2", fleet.clock.now())], at=fleet.clock.now())
        async with anyio.create_task_group() as tg:
            tg.start_soon(one.run)
            await _run(fleet, 2 * TTL)  # the janitor's own two lives: still too early
            early = _status(one, "w2")
            await _run(fleet, 3 * TTL)
            late = _status(one, "w2")
            tg.cancel_scope.cancel()
        parked = one.monitor.store.sync.entries(worker="w2", statuses=("parked",))
    reasons = [e.last_detail or "" for e in parked]
    assert (["pending"], ["parked"], True) == (
        early,
        late,
        all(r.startswith(HOST_LOST) for r in reasons),
    )
    async with daemon(fleet, "h2", inboxes) as back, anyio.create_task_group() as tg:
        tg.start_soon(back.run)
        await _run(fleet, TTL)
        tg.cancel_scope.cancel()
    assert ["w2"] == [n.worker for n in inboxes.by_host["h2"]]


@pytest.mark.anyio
async def test_a_lost_hosts_parked_notice_goes_to_the_worker_its_pr_was_rebound_to(
    fleet: Fleet,
) -> None:
    fleet.fake.add_pr("octo/repo", 2, title="Tidy the docs")
    inboxes = Inboxes()
    async with daemon(fleet, "h1", inboxes) as one:
        async with daemon(fleet, "h2", inboxes) as two:
            assert two.registry is not None
            two.registry.add_orchestrator("o2", CallbackSpec("inbox"))
            two.registry.bind("w2", B, orchestrator="o2", publisher=CallbackSpec("inbox"))
        one.monitor.store.sync.enqueue([_notice("w2", fleet.clock.now())], at=fleet.clock.now())
        async with anyio.create_task_group() as tg:
            tg.start_soon(one.run)
            await _run(fleet, 5 * TTL)  # h2 is lost: w2's notice is parked host-lost
            tg.cancel_scope.cancel()
        assert one.registry is not None
        one.registry.unbind("w2")
        one.registry.add_orchestrator("o1", CallbackSpec("inbox"))
        one.registry.bind("w3", B, orchestrator="o1", publisher=CallbackSpec("inbox"))
    # h1 starts again: it takes back the host-lost notices of its PRs for their worker now.
    async with daemon(fleet, "h1", inboxes) as again, anyio.create_task_group() as tg:
        tg.start_soon(again.run)
        await _run(fleet, TTL)
        tg.cancel_scope.cancel()
    assert [("w3", ["IC_9"])] == [
        (n.worker, [i.id for i in n.items]) for n in inboxes.by_host["h1"]
    ]
