"""Fleet mode's monitor on one PostgreSQL store and one FakeGitHub: one reader polls for
every host, each host's listeners see only the PRs it owns, and a stopped reader's lease
passes to another host within its expiry (issue 28, item 4).

Time is a ``VirtualClock`` shared by the monitors, FakeGitHub and the leases (their
``lease_now`` is the test's clock); the store is real PostgreSQL on loopback, and FakeGitHub
answers in process (each host's requests are recorded with its ``host_id`` as ``via``).
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from datetime import datetime, timedelta

import anyio
import msgspec
import pytest

from review_monitor import GitHubConfig, Monitor, MonitorConfig, Observation, Observed, PrRef
from review_monitor.github import RetryPolicy
from review_monitor.store import (
    ReadTx,
    Store,
    acquire_lease,
    claim_pr,
    read_lease,
    store_time,
)
from review_monitor.testing import FakeGitHub, VirtualClock

pytestmark = pytest.mark.anyio

TOKEN = "ghp_FLEETsentinel0123456789abcdefghijklmnop"
S = timedelta(seconds=1)
M = timedelta(minutes=1)
IDENTITY = "github.com:octo-worker"
READER = f"reader:{IDENTITY}"


class Seen:
    """A listener that records which PRs' observations it was handed."""

    name = "seen"

    def __init__(self) -> None:
        self.prs: list[PrRef] = []
        self.checks: dict[PrRef, list[str]] = {}  # the failing checks that came, by PR

    async def observe(self, item: Observed, now: datetime) -> None:
        if isinstance(item, Observation):
            self.prs.append(item.pr)
            if item.failing_checks is not None:
                self.checks[item.pr] = [f.id for f in item.failing_checks]


class Fleet:
    def __init__(self, url: str, clock: VirtualClock, fake: FakeGitHub) -> None:
        self.url = url
        self.clock = clock
        self.fake = fake
        self.seen: dict[str, Seen] = {}

    def lease_now(self) -> Callable[[ReadTx], datetime]:
        clock = self.clock
        return lambda tx: clock.now()

    def setup(self, owners: dict[PrRef, str]) -> None:
        """Every host's lease live for a day, each PR watched and owned by its host."""
        with Store.open(self.url) as store, store.sync.write(at=self.clock.now()) as tx:
            for host in sorted(set(owners.values())):
                acquire_lease(tx, f"host:{host}", host, now=self.clock.now(), ttl=24 * 60 * M)
            for pr, host in owners.items():
                claim_pr(tx, pr, host, f"w-{pr.number}")
                from review_monitor.store import add_watch

                add_watch(tx, f"w-{pr.number}", pr)

    @asynccontextmanager
    async def host(self, host_id: str) -> AsyncIterator[Monitor]:
        from review_monitor._fleet import FleetMode

        async with AsyncExitStack() as stack:
            work = stack.enter_context(Store.open(self.url))
            lease = stack.enter_context(Store.open(self.url))
            seen = self.seen[host_id] = Seen()
            monitor = Monitor(
                store=work,
                github=GitHubConfig(),
                # In process: a request is answered before the clock can move on, so the
                # times FakeGitHub records are the times the monitors asked.
                transport=self.fake.transport(host_id),
                config=MonitorConfig(),
                clock=self.clock,
                token=TOKEN,
                retry=RetryPolicy(attempts=2),
                listeners=[seen],
                fleet=FleetMode(
                    host_id=host_id,
                    holder=f"{host_id}-instance",
                    lease_store=lease,
                    lease_ttl=30 * S,
                    lease_renew=10 * S,
                    lease_now=self.lease_now(),
                ),
            )
            await stack.enter_async_context(monitor)
            yield monitor

    async def idle(self) -> None:
        deadline = time.monotonic() + 20
        while True:
            await self.clock.settle()
            if self.clock.sleepers:
                return
            if time.monotonic() > deadline:
                raise AssertionError("the monitors never went back to sleep")
            await anyio.sleep(0.002)

    async def run_for(self, span: timedelta) -> None:
        end = self.clock.now() + span
        while True:
            await self.idle()
            due = self.clock.next_deadline()
            if due is None or due > end:
                break
            await self.clock.advance_to(due)
        await self.clock.advance_to(end)
        await self.idle()

    def lease_taken_by_a_thief(self) -> None:
        """Another holder, no monitor here, takes the reader lease for a minute under the
        next term."""
        with Store.open(self.url) as store, store.sync.write(at=self.clock.now()) as tx:
            tx.execute(
                "UPDATE leases SET holder = 'thief', claim = 'thief', term = term + 1, "
                "expires_at = ? WHERE name = ?",
                (store_time(self.clock.now() + M), READER),
            )

    def reader(self) -> str | None:
        with Store.open(self.url) as store, store.sync.read() as tx:
            row = read_lease(tx, READER)
        return None if row is None or row.expires_at <= self.clock.now() else row.holder


