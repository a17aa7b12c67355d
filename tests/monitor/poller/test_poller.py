"""The poller: batches, spreading, hints, faults, missing PRs and listeners, on a virtual clock."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from datetime import datetime, timedelta

import anyio
import msgspec
import pytest

from review_monitor import (
    Dispatcher,
    GitHubError,
    InMemoryObservations,
    LookAgain,
    MonitorConfig,
    Observation,
    Observed,
    PageInfo,
    PrRef,
    PrStatus,
    RateLimitedError,
    RoundDone,
    TransientError,
)
from review_monitor._listener import Watch
from review_monitor._poller import Poller
from review_monitor.poll import BadgeBatch
from review_monitor.testing import VirtualClock

S = timedelta(seconds=1)


def status(pr: PrRef, *, title: str = "a change", state: str = "OPEN") -> PrStatus:
    return PrStatus(
        pr=pr,
        title=title,
        url=f"https://github.com/{pr.repo}/pull/{pr.number}",
        state=state,
        merged=state == "MERGED",
        is_draft=False,
        head_ref_oid="a" * 40,
        review_decision=None,
        check_state=None,
        comments=(),
        reviews=(),
        person_comments_from=None,
    )


class FakeBadges:
    """Answers from ``statuses``; ``missing`` PRs are reported missing; ``fail_next``
    raises for the next calls; records every call with the clock's time."""

    def __init__(self, clock: VirtualClock, cost: int = 1, remaining: int = 5000) -> None:
        self.clock = clock
        self.statuses: dict[PrRef, PrStatus] = {}
        self.missing: set[PrRef] = set()
        self.fail_next: list[GitHubError] = []
        self.fail_prs: dict[PrRef, GitHubError] = {}
        self.cost = cost
        self.remaining = remaining
        self.reset_at: datetime | None = None
        self.calls: list[tuple[datetime, tuple[PrRef, ...]]] = []

    async def __call__(self, prs: Sequence[PrRef]) -> BadgeBatch:
        self.calls.append((self.clock.now(), tuple(prs)))
        if self.fail_next:
            raise self.fail_next.pop(0)
        for pr in prs:
            if pr in self.fail_prs:
                raise self.fail_prs[pr]
        return BadgeBatch(
            statuses={p: self.statuses.get(p) or status(p) for p in prs if p not in self.missing},
            missing=tuple(p for p in prs if p in self.missing),
            cost=self.cost,
            remaining=self.remaining,
            reset_at=self.reset_at,
        )

    def polled(self, pr: PrRef) -> list[datetime]:
        return [t for t, prs in self.calls if pr in prs]


class FakeWatches:
    def __init__(self, watches: Sequence[Watch] = ()) -> None:
        self.list = list(watches)

    async def watches(self) -> Sequence[Watch]:
        return list(self.list)


class Call(msgspec.Struct, frozen=True):
    watches: tuple[Watch, ...]
    new: PrStatus
    now: datetime


class Recorder:
    def __init__(self, name: str = "recorder", fail_on: set[PrRef] | None = None) -> None:
        self._name = name
        self.fail_on = fail_on or set()
        self.calls: list[Call] = []
        self.rounds = 0

    @property
    def name(self) -> str:
        return self._name

    async def observe(self, item: Observed, now: datetime) -> None:
        if isinstance(item, RoundDone):
            self.rounds += 1
        if not isinstance(item, Observation):
            return
        self.calls.append(Call(item.watches, item.badge, now))
        if item.pr in self.fail_on:
            raise RuntimeError("secret comment text")

    def seen(self, pr: PrRef) -> list[Call]:
        return [c for c in self.calls if c.new.pr == pr]


def prs(n: int) -> list[PrRef]:
    return [PrRef(owner="octo-org", name="octo-repo", number=i) for i in range(1, n + 1)]


A, B, C = prs(3)


@asynccontextmanager
async def running(poller: Poller, clock: VirtualClock) -> AsyncIterator[None]:
    async with anyio.create_task_group() as tg:
        tg.start_soon(poller.run)
        await clock.settle()
        yield
        tg.cancel_scope.cancel()


