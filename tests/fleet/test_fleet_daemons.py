"""Two fleet daemons, in process, on one PostgreSQL store and one FakeGitHub (issue 28,
"A multi-daemon test"): each writer's comment wakes its worker exactly once, on the host
where the worker is bound; the fleet reads GitHub as one daemon would; stopping the
reader's host hands its lease over within the expiry and no comment is missed.

Leases last 30 s where no host stops, 5 s where one does (renewed at 0.3 of that), and
the conftest's 1 s where the janitor must see a lapse of three lives within a minute.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import timedelta
from pathlib import Path

import anyio
import pytest

from comment_wake.app import App, open_app
from comment_wake.app._status import render_status
from comment_wake.config import AppConfig
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

from .conftest import TOKEN, Fleet, Inboxes, daemon, new_fleet

pytestmark = pytest.mark.anyio

MINUTE = timedelta(minutes=1)
LIFE = timedelta(seconds=30)
# The leases of the tests where a host stops and its lease must lapse: short against the
# minutes they run, long against the 0.3 s renewals 1 s leases cost (a store round trip
# each, on each host).
SHORT = timedelta(seconds=5)
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
        await _run(fleet, MINUTE)  # the baseline: the reader reads both PRs at once
        fleet.fake.post_comment(a, "alice", "Please rebase onto main.")
        fleet.fake.post_comment(b, "alice", "Please fix the typo.")
        await _run(fleet, 2 * MINUTE)  # two poll intervals
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


async def _script(fleet: Fleet, prs: tuple[PrRef, PrRef]) -> None:
    """The GitHub side of the cost comparison, five minutes: a baseline, then a comment
    on each PR, in different poll rounds, each read before the end.

    Comments on two hosts' PRs in the same round cost a reaction on each host in the
    fleet (each owner decides its own PRs), where one daemon sends one mutation for
    both: 9 points against 8 over these five minutes, 1.125x.  The bodies come read by
    the reader in the observations, one detail query either way."""
    await _run(fleet, MINUTE)
    fleet.fake.post_comment(prs[0], "alice", "Please rebase onto main.")
    await _run(fleet, 1.5 * MINUTE)
    fleet.fake.post_comment(prs[1], "alice", "Please fix the typo.")
    await _run(fleet, 2.5 * MINUTE)


def _points(fleet: Fleet) -> int:
    """The GraphQL points FakeGitHub charged so far."""
    return sum(r.cost for r in fleet.fake.requests if r.path == "/graphql")


def _reader_host(fleet: Fleet) -> str | None:
    """The host whose instance holds the reader's lease now."""
    from comment_wake.store import open_sync_store

    with open_sync_store(fleet.url) as db, db.read() as tx:
        reader = read_lease(tx, IDENTITY)
        hosts = {h: read_lease(tx, f"host:{h}") for h in ("h1", "h2")}
    holder = None if reader is None else reader.holder
    return next((h for h, row in hosts.items() if row is not None and row.holder == holder), None)


async def test_the_fleet_reads_github_as_one_daemon_does(
    fleet: Fleet, prs: tuple[PrRef, PrRef], tmp_path: Path
) -> None:
    inboxes = Inboxes()
    async with _both(fleet, prs, inboxes):
        await _script(fleet, prs)
        reader = _reader_host(fleet)
    # One daemon, not in fleet mode (SQLite in its own state directory), watching both
    # PRs under the same script: a fresh FakeGitHub and clock with the same PRs.
    alone = new_fleet(tmp_path / "alone", fleet.url)
    alone.fake.add_pr("octo/repo", 2, title="Tidy the docs")
    async with (
        open_app(
            AppConfig(),
            state_dir=alone.state("state-alone"),
            token=TOKEN,
            transport=alone.fake.transport("alone"),
            clock=alone.clock,
            callbacks={"inbox": inboxes.callback("h1")},
        ) as single,
        anyio.create_task_group() as tg,
    ):
        _bind(single, "w1", prs[0])
        _bind(single, "w2", prs[1])
        tg.start_soon(single.run)
        await _script(alone, prs)
        tg.cancel_scope.cancel()
    sweeps_and_badges = {r.via for r in fleet.fake.requests if r.kind in ("sweep", "badge")}
    # Points: at most 1.1x one daemon's; only the reader's host polls (no owner sends a
    # sweep or a badge query), and the reader is one of the two.
    assert ((True, True), {reader}) == (
        (_points(fleet) <= 1.1 * _points(alone), _points(alone) > 0),
        sweeps_and_badges,
    )


async def test_a_stopped_readers_host_hands_the_lease_over_and_no_comment_is_missed(
    fleet: Fleet, prs: tuple[PrRef, PrRef]
) -> None:
    a, b = prs
    inboxes = Inboxes()
    async with (
        daemon(fleet, "h2", inboxes, ttl=SHORT) as two,
        anyio.create_task_group() as outer,
    ):
        async with (
            daemon(fleet, "h1", inboxes, ttl=SHORT) as one,
            anyio.create_task_group() as inner,
        ):
            _bind(one, "w1", a)
            _bind(two, "w2", b)
            inner.start_soon(one.run)
            await _run(fleet, 10 * timedelta(seconds=1))  # h1 campaigns first: it reads
            outer.start_soon(two.run)
            await _run(fleet, MINUTE)
            first = _reader(fleet)
            inner.cancel_scope.cancel()  # h1 stops
        fleet.fake.post_comment(b, "alice", "Still there after the failover?")
        # The expiry and a renewal after it (h2's next campaign), with room to spare.
        await _run(fleet, 2 * SHORT)
        second = _reader(fleet)
        await _run(fleet, 2 * MINUTE)
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
    async with (
        daemon(fleet, "h1", inboxes, ttl=SHORT) as one,
        anyio.create_task_group() as outer,
    ):
        async with (
            daemon(fleet, "h2", inboxes, ttl=SHORT) as two,
            anyio.create_task_group() as inner,
        ):
            _bind(one, "w1", a)
            _bind(two, "w2", b)
            outer.start_soon(one.run)
            await _run(fleet, 10 * timedelta(seconds=1))  # h1 campaigns first: it reads
            inner.start_soon(two.run)
            await _run(fleet, MINUTE)
            inner.cancel_scope.cancel()  # h2 stops: its lease lapses within SHORT
        stopped = fleet.clock.now()
        await _run(fleet, 2 * MINUTE)
        outer.cancel_scope.cancel()
    with open_sync_store(fleet.url) as db, db.read() as tx:
        read_at = {o.pr: o.read_at for o in latest_observations(tx, "github.com:octo-worker")}
    # h1 read a again and again; b's last read is from before h2 stopped (a lapse).
    assert (True, True) == (read_at[a] > stopped + MINUTE, read_at[b] <= stopped + 2 * SHORT)