@pytest.fixture
def fleet(postgres_url: str) -> Fleet:
    clock = VirtualClock()
    return Fleet(postgres_url, clock, FakeGitHub(clock=clock, token=TOKEN))


async def test_each_host_is_handed_only_the_prs_it_owns(fleet: Fleet) -> None:
    a, b = fleet.fake.add_pr("octo-org/app", 1), fleet.fake.add_pr("octo-org/app", 2)
    fleet.setup({a: "h1", b: "h2"})
    async with fleet.host("h1") as m1, fleet.host("h2") as m2, anyio.create_task_group() as tg:
        tg.start_soon(m1.run)
        tg.start_soon(m2.run)
        await fleet.run_for(3 * M)
        tg.cancel_scope.cancel()
    assert ({a}, {b}) == (set(fleet.seen["h1"].prs), set(fleet.seen["h2"].prs))


async def test_one_host_reads_for_the_fleet(fleet: Fleet) -> None:
    prs = [fleet.fake.add_pr("octo-org/app", n) for n in range(1, 5)]
    fleet.setup({pr: f"h{pr.number % 2}" for pr in prs})
    async with fleet.host("h0") as m0, fleet.host("h1") as m1, anyio.create_task_group() as tg:
        tg.start_soon(m0.run)
        tg.start_soon(m1.run)
        await fleet.run_for(5 * M + 30 * S)
        tg.cancel_scope.cancel()
    badge_reads = [r for r in fleet.fake.requests if r.kind == "badge"]
    # One badge query a minute (four PRs are one batch): six rounds in five and a half
    # minutes, as one monitor alone sends; two readers would send twelve.
    assert 6 == len(badge_reads)


async def test_newly_failing_checks_reach_their_owners_for_one_checks_query(
    fleet: Fleet,
) -> None:
    prs = [fleet.fake.add_pr("octo-org/app", n) for n in range(1, 5)]
    fleet.setup({pr: f"h{pr.number % 2}" for pr in prs})
    async with fleet.host("h0") as m0, fleet.host("h1") as m1, anyio.create_task_group() as tg:
        tg.start_soon(m0.run)
        tg.start_soon(m1.run)
        await fleet.run_for(90 * S)
        runs = {pr: [fleet.fake.add_check_run(pr, "tests")] for pr in prs}
        await fleet.run_for(2 * M)
        tg.cancel_scope.cancel()
    came = {**fleet.seen["h0"].checks, **fleet.seen["h1"].checks}
    # One batched read by the fleet's reader; the owners' notices use what came.
    assert (runs, 1) == (came, fleet.fake.count("checks"))


async def test_a_stopped_readers_lease_passes_to_another_host_within_its_expiry(
    fleet: Fleet,
) -> None:
    a, b = fleet.fake.add_pr("octo-org/app", 1), fleet.fake.add_pr("octo-org/app", 2)
    fleet.setup({a: "h1", b: "h2"})
    async with fleet.host("h2") as m2, anyio.create_task_group() as outer:
        async with fleet.host("h1") as m1, anyio.create_task_group() as inner:
            inner.start_soon(m1.run)
            await fleet.run_for(20 * S)  # h1 campaigns first and reads
            outer.start_soon(m2.run)
            await fleet.run_for(M)
            first = fleet.reader()
            inner.cancel_scope.cancel()  # h1 stops without a word: its lease lapses
        await fleet.run_for(40 * S)  # the expiry (30 s) and one campaign (10 s)
        second = fleet.reader()
        before = fleet.seen["h2"].prs.count(b)
        fleet.fake.post_comment(b, "alice", "still read after the failover")
        await fleet.run_for(2 * M)
        outer.cancel_scope.cancel()
    after = fleet.seen["h2"].prs.count(b)
    assert ("h1-instance", "h2-instance", True) == (first, second, after > before)