def make(
    clock: VirtualClock,
    badges: FakeBadges,
    watched: Sequence[PrRef],
    *listeners: Recorder,
    batch_size: int = 50,
    interval: str = "60s",
) -> Poller:
    config = MonitorConfig.model_validate(
        {"batch_size": batch_size, "poll_interval": interval, "missing_pr_interval": "15m"}
    )
    return Poller(
        watches=FakeWatches([Watch("w1", pr) for pr in watched]),
        read_badges=badges,
        listeners=listeners or (Recorder(),),
        clock=clock,
        config=config,
    )


@pytest.fixture
def clock() -> VirtualClock:
    return VirtualClock()


@pytest.fixture
def badges(clock: VirtualClock) -> FakeBadges:
    return FakeBadges(clock)


@pytest.mark.anyio
async def test_each_listener_gets_each_new_badge(clock: VirtualClock, badges: FakeBadges) -> None:
    rec = Recorder()
    first, second = status(A, title="one"), status(A, title="two")
    badges.statuses[A] = first
    async with running(make(clock, badges, [A], rec), clock):
        badges.statuses[A] = second
        await clock.advance(60 * S)
    assert [first, second] == [c.new for c in rec.calls]


@pytest.mark.anyio
async def test_each_round_ends_with_a_round_done(clock: VirtualClock, badges: FakeBadges) -> None:
    rec = Recorder()
    async with running(make(clock, badges, [A], rec), clock):
        await clock.advance(60 * S)
    assert 2 == rec.rounds


@pytest.mark.anyio
async def test_a_listener_gets_every_watch_of_its_pr_in_one_call(
    clock: VirtualClock, badges: FakeBadges
) -> None:
    rec = Recorder()
    poller = Poller(
        watches=FakeWatches([Watch("w2", A), Watch("orchestrator", A)]),
        read_badges=badges,
        listeners=[rec],
        clock=clock,
    )
    async with running(poller, clock):
        pass
    assert [(Watch("orchestrator", A), Watch("w2", A))] == [c.watches for c in rec.calls]


@pytest.mark.anyio
async def test_prs_are_read_in_batches_of_batch_size(
    clock: VirtualClock, badges: FakeBadges
) -> None:
    async with running(make(clock, badges, prs(5), batch_size=2), clock):
        await clock.advance(59 * S)
    assert [2, 2, 1] == [len(p) for _, p in badges.calls]


@pytest.mark.anyio
async def test_the_batches_of_a_round_are_spread_over_the_interval(
    clock: VirtualClock, badges: FakeBadges
) -> None:
    t0 = clock.now()
    async with running(make(clock, badges, prs(3), batch_size=1), clock):
        await clock.advance(90 * S)
    assert [t0, t0 + 20 * S, t0 + 40 * S, t0 + 60 * S, t0 + 80 * S] == [t for t, _ in badges.calls]


@pytest.mark.anyio
async def test_a_failed_batch_calls_no_listener_for_its_prs(
    clock: VirtualClock, badges: FakeBadges
) -> None:
    rec = Recorder()
    badges.fail_prs[A] = TransientError("server error", status=502)
    async with running(make(clock, badges, [A, B], rec, batch_size=1), clock):
        await clock.advance(59 * S)
    assert [B] == [c.new.pr for c in rec.calls]


@pytest.mark.anyio
async def test_a_failed_batch_logs_one_line_without_the_error_text(
    clock: VirtualClock, badges: FakeBadges, caplog: pytest.LogCaptureFixture
) -> None:
    badges.fail_next.append(TransientError("ghp_secrettoken in a body", status=502))
    with caplog.at_level(logging.WARNING, logger="review_monitor.poller"):
        async with running(make(clock, badges, [A]), clock):
            pass
    assert [
        "badge poll of 1 PRs failed: TransientError (HTTP 502); their listeners were not "
        "called, the next poll tries again"
    ] == [r.getMessage() for r in caplog.records]


