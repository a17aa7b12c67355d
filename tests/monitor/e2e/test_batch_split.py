"""One bad PR never starves its batch: a refused badge query is split until the PR that
GitHub refuses is isolated, and only that PR is faulted."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

import pytest

from review_monitor import Fault, MonitorEvent, Observation, Observed, PrRef
from review_monitor.github import RetryPolicy
from review_monitor.testing import Fault as Injected

if TYPE_CHECKING:
    from conftest import World

pytestmark = pytest.mark.anyio

BAD = PrRef("octo-org", "repo0", 3_000_000_000)  # beyond GraphQL's 32-bit Int


class Told:
    name = "told"

    def __init__(self) -> None:
        self.prs: list[PrRef] = []

    async def observe(self, item: Observed, now: datetime) -> None:
        if isinstance(item, Observation):
            self.prs.append(item.pr)


async def _batch_with_a_bad_pr(world: World, good: int) -> list[PrRef]:
    prs = [world.fake.add_pr("octo-org/repo0", i + 1) for i in range(good)]
    await world.watch([*prs, BAD])
    return prs


async def test_a_pr_number_beyond_int_does_not_starve_its_batch(world: World) -> None:
    prs = await _batch_with_a_bad_pr(world, 9)
    told = Told()
    async with world.monitor() as monitor:
        monitor.add_listener(told)
        await monitor.poll_round()
    assert sorted(prs) == sorted(told.prs)


async def test_only_the_refused_pr_is_marked_faulted(world: World) -> None:
    await _batch_with_a_bad_pr(world, 9)
    events: list[MonitorEvent] = []
    async with world.monitor(on_event=events.append) as monitor:
        await monitor.poll_round()
    faults = [(e.kind, e.pr, e.detail) for e in events if isinstance(e, Fault)]
    detail = "badge query refused (argumentLiteralsIncompatible); read alone from now on"
    assert [("github", BAD, detail)] == faults


async def test_a_split_of_74_prs_costs_the_documented_requests(world: World) -> None:
    await _batch_with_a_bad_pr(world, 73)  # one full batch of 74
    async with world.monitor() as monitor:
        await monitor.poll_round()
    badge = [r for r in world.fake.requests if r.kind == "badge"]
    # The refused batch, then two halves on each of 6 levels (74, 37, 18, 9, 4, 2 -> 1),
    # one charged (1 point) and one refused (nothing); ceil(log2(74)) = 7 at most.
    assert (13, 6, 6) == (
        len(badge),
        sum(1 for r in badge if r.cost > 0),
        sum(r.cost for r in badge),
    )


async def test_a_known_bad_pr_is_read_alone_and_not_split_again(world: World) -> None:
    await _batch_with_a_bad_pr(world, 9)
    async with world.monitor() as monitor:
        await monitor.poll_round()
        world.fake.clear_requests()
        await monitor.poll_round()
    badge = [len(r.variables) for r in world.fake.requests if r.kind == "badge"]
    assert 2 == len(badge)


async def test_a_server_error_fails_the_batch_without_a_split(world: World) -> None:
    await _batch_with_a_bad_pr(world, 9)
    world.fake.inject(Injected(status=502, kind="badge"))
    told = Told()
    async with world.monitor(retry=RetryPolicy(attempts=1)) as monitor:
        monitor.add_listener(told)
        await monitor.poll_round()
    assert (1, []) == (world.fake.count("badge"), told.prs)