async def test_a_hint_on_a_host_that_does_not_read_is_served_by_the_reader(
    fleet: Fleet,
) -> None:
    a, b = fleet.fake.add_pr("octo-org/app", 1), fleet.fake.add_pr("octo-org/app", 2)
    fleet.setup({a: "h1", b: "h2"})
    async with fleet.host("h1") as m1, fleet.host("h2") as m2, anyio.create_task_group() as tg:
        tg.start_soon(m1.run)
        await fleet.run_for(20 * S)  # h1 reads
        tg.start_soon(m2.run)
        await fleet.run_for(M)
        assert "h1-instance" == fleet.reader()
        before = len([r for r in fleet.fake.requests if r.kind == "badge"])
        asked_at = fleet.clock.now()
        m2.poll_now(b)
        await fleet.run_for(5 * S)
        tg.cancel_scope.cancel()
    hinted = [r.at for r in fleet.fake.requests if r.kind == "badge"][before:]
    # The hint reaches the store within a second; its 2 s delay counts from then, and the
    # reader, draining every second, has it before that delay is over.
    assert [True] == [t - asked_at <= 3 * S for t in hinted]


async def test_a_reader_whose_lease_is_taken_stops_reading_and_campaigns_again(
    fleet: Fleet,
) -> None:
    a = fleet.fake.add_pr("octo-org/app", 1)
    fleet.setup({a: "h1"})
    async with fleet.host("h1") as m1, anyio.create_task_group() as tg:
        tg.start_soon(m1.run)
        await fleet.run_for(20 * S)
        first = fleet.reader()
        fleet.lease_taken_by_a_thief()
        await fleet.run_for(30 * S)
        during = fleet.reader()
        await fleet.run_for(M)
        after = fleet.reader()
        tg.cancel_scope.cancel()
    assert ("h1-instance", "thief", "h1-instance") == (first, during, after)


async def test_a_reader_that_stops_reading_hands_its_waiting_poll_request_on(
    fleet: Fleet,
) -> None:
    a = fleet.fake.add_pr("octo-org/app", 1)
    fleet.setup({a: "h1"})
    async with fleet.host("h1") as m1, anyio.create_task_group() as tg:
        tg.start_soon(m1.run)
        await fleet.run_for(20 * S)
        m1.request_poll(a)  # taken by h1's poller, which serves it at its next round
        await fleet.run_for(2 * S)
        fleet.lease_taken_by_a_thief()  # before that round
        await fleet.run_for(30 * S)
        reader = fleet.reader()
        tg.cancel_scope.cancel()
    with Store.open(fleet.url) as store, store.sync.read() as tx:
        waiting = tx.execute("SELECT kind, pr_key FROM poll_requests").fetchall()
    assert ("thief", [("poll", a.key_text)]) == (reader, [tuple(row) for row in waiting])


async def test_a_poll_request_waits_on_its_host_until_the_store_has_it(fleet: Fleet) -> None:
    a = fleet.fake.add_pr("octo-org/app", 1)
    fleet.setup({a: "h1"})
    async with fleet.host("h1") as m1, anyio.create_task_group() as tg:
        m1.request_poll(a)
        before = m1.requested(a)
        tg.start_soon(m1.run)
        await fleet.run_for(2 * S)
        after = m1.requested(a)
        tg.cancel_scope.cancel()
    assert (True, False) == (before, after)


async def test_a_store_fault_while_campaigning_makes_the_host_wait_not_stop(
    fleet: Fleet, monkeypatch: pytest.MonkeyPatch
) -> None:
    from review_monitor import StoreUnavailableError
    from review_monitor.store import LeaseKeeper

    a = fleet.fake.add_pr("octo-org/app", 1)
    fleet.setup({a: "h1"})
    acquire = LeaseKeeper.acquire
    faults = [StoreUnavailableError("the server is away")]

    async def flaky(self: LeaseKeeper) -> object:
        if self.name == READER and faults:
            raise faults.pop()
        return await acquire(self)

    monkeypatch.setattr(LeaseKeeper, "acquire", flaky)
    async with fleet.host("h1") as m1, anyio.create_task_group() as tg:
        tg.start_soon(m1.run)
        await fleet.run_for(30 * S)
        reader = fleet.reader()
        tg.cancel_scope.cancel()
    assert ([], "h1-instance") == (faults, reader)