@pytest.mark.anyio
async def test_the_poll_after_a_failure_calls_the_listeners_again(
    clock: VirtualClock, badges: FakeBadges
) -> None:
    rec = Recorder()
    badges.fail_next.append(GitHubError("boom"))
    async with running(make(clock, badges, [A], rec), clock):
        await clock.advance(60 * S)
    assert [clock.now()] == [c.now for c in rec.calls]


@pytest.mark.anyio
async def test_a_rate_limit_pauses_polling_until_github_allows(
    clock: VirtualClock, badges: FakeBadges
) -> None:
    t0 = clock.now()
    badges.fail_next.append(RateLimitedError("limited", retry_at=t0 + 150 * S, secondary=True))
    async with running(make(clock, badges, [A]), clock):
        await clock.advance(200 * S)
    assert [t0, t0 + 150 * S] == [t for t, _ in badges.calls]


@pytest.mark.anyio
async def test_a_listener_that_raises_does_not_stop_the_others_or_the_poller(
    clock: VirtualClock, badges: FakeBadges
) -> None:
    failing, other = Recorder("failing", fail_on={A}), Recorder("other")
    async with running(make(clock, badges, [A], failing, other), clock):
        badges.statuses[A] = status(A, title="renamed")
        await clock.advance(60 * S)
    assert (2, 2) == (len(failing.calls), len(other.calls))


@pytest.mark.anyio
async def test_a_badge_read_again_unchanged_is_not_told_again(
    clock: VirtualClock, badges: FakeBadges
) -> None:
    rec = Recorder()
    async with running(make(clock, badges, [A], rec), clock):
        await clock.advance(60 * S)
    assert [status(A)] == [c.new for c in rec.calls]


@pytest.mark.anyio
async def test_a_full_window_read_again_unchanged_is_told_again(
    clock: VirtualClock, badges: FakeBadges
) -> None:
    # A comment listed late may hide behind a full window: the wake's late check needs
    # the look.
    rec = Recorder()
    full = msgspec.structs.replace(status(A), comments_page=PageInfo(has_previous_page=True))
    badges.statuses[A] = full
    async with running(make(clock, badges, [A], rec), clock):
        await clock.advance(60 * S)
    assert [full] * 2 == [c.new for c in rec.calls]


class Keeper(Recorder):
    keeps_repeats = True


@pytest.mark.anyio
async def test_a_listener_that_keeps_the_stream_is_told_a_badge_read_again_unchanged(
    clock: VirtualClock, badges: FakeBadges
) -> None:
    rec = Keeper()
    async with running(make(clock, badges, [A], rec), clock):
        await clock.advance(60 * S)
    assert [status(A)] * 2 == [c.new for c in rec.calls]


@pytest.mark.anyio
async def test_a_badge_read_again_with_a_new_watch_is_told(
    clock: VirtualClock, badges: FakeBadges
) -> None:
    rec = Recorder()
    watches = FakeWatches([Watch("w1", A)])
    poller = Poller(watches=watches, read_badges=badges, listeners=[rec], clock=clock)
    async with running(poller, clock):
        watches.list.append(Watch("w2", A))
        await clock.advance(60 * S)
    assert [1, 2] == [len(c.watches) for c in rec.calls]


@pytest.mark.anyio
async def test_a_listener_that_raised_gets_the_observation_again_at_the_next_round_end(
    clock: VirtualClock,
) -> None:
    rec = Recorder(fail_on={A})
    source = InMemoryObservations()
    dispatcher = Dispatcher(source, [rec], now=clock.now)
    seen = source.publish(
        Observation(pr=A, read_at=clock.now(), badge=status(A), watches=(), interval=60 * S)
    )
    told: list[int] = []
    for _ in range(3):
        await dispatcher.deliver()
        told.append(len(rec.calls))
        source.publish(RoundDone(at=clock.now()))
    await dispatcher.deliver()
    assert ([1, 1, 2], [seen.badge] * 3) == (told, [c.new for c in rec.calls])


