"""Two fleet daemons, in process, on one PostgreSQL store and one FakeGitHub (issue 28,
"A multi-daemon test"): each writer's comment wakes its worker exactly once, on the host
where the worker is bound; the fleet reads GitHub as one daemon would; stopping the
reader's host hands its lease over within the expiry and no comment is missed.

Leases are the conftest's: 1 s, renewed every 0.3 s, on the virtual clock.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import timedelta

import anyio
import pytest

from comment_wake.app import App
from comment_wake.app._status import render_status
from comment_wake.registry import CallbackSpec
from review_monitor import (
    NOTICE_VERSION,
    Notice,
    NoticeItem,
    NoticePr,
    PrRef,
    notice_key,
)
from review_monitor.store import read_lease

from .conftest import TTL, Fleet, Inboxes, daemon

pytestmark = pytest.mark.anyio

MINUTE = timedelta(minutes=1)
LIFE = timedelta(seconds=30)
IDENTITY = "reader:github.com:octo-worker"


@asynccontextmanager
async def _both(
    fleet: Fleet, prs: tuple[PrRef, PrRef], inboxes: Inboxes
) -> AsyncIterator[tuple[App, App]]:
    """h1 with w1 on the first PR and h2 with w2 on the second, both running, with the
    default leases' life (these tests lose no host: a short life only costs renewals)."""
    async with (
        daemon(fleet, "h1", inboxes, ttl=LIFE) as one,
        daemon(fleet, "h2", inboxes, ttl=LIFE) as two,
        anyio.create_task_group() as tg,
    ):
        _bind(one, "w1", prs[0])
        _bind(two, "w2", prs[1])
        tg.start_soon(one.run)
        tg.start_soon(two.run)
        yield one, two
        tg.cancel_scope.cancel()


def _bind(app: App, worker: str, pr: PrRef) -> None:
    assert app.registry is not None
    app.registry.add_orchestrator(f"o-{worker}", CallbackSpec("inbox"))
    app.registry.bind(worker, pr, orchestrator=f"o-{worker}", publisher=CallbackSpec("inbox"))


async def _run(fleet: Fleet, span: timedelta) -> None:
    """Let the daemons run ``span`` of virtual time, one deadline at a time (each step
    lets the store's threads and the loops settle)."""
    end = fleet.clock.now() + span
    while fleet.clock.now() < end:
        due = fleet.clock.next_deadline()
        await fleet.clock.advance_to(min(end, due) if due is not None else end)


def _reader(fleet: Fleet) -> str | None:
    from comment_wake.store import open_sync_store

    with open_sync_store(fleet.url) as db, db.read() as tx:
        row = read_lease(tx, IDENTITY)
    return None if row is None or row.expires_at <= fleet.clock.now() else row.holder


@pytest.fixture
def prs(fleet: Fleet) -> tuple[PrRef, PrRef]:
    b = fleet.fake.add_pr("octo/repo", 2, title="Tidy the docs")
    return PrRef("octo", "repo", 1), b


async def test_each_writers_comment_wakes_its_worker_once_on_its_own_host(
    fleet: Fleet, prs: tuple[PrRef, PrRef]
) -> None:
    a, b = prs
    inboxes = Inboxes()
    async with _both(fleet, prs, inboxes):
        await _run(fleet, 2 * MINUTE)  # the baseline
        fleet.fake.post_comment(a, "alice", "Please rebase onto main.")
        fleet.fake.post_comment(b, "alice", "Please fix the typo.")
        await _run(fleet, 3 * MINUTE)
    assert ([("w1", "alice")], [("w2", "alice")]) == (inboxes.authors("h1"), inboxes.authors("h2"))


async def test_a_host_never_delivers_a_notice_for_another_hosts_worker(
    fleet: Fleet, prs: tuple[PrRef, PrRef]
) -> None:
    a, b = prs
    inboxes = Inboxes()
    async with daemon(fleet, "h1", inboxes) as one:
        async with daemon(fleet, "h2", inboxes) as two:
            _bind(one, "w1", a)
            _bind(two, "w2", b)  # h2 is not running: its worker's notices wait for it
        notice = Notice(
            version=NOTICE_VERSION,
            kind="comment-wake",
            key=notice_key("w2", b, "comment-wake", ("IC_9",)),
            worker="w2",
            pr=NoticePr(host=b.host, repo=b.repo, number=b.number, url="u", title="t"),
            items=(NoticeItem("IC_9", 9, "u", "alice", "comment"),),
            text="hello",
            created_at=fleet.clock.now(),
        )
        one.monitor.store.sync.enqueue([notice], at=fleet.clock.now())
        async with anyio.create_task_group() as tg:
            tg.start_soon(one.run)
            await _run(fleet, MINUTE)
            tg.cancel_scope.cancel()
        # Never delivered here: waiting for h2, or parked host-lost by the janitor once
        # h2's lease had been lapsed for three lives.
        kept = one.monitor.store.sync.entries(statuses=("pending", "parked", "delivered"))
    assert ([], [("w2", True)]) == (
        inboxes.authors("h1"),
        [(e.worker, e.status != "delivered") for e in kept],
    )


