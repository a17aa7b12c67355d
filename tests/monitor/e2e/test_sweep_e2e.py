"""The sweep through the assembled Monitor on FakeGitHub: full badges only where something
changed (and where the safety net's spread slots fall), late listings, the safety net and
a failed sweep."""

from __future__ import annotations

from collections import Counter
from datetime import datetime, timedelta
from itertools import pairwise
from typing import TYPE_CHECKING

import pytest

from review_monitor import MonitorConfig, Observation, Observed, PollRound, PrRef
from review_monitor._sweep_book import net_slot
from review_monitor.testing import Fault

if TYPE_CHECKING:
    from conftest import World

S = timedelta(seconds=1)
M = timedelta(minutes=1)

pytestmark = pytest.mark.anyio


class Listed:
    """Records, per PR, the comment ids each telling listed (with ``repeats``, also the
    badges read again that showed nothing new, which a decider is not told)."""

    name = "listed"

    def __init__(self, *, repeats: bool = False) -> None:
        self.keeps_repeats = repeats
        self.told: list[tuple[int, tuple[str, ...]]] = []
        self.at: list[datetime] = []  # when each telling's badge was read

    async def observe(self, item: Observed, now: datetime) -> None:
        if isinstance(item, Observation):
            self.told.append((item.pr.number, tuple(c.id for c in item.badge.comments)))
            self.at.append(item.read_at)

    def first_listing(self, number: int, comment: str) -> int | None:
        """The index of the first telling of PR ``number`` that listed ``comment``."""
        tellings = [ids for n, ids in self.told if n == number]
        return next((k for k, ids in enumerate(tellings) if comment in ids), None)


async def opened(world: World, count: int) -> list[PrRef]:
    prs = [world.fake.add_pr(f"octo-org/repo{i % 2}", i + 1) for i in range(count)]
    await world.watch(prs)
    await world.clock.advance_to(world.clock.now() + 10 * M)  # opened a while ago
    return prs


def slotted(prs: list[PrRef], since: datetime, until: datetime, every: timedelta) -> set[int]:
    """The PRs with a safety-net slot from ``since`` to before ``until`` (less than
    ``every`` apart): those the net may read then."""
    return {pr.number for pr in prs if since <= net_slot(pr, until, every)}


def kinds_since(world: World, start: int) -> list[str]:
    return [r.kind for r in world.fake.requests[start:] if r.path == "/graphql"]


async def test_a_quiet_round_is_one_sweep_and_no_badge(world: World) -> None:
    await opened(world, 150)
    async with world.monitor() as monitor, world.running(monitor):
        await world.run_for(50 * S)  # the baseline: three batches, 20 s apart
        start = len(world.fake.requests)
        await world.run_for(3 * M)
    # The PRs whose safety-net slot falls meanwhile (about 45) wait to fill a batch.
    assert ["sweep"] * 3 == kinds_since(world, start)


async def test_a_pr_the_sweep_proves_quiet_is_told_nothing(world: World) -> None:
    prs = await opened(world, 150)
    listed = Listed()
    async with world.monitor() as monitor:
        monitor.add_listener(listed)
        async with world.running(monitor):
            await world.run_for(50 * S)  # the baseline: every PR observed once
            told = len(listed.told)
            world.fake.post_comment(prs[80], "alice", "please rename")
            await world.run_for(3 * M)
    # PR 81 is read at the change and once more while it settles (late listings); the
    # safety net's reads of others meanwhile found nothing new to tell.
    assert (150, {81}) == (told, {n for n, _ in listed.told[told:]})


async def test_a_new_comment_gets_its_pr_one_badge_and_its_listeners_hear_it(
    world: World,
) -> None:
    prs = await opened(world, 150)
    listed = Listed(repeats=True)
    rounds: list[PollRound] = []
    on_event = lambda e: rounds.append(e) if isinstance(e, PollRound) else None  # noqa: E731
    async with world.monitor(on_event=on_event) as monitor:
        monitor.add_listener(listed)
        async with world.running(monitor):
            await world.run_for(50 * S)
            comment = world.fake.post_comment(prs[80], "alice", "please rename")
            start, told = len(world.fake.requests), len(listed.told)
            await world.run_for(M)
    # One badge batch (of that PR and those the safety net reads this round: the others
    # are unchanged), then the new comment's body (the monitor's prefetch); the listener
    # hears the comment at its second telling.
    read = len(listed.told) - told
    assert (["sweep", "badge", "detail"], (1, 1, 150 - read), 1) == (
        kinds_since(world, start),
        (rounds[-1].batches, rounds[-1].sweeps, rounds[-1].swept),
        listed.first_listing(81, comment),
    )


async def test_a_comment_listed_late_is_read_at_the_next_round_after_the_grace(
    world: World,
) -> None:
    prs = await opened(world, 150)
    listed = Listed()
    async with world.monitor() as monitor:
        monitor.add_listener(listed)
        async with world.running(monitor):
            await world.run_for(50 * S)
            comment = world.fake.post_comment(prs[0], "alice", "late", listed_late=20 * S)
            await world.run_for(2 * M)
    # Tellings of PR 1: the baseline, the round 10 s after the comment (not listed yet,
    # still settling), and the round 70 s after it, which lists it.
    assert 2 == listed.first_listing(1, comment)