@pytest.mark.anyio
async def test_a_listener_that_raised_gets_the_observation_again_though_a_repeat_replaced_it(
    clock: VirtualClock,
) -> None:
    rec = Recorder(fail_on={A})
    source = InMemoryObservations()
    dispatcher = Dispatcher(source, [rec], now=clock.now)
    seen = Observation(pr=A, read_at=clock.now(), badge=status(A), watches=(), interval=60 * S)
    source.publish(seen)
    await dispatcher.deliver()
    source.publish(msgspec.structs.replace(seen, read_at=clock.now() + 60 * S, repeat=True))
    for _ in range(2):  # the end of the round it failed in, then the next one's
        source.publish(RoundDone(at=clock.now()))
        await dispatcher.deliver()
    assert 2 == len(rec.calls)


@pytest.mark.anyio
async def test_a_listener_that_asks_to_look_again_is_not_logged_and_gets_it_again(
    clock: VirtualClock, caplog: pytest.LogCaptureFixture
) -> None:
    class Again(Recorder):
        async def observe(self, item: Observed, now: datetime) -> None:
            await super().observe(item, now)
            if isinstance(item, Observation):
                raise LookAgain

    rec = Again()
    source = InMemoryObservations()
    dispatcher = Dispatcher(source, [rec], now=clock.now)
    source.publish(Observation(pr=A, read_at=clock.now(), badge=status(A), watches=(), interval=S))
    with caplog.at_level(logging.DEBUG):
        for _ in range(2):
            source.publish(RoundDone(at=clock.now()))
            await dispatcher.deliver()
    assert (2, []) == (len(rec.calls), caplog.records)


@pytest.mark.anyio
async def test_each_listener_keeps_its_own_cursor(clock: VirtualClock) -> None:
    first, second = Recorder("first"), Recorder("second")
    source = InMemoryObservations()
    dispatcher = Dispatcher(source, [first, second], now=clock.now)
    seen = source.publish(
        Observation(pr=A, read_at=clock.now(), badge=status(A), watches=(), interval=S)
    )
    await dispatcher.deliver()
    await dispatcher.deliver()
    assert ((seen.seq, seen.seq), 1, 1) == (
        (dispatcher.cursor("first"), dispatcher.cursor("second")),
        len(first.calls),
        len(second.calls),
    )


@pytest.mark.anyio
async def test_a_listener_that_settled_is_not_given_the_observation_again(
    clock: VirtualClock, badges: FakeBadges
) -> None:
    rec = Recorder()
    poller = make(clock, badges, [A], rec)
    await poller.poll_round()
    badges.missing.add(A)
    await poller.poll_round()
    assert 1 == len(rec.calls)


@pytest.mark.anyio
async def test_a_listener_failure_is_logged_without_its_message(
    clock: VirtualClock, badges: FakeBadges, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO, logger="review_monitor.poller"):
        async with running(make(clock, badges, [A], Recorder("x", fail_on={A})), clock):
            pass
    assert [f"listener x failed on {A}: RuntimeError"] == [r.getMessage() for r in caplog.records]


@pytest.mark.anyio
async def test_a_missing_pr_is_reported_once_then_polled_after_1_2_4_8_and_15_minutes(
    clock: VirtualClock, badges: FakeBadges, caplog: pytest.LogCaptureFixture
) -> None:
    t0 = clock.now()
    badges.missing.add(A)
    with caplog.at_level(logging.WARNING, logger="review_monitor.poller"):
        async with running(make(clock, badges, [A, B], batch_size=1), clock):
            await clock.advance(40 * 60 * S)
    minutes = [0, 1, 3, 7, 15, 30]
    assert ([t0 + m * 60 * S for m in minutes], 1) == (badges.polled(A), len(caplog.records))