async def test_the_fleet_reads_github_as_one_daemon_does(
    fleet: Fleet, prs: tuple[PrRef, PrRef]
) -> None:
    async with _both(fleet, prs, Inboxes()):
        await _run(fleet, 5 * MINUTE)
    badges = [r for r in fleet.fake.requests if r.kind == "badge"]
    # Two PRs are one batch: one badge query a round, five rounds and the first (one
    # daemon alone watching both PRs sends the same); two pollers would send twelve.
    assert len(badges) <= 6


async def test_a_stopped_readers_host_hands_the_lease_over_and_no_comment_is_missed(
    fleet: Fleet, prs: tuple[PrRef, PrRef]
) -> None:
    a, b = prs
    inboxes = Inboxes()
    async with daemon(fleet, "h2", inboxes) as two, anyio.create_task_group() as outer:
        async with daemon(fleet, "h1", inboxes) as one, anyio.create_task_group() as inner:
            _bind(one, "w1", a)
            _bind(two, "w2", b)
            inner.start_soon(one.run)
            await _run(fleet, 10 * timedelta(seconds=1))  # h1 campaigns first: it reads
            outer.start_soon(two.run)
            await _run(fleet, 2 * MINUTE)
            first = _reader(fleet)
            inner.cancel_scope.cancel()  # h1 stops
        fleet.fake.post_comment(b, "alice", "Still there after the failover?")
        await _run(fleet, 5 * timedelta(seconds=1))  # more than the 1 s expiry
        second = _reader(fleet)
        await _run(fleet, 3 * MINUTE)
        outer.cancel_scope.cancel()
    assert (True, True, [("w2", "alice")]) == (
        first is not None and first != second,
        second is not None,
        inboxes.authors("h2"),
    )


async def test_status_on_any_host_shows_the_reader_the_live_hosts_and_the_budget(
    fleet: Fleet, prs: tuple[PrRef, PrRef]
) -> None:
    async with _both(fleet, prs, Inboxes()) as (_, two):
        await _run(fleet, 2 * MINUTE)
        report = await two.status()
    readers = [x for x in report.leases if x.name == IDENTITY and x.live]
    hosts = sorted(x.name for x in report.leases if x.name.startswith("host:") and x.live)
    budget = [(x.identity, x.resource) for x in report.budget]
    assert (1, ["host:h1", "host:h2"], True) == (
        len(readers),
        hosts,
        ("github.com:octo-worker", "graphql") in budget,
    )


async def test_status_names_a_pr_the_reader_cannot_read_and_the_host_that_reads_it(
    fleet: Fleet, prs: tuple[PrRef, PrRef]
) -> None:
    hidden = fleet.fake.add_pr("octo/private", 3, title="Rotate the keys")
    fleet.fake.hide_repo("octo/private")  # NOT_FOUND to the reader's token
    async with _both(fleet, prs, Inboxes()) as (one, two):
        _bind(one, "w3", hidden)
        await _run(fleet, 2 * MINUTE)
        report = await two.status()
    said = [line for line in render_status(report).splitlines() if "cannot read" in line]
    assert ([(str(hidden), "h1")], 1) == (
        [(u.pr, u.host_id) for u in report.unread],
        len([line for line in said if line.startswith(f"read by its owner h1: {hidden}")]),
    )


async def test_a_stopped_owners_prs_stop_being_read(fleet: Fleet, prs: tuple[PrRef, PrRef]) -> None:
    from comment_wake.store import open_sync_store
    from review_monitor._store._stream import latest_observations

    a, b = prs
    inboxes = Inboxes()
    async with daemon(fleet, "h1", inboxes) as one, anyio.create_task_group() as outer:
        async with daemon(fleet, "h2", inboxes) as two, anyio.create_task_group() as inner:
            _bind(one, "w1", a)
            _bind(two, "w2", b)
            outer.start_soon(one.run)
            await _run(fleet, 10 * timedelta(seconds=1))  # h1 campaigns first: it reads
            inner.start_soon(two.run)
            await _run(fleet, MINUTE)
            inner.cancel_scope.cancel()  # h2 stops: its lease lapses after 1 s
        stopped = fleet.clock.now()
        await _run(fleet, 2 * MINUTE)
        outer.cancel_scope.cancel()
    with open_sync_store(fleet.url) as db, db.read() as tx:
        read_at = {o.pr: o.read_at for o in latest_observations(tx, "github.com:octo-worker")}
    # h1 read a again and again; b's last read is from before h2 stopped (a lapse).
    assert (True, True) == (read_at[a] > stopped + MINUTE, read_at[b] <= stopped + 2 * TTL)