async def test_a_check_that_fails_without_moving_updated_at_is_seen_by_the_sweep(
    world: World,
) -> None:
    prs = await opened(world, 150)
    async with world.monitor() as monitor, world.running(monitor):
        await world.run_for(50 * S)
        world.fake.add_check_run(prs[2], "ci", conclusion="FAILURE")
        start = len(world.fake.requests)
        await world.run_for(M)
    assert ["sweep", "badge", "checks"] == kinds_since(world, start)


async def test_a_rounds_newly_failing_checks_are_one_query_though_settling_prs_sit_between(
    world: World,
) -> None:
    prs = await opened(world, 20)
    config = world.config(batch_size=4, sweep_grace=90 * S)  # a round later: settling
    async with world.monitor(config) as monitor, world.running(monitor):
        await world.run_for(M)  # the baseline
        for pr in prs[1:5]:
            world.fake.post_comment(pr, "alice", "please rename")
        await world.run_for(M)  # PRs 2-5 read, and read again next round to settle
        for pr in (prs[0], prs[5]):
            world.fake.add_check_run(pr, "ci", conclusion="FAILURE")
        start = len(world.fake.requests)
        await world.run_for(M + 45 * S)  # the round's two batches, 30 s apart
    # In watch order (PRs 1, 3, 5 | 2, 4, 6) the failing PRs 1 and 6 would fall in both
    # of the round's badge batches, a checks query each; the round's changes go before
    # the PRs read again to settle, so the two share one batch and one checks query.
    kinds = kinds_since(world, start)
    assert (2, 1) == (kinds.count("badge"), kinds.count("checks"))


async def test_the_safety_net_reads_every_badge_within_the_full_badge_interval(
    world: World,
) -> None:
    await opened(world, 150)
    listed = Listed(repeats=True)
    config = MonitorConfig(full_badge_interval=5 * M)
    async with world.monitor(config=config) as monitor:
        monitor.add_listener(listed)
        async with world.running(monitor):
            await world.run_for(11 * M + 30 * S)
    reads: dict[int, list[datetime]] = {}
    for (n, _), at in zip(listed.told, listed.at, strict=True):
        reads.setdefault(n, []).append(at)
    longest = max(b - a for at in reads.values() for a, b in pairwise([*at, world.clock.now()]))
    assert (150, True) == (len(reads), longest <= 5 * M)


async def test_the_safety_net_spreads_its_reads_over_the_rounds_of_its_interval(
    world: World,
) -> None:
    await opened(world, 150)
    listed = Listed(repeats=True)
    config = MonitorConfig(full_badge_interval=5 * M)
    async with world.monitor(config=config) as monitor:
        monitor.add_listener(listed)
        async with world.running(monitor):
            start = world.clock.now()
            await world.run_for(11 * M + 30 * S)
    # After the baseline's three batches (74, 74 and 2 PRs), a fifth of the PRs' slots
    # fall in each round; their reads wait to fill a batch of 74 (what 10 PRs would cost),
    # so each five minutes the net reads one batch in each of two rounds (with a few PRs
    # the age rule adds), never the whole cohort in one round.
    per_round = Counter((at - start) // M for at in listed.at[150:])
    assert (4, True) == (len(per_round), max(per_round.values()) <= 80)


async def test_a_failed_sweep_reads_every_badge_that_round(world: World) -> None:
    await opened(world, 150)
    async with world.monitor() as monitor, world.running(monitor):
        await world.run_for(50 * S)
        # Errors and no data: a refusal that halving cannot help.
        world.fake.inject(Fault.graphql_errors({"message": "Something went wrong"}, kind="sweep"))
        start = len(world.fake.requests)
        await world.run_for(M)
    assert ["sweep", "badge", "badge", "badge"] == kinds_since(world, start)


async def test_without_the_sweep_every_round_reads_every_badge(world: World) -> None:
    await opened(world, 150)
    config = MonitorConfig(sweep=False)
    async with world.monitor(config=config) as monitor, world.running(monitor):
        await world.run_for(50 * S)
        start = len(world.fake.requests)
        await world.run_for(2 * M)
    assert ["badge"] * 6 == kinds_since(world, start)


async def test_prs_that_fit_one_badge_batch_are_read_without_a_sweep(world: World) -> None:
    await opened(world, 74)
    async with world.monitor() as monitor, world.running(monitor):
        await world.run_for(50 * S)
        start = len(world.fake.requests)
        await world.run_for(2 * M)
    assert ["badge", "badge"] == kinds_since(world, start)


async def test_a_poll_request_reads_its_pr_although_the_sweep_saw_no_change(
    world: World,
) -> None:
    prs = await opened(world, 150)
    async with world.monitor() as monitor, world.running(monitor):
        await world.run_for(50 * S)  # the baseline: three batches, 20 s apart
        monitor.request_poll(prs[80])
        start = len(world.fake.requests)
        await world.run_for(M)
    assert ["sweep", "badge"] == kinds_since(world, start)