@pytest.mark.anyio
async def test_a_missing_pr_read_again_starts_its_backoff_at_one_minute(
    clock: VirtualClock, badges: FakeBadges
) -> None:
    t0 = clock.now()
    badges.missing.add(A)
    async with running(make(clock, badges, [A]), clock):
        await clock.advance(4 * 60 * S)  # missed at 0, 1 and 3 minutes
        badges.missing.discard(A)
        await clock.advance(4 * 60 * S)  # read at 7 and every minute from then
        badges.missing.add(A)
        await clock.advance(4 * 60 * S)  # missed at 9, tried again at 10
    minutes = [0, 1, 3, 7, 8, 9, 10, 12]
    assert [t0 + m * 60 * S for m in minutes] == badges.polled(A)


@pytest.mark.anyio
async def test_the_next_try_of_a_missing_pr_is_told(
    clock: VirtualClock, badges: FakeBadges
) -> None:
    t0 = clock.now()
    badges.missing.add(A)
    poller = make(clock, badges, [A, B])
    async with running(poller, clock):
        await clock.advance(90 * S)
    assert {A: t0 + 3 * 60 * S} == poller.retry_times()


@pytest.mark.anyio
async def test_a_poll_request_is_served_by_the_next_round_despite_the_backoff(
    clock: VirtualClock, badges: FakeBadges
) -> None:
    t0 = clock.now()
    badges.missing.add(A)
    poller = make(clock, badges, [A])
    async with running(poller, clock):
        await clock.advance(185 * S)  # missed at 0, 1 and 3 minutes: next try at 7
        poller.request_poll(A)
        await clock.advance(60 * S)
    assert [t0, t0 + 60 * S, t0 + 180 * S, t0 + 240 * S] == badges.polled(A)


@pytest.mark.anyio
async def test_a_poll_request_waits_for_hint_min_gap_after_the_last_read(
    clock: VirtualClock, badges: FakeBadges
) -> None:
    t0 = clock.now()
    badges.missing.add(A)
    config = MonitorConfig.model_validate({"poll_interval": "60s", "hint_min_gap": "90s"})
    poller = Poller(
        watches=FakeWatches([Watch("w1", A)]),
        read_badges=badges,
        listeners=(Recorder(),),
        clock=clock,
        config=config,
    )
    async with running(poller, clock):
        await clock.advance(185 * S)  # missed at 0, 1 and 3 minutes: next try at 7
        poller.request_poll(A)
        await clock.advance(120 * S)  # the round at 4 minutes is 60s after the last read
    assert [t0, t0 + 60 * S, t0 + 180 * S, t0 + 300 * S] == badges.polled(A)


async def polls_of_c_hinted_at_50s(
    clock: VirtualClock, badges: FakeBadges, *, hints: int = 1, seen: timedelta = 0 * S
) -> list[datetime]:
    """Hint C ``hints`` times 50 s in, its activity ``seen`` from then (a fleet hint's
    host wrote it earlier, or its clock runs ahead); C's polls until 55 s."""
    poller = make(clock, badges, [A, B, C], batch_size=1)
    async with running(poller, clock):
        await clock.advance(50 * S)
        for _ in range(hints):
            poller.poll_now(C, seen_at=clock.now() + seen if seen else None)
        await clock.advance(5 * S)
    return badges.polled(C)


@pytest.mark.anyio
async def test_hints_for_one_pr_arriving_together_cause_one_poll_soon(
    clock: VirtualClock, badges: FakeBadges
) -> None:
    t0 = clock.now()
    assert [t0 + 40 * S, t0 + 52 * S] == await polls_of_c_hinted_at_50s(clock, badges, hints=3)


@pytest.mark.anyio
async def test_a_hints_delay_counts_from_when_its_activity_was_seen(
    clock: VirtualClock, badges: FakeBadges
) -> None:
    t0 = clock.now()  # a fleet hint a second in transit
    assert [t0 + 40 * S, t0 + 51 * S] == await polls_of_c_hinted_at_50s(clock, badges, seen=-S)


@pytest.mark.anyio
async def test_a_hint_seen_by_a_clock_running_ahead_waits_only_its_delay(
    clock: VirtualClock, badges: FakeBadges
) -> None:
    t0 = clock.now()  # another host's clock, a minute ahead
    assert [t0 + 40 * S, t0 + 52 * S] == await polls_of_c_hinted_at_50s(clock, badges, seen=60 * S)