def _phantom_reader_ships(fleet: Fleet, *items: Observed) -> None:
    """A reader that is no monitor here (its lease held for a day) ships ``items``."""
    from review_monitor._store._stream import ship

    now = fleet.clock.now()
    with Store.open(fleet.url) as store, store.sync.write(at=now) as tx:
        held = read_lease(tx, READER)
        if held is None:
            acquire_lease(tx, READER, "phantom", now=now, ttl=24 * 60 * M)
        held = read_lease(tx, READER)
        assert held is not None
        assert ship(tx, IDENTITY, held.holder, held.term, list(items))


async def test_a_pr_the_reader_cannot_read_is_read_by_its_owner(fleet: Fleet) -> None:
    from review_monitor import PrGone

    a = fleet.fake.add_pr("octo-org/app", 1)
    fleet.setup({a: "h1"})
    _phantom_reader_ships(fleet, PrGone(pr=a, at=fleet.clock.now()))
    async with fleet.host("h1") as m1, anyio.create_task_group() as tg:
        tg.start_soon(m1.run)
        await fleet.run_for(2 * M + 30 * S)
        tg.cancel_scope.cancel()
    # Two minutes: two rounds of its own, one badge query each (h1 never read for the
    # fleet: the phantom holds the reader lease); the second found nothing new to tell.
    assert (2, [a]) == (fleet.fake.count("badge"), fleet.seen["h1"].prs)


async def test_an_owner_stops_reading_a_pr_once_the_reader_reads_it_again(
    fleet: Fleet,
) -> None:
    from review_monitor import PrGone, PrReadable

    a = fleet.fake.add_pr("octo-org/app", 1)
    fleet.setup({a: "h1"})
    _phantom_reader_ships(fleet, PrGone(pr=a, at=fleet.clock.now()))
    async with fleet.host("h1") as m1, anyio.create_task_group() as tg:
        tg.start_soon(m1.run)
        await fleet.run_for(M + 30 * S)
        _phantom_reader_ships(fleet, PrReadable(pr=a, at=fleet.clock.now()))
        await fleet.run_for(3 * M)
        tg.cancel_scope.cancel()
    assert 1 == fleet.fake.count("badge")


async def test_a_new_reader_waits_out_the_last_readers_backoff_of_a_missing_pr(
    fleet: Fleet,
) -> None:
    from review_monitor._missing import Missing
    from review_monitor._store._stream import ReaderState, save_reader_state

    a = fleet.fake.add_pr("octo-org/app", 1)
    fleet.fake.hide_repo("octo-org/app")
    fleet.setup({a: "h1"})
    now = fleet.clock.now()
    state = ReaderState(missing={a: Missing(since=now, misses=4, retry_at=now + 8 * M)}, alone={})
    with Store.open(fleet.url) as store, store.sync.write(at=now) as tx:
        save_reader_state(tx, IDENTITY, state)
    async with fleet.host("h1") as m1, anyio.create_task_group() as tg:
        tg.start_soon(m1.run)
        await fleet.run_for(3 * M)
        tg.cancel_scope.cancel()
    # The PR's badge is not read before its retry, eight minutes on (h1's own reads of
    # its unread PRs wait for the reader's NOT_FOUND, which never came in this run).
    assert 0 == fleet.fake.count("badge")


async def test_a_reader_saves_the_prs_github_answers_not_found(fleet: Fleet) -> None:
    from review_monitor._store._stream import read_reader_state

    a = fleet.fake.add_pr("octo-org/app", 1)
    fleet.fake.hide_repo("octo-org/app")
    fleet.setup({a: "h1"})
    async with fleet.host("h1") as m1, anyio.create_task_group() as tg:
        tg.start_soon(m1.run)
        await fleet.run_for(2 * M)
        tg.cancel_scope.cancel()
    with Store.open(fleet.url) as store, store.sync.read() as tx:
        state = read_reader_state(tx, IDENTITY)
    assert ([a], {}) == (list(state.missing), state.alone)