@pytest.mark.anyio
async def test_a_hint_for_an_unwatched_pr_polls_nothing(
    clock: VirtualClock, badges: FakeBadges
) -> None:
    poller = make(clock, badges, [A])
    async with running(poller, clock):
        poller.poll_now(B)
        await clock.advance(10 * S)
    assert [] == badges.polled(B)


@pytest.mark.anyio
async def test_cancelling_the_poller_stops_it_cleanly(
    clock: VirtualClock, badges: FakeBadges
) -> None:
    async with running(make(clock, badges, [A]), clock):
        pass
    await clock.advance(600 * S)
    assert (1, 0) == (len(badges.calls), clock.sleepers)


@pytest.mark.anyio
async def test_a_costly_poll_is_stretched_by_the_budget_governor(
    clock: VirtualClock, badges: FakeBadges, caplog: pytest.LogCaptureFixture
) -> None:
    t0 = clock.now()
    badges.cost = 100  # 100 points a minute would be 6,000 points an hour
    with caplog.at_level(logging.WARNING, logger="review_monitor.poller"):
        async with running(make(clock, badges, [A]), clock):
            await clock.advance(600 * S)
    # 2,500 points an hour allowed: a 100-point round every 144 seconds.
    assert ([t0, t0 + 60 * S, t0 + 204 * S, t0 + 348 * S, t0 + 492 * S], 1) == (
        [t for t, _ in badges.calls],
        len(caplog.records),
    )


@pytest.mark.anyio
async def test_a_new_poller_reads_every_pr_at_its_first_round(
    clock: VirtualClock, badges: FakeBadges
) -> None:
    first, second = Recorder(), Recorder()
    async with running(make(clock, badges, [A, B], first), clock):
        pass
    async with running(make(clock, badges, [A, B], second), clock):
        pass
    assert [A, B] == [c.new.pr for c in second.calls]


@pytest.mark.anyio
async def test_poll_round_polls_every_batch_once(clock: VirtualClock, badges: FakeBadges) -> None:
    rec = Recorder()
    await make(clock, badges, prs(3), rec, batch_size=2).poll_round()
    assert (2, 3) == (len(badges.calls), len(rec.calls))


@pytest.mark.anyio
async def test_a_pr_is_polled_on_hints_at_most_once_per_hint_min_gap(
    clock: VirtualClock, badges: FakeBadges
) -> None:
    t0 = clock.now()
    poller = make(clock, badges, [A, B, C], batch_size=1)
    async with running(poller, clock):
        await clock.advance(50 * S)
        for _ in range(30):  # a hint every second, from 50 s to 79 s
            poller.poll_now(C)
            await clock.advance(S)
        await clock.advance(10 * S)
    expected = [t0 + 40 * S, t0 + 52 * S, t0 + 62 * S, t0 + 72 * S, t0 + 82 * S]
    assert expected == badges.polled(C)


@pytest.mark.anyio
async def test_hints_past_the_hint_share_wait_for_the_governor_and_share_one_poll(
    clock: VirtualClock, badges: FakeBadges
) -> None:
    t0 = clock.now()
    watched = prs(60)
    poller = make(clock, badges, watched, interval="1h")  # rounds at 0 s and 30 min
    poller.governor.hint_share = 0.01  # 50 points an hour: a burst of 5, then one per 80 s
    async with running(poller, clock):
        await clock.advance(59 * S)
        for pr in watched[10:17]:  # seven PRs hinted one second apart
            poller.poll_now(pr)
            await clock.advance(S)
        await clock.advance(100 * S)
    hinted = [(t - t0, batch) for t, batch in badges.calls if t > t0]
    expected = [(n * S, (pr,)) for n, pr in zip(range(61, 66), watched[10:15], strict=True)]
    # 0.05 points left after the burst: the last two wait 76 s for one point, and share it.
    assert [*expected, (141 * S, tuple(watched[15:17]))] == hinted