async def test_an_owner_is_told_a_repeat_that_replaced_an_observation_it_missed(
    fleet: Fleet,
) -> None:
    from review_monitor import PrStatus

    a = fleet.fake.add_pr("octo-org/app", 1)
    fleet.setup({a: "h1"})
    badge = PrStatus(
        pr=a,
        title="t",
        url="u",
        state="OPEN",
        merged=False,
        is_draft=False,
        head_ref_oid="abc",
        review_decision=None,
        check_state=None,
        comments=(),
        reviews=(),
        person_comments_from=None,
    )
    # The reader read the PR twice while h1 was down: the second read, a repeat to the
    # reader, replaced the first in the stream.  h1 saw neither.
    seen = Observation(pr=a, read_at=fleet.clock.now(), badge=badge, watches=(), interval=M)
    _phantom_reader_ships(fleet, seen)
    _phantom_reader_ships(fleet, msgspec.structs.replace(seen, repeat=True))
    async with fleet.host("h1") as m1, anyio.create_task_group() as tg:
        tg.start_soon(m1.run)
        await fleet.run_for(30 * S)
        tg.cancel_scope.cancel()
    assert [a] == fleet.seen["h1"].prs


async def test_a_host_that_heard_nothing_new_from_github_leaves_the_budget_row_alone(
    fleet: Fleet,
) -> None:
    # Two hundred owners in a quiet hour ask GitHub nothing: rewriting what they last
    # heard at every renewal would be 20 writes a second of the same row.
    from review_monitor.store import read_budget

    fleet.setup({fleet.fake.add_pr("octo-org/app", 1): "h1"})
    async with fleet.host("h1") as m1, anyio.create_task_group() as tg:
        tg.start_soon(m1.run)
        # Rounds at 0, 60 and 120 s, renewals every 10 s: the one at 130 s writes what
        # the round at 120 s heard, and nothing new is heard before the round at 180 s.
        await fleet.run_for(2 * M + 15 * S)
        with Store.open(fleet.url) as store, store.sync.write(at=fleet.clock.now()) as tx:
            tx.execute("DELETE FROM budget")
        await fleet.run_for(40 * S)
        with Store.open(fleet.url) as store, store.sync.read() as tx:
            quiet = read_budget(tx, IDENTITY)
        await fleet.run_for(20 * S)  # the round at 180 s hears GitHub again
        with Store.open(fleet.url) as store, store.sync.read() as tx:
            heard = read_budget(tx, IDENTITY)
        tg.cancel_scope.cancel()
    assert ({}, True) == (quiet, "graphql" in heard)


class BodyReader:
    """An owner's listener that, as the comment wake does, reads the bodies of the new
    comments it is handed through its monitor; how many requests each read sent."""

    name = "body-reader"

    def __init__(self, fake: FakeGitHub) -> None:
        self.fake = fake
        self.monitor: Monitor | None = None
        self.sent: list[int] = []
        self._read: set[str] = set()

    async def observe(self, item: Observed, now: datetime) -> None:
        if not isinstance(item, Observation) or self.monitor is None:
            return
        new = [c.id for c in item.badge.comments if c.id not in self._read]
        if new:
            before = len(self.fake.requests)
            await self.monitor.read_details(new)
            self.sent.append(len(self.fake.requests) - before)
            self._read.update(new)


async def test_an_owner_reads_no_body_the_reader_shipped_in_the_observation(
    fleet: Fleet,
) -> None:
    a, b = fleet.fake.add_pr("octo-org/app", 1), fleet.fake.add_pr("octo-org/app", 2)
    fleet.setup({a: "h1", b: "h2"})
    reader = BodyReader(fleet.fake)
    async with fleet.host("h1") as m1, anyio.create_task_group() as tg:
        tg.start_soon(m1.run)
        await fleet.run_for(20 * S)  # h1 campaigns first and reads for the fleet
        async with fleet.host("h2") as m2:
            reader.monitor = m2
            m2.add_listener(reader)
            tg.start_soon(m2.run)
            await fleet.run_for(2 * M)
            fleet.fake.post_comment(b, "alice", "Please rebase onto main.")
            await fleet.run_for(2 * M)
            tg.cancel_scope.cancel()
    # The reader read the comment's body with its batch, in one detail query, and
    # shipped it: h2's read of it sent nothing.
    assert ([0], 1) == (reader.sent, fleet.fake.count("detail"))
