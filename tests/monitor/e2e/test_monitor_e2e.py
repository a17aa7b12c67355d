"""The assembled monitor's own behaviour over loopback: budget, preflight, summary lines,
hints, extra listeners, the token, and its lifecycle."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

import anyio
import pytest

from review_monitor import (
    Monitor,
    MonitorConfig,
    Observation,
    Observed,
    PrRef,
    StoreLockedError,
)
from review_monitor.store import Store

if TYPE_CHECKING:
    from conftest import World

S = timedelta(seconds=1)
M = timedelta(minutes=1)
APP = "octo-org/app"


async def prs_in(world: World, count: int, repos: int = 1) -> list[PrRef]:
    prs = [world.fake.add_pr(f"octo-org/repo{i % repos}", i + 1) for i in range(count)]
    await world.watch(prs)
    return prs


def lines_of(logs: pytest.LogCaptureFixture, logger: str) -> list[str]:
    return [r.getMessage() for r in logs.records if r.name == logger]


@pytest.mark.anyio
@pytest.mark.parametrize("graphql_limit", [60])
async def test_a_tiny_budget_stretches_the_interval_and_says_so_once(
    world: World, logs: pytest.LogCaptureFixture
) -> None:
    await prs_in(world, 150, repos=3)
    start = world.clock.now()
    async with world.monitor(config=MonitorConfig(sweep=False)) as monitor, world.running(monitor):
        await world.run_for(20 * M)
    rounds = world.badge_requests()[::3]  # three batches a round, the first opens it
    notes = [line for line in lines_of(logs, "review_monitor.poller") if "poll budget" in line]
    assert (
        [start, start + M, start + M + 373 * S, start + M + 373 * S + 352 * S],
        [
            "poll budget: stretching the poll interval from 1m to 373s to keep the badge poll "
            "within 50% of the GitHub budget (3 points a round, 2500 points an hour allowed, "
            "57 points left)"
        ],
    ) == (rounds[:4], notes)


@pytest.mark.anyio
@pytest.mark.parametrize("graphql_limit", [60])
async def test_poll_interval_is_the_interval_the_governor_stretched_to(world: World) -> None:
    await prs_in(world, 150, repos=3)
    async with world.monitor(config=MonitorConfig(sweep=False)) as monitor, world.running(monitor):
        before = monitor.poll_interval
        await world.run_for(2 * M)
        after = monitor.poll_interval
    assert (M, 373 * S) == (before, after)


@pytest.mark.anyio
async def test_a_token_without_push_access_is_reported_once_clearly(
    world: World, logs: pytest.LogCaptureFixture
) -> None:
    await prs_in(world, 3)
    world.fake.set_push_access("octo-org/repo0", False)
    async with world.monitor() as monitor, world.running(monitor):
        await world.run_for(5 * M)
    assert [
        "permission lookups on octo-org/repo0 will all fail: the token needs push access to "
        "read collaborator permissions (403); until the token of octo-worker gets write access "
        "to octo-org/repo0, nobody's comment or review there counts as trusted"
    ] == [r.getMessage() for r in logs.records if r.levelno >= logging.ERROR]


@pytest.mark.anyio
async def test_each_round_logs_one_summary_line_without_any_author_or_text(
    world: World, logs: pytest.LogCaptureFixture
) -> None:
    prs = await prs_in(world, 120, repos=2)
    world.fake.post_comment(prs[0], "alice", "COMMENT-TEXT")
    async with world.monitor() as monitor, world.running(monitor):
        await world.run_for(2 * M + 50 * S)
    # The PRs of the first batch were read less than 30 s after they were opened (their
    # updatedAt), so they stay dirty for one more round; then the sweep alone reads them all
    # (the safety net's slot reads wait to fill a batch).
    assert [
        "poll round: 120 PRs in 2 batch(es), 2 badge points, 4998 points left (resets 10:00:00Z), "
        "interval 1m",
        "poll round: 120 PRs in 1 badge batch(es) and 1 sweep(s) (46 unchanged), 2 points, "
        "4996 points left (resets 10:00:00Z), interval 1m",
        "poll round: 120 PRs in 0 badge batch(es) and 1 sweep(s) (120 unchanged), 1 points, "
        "4995 points left (resets 10:00:00Z), interval 1m",
    ] == lines_of(logs, "review_monitor.poll")


@pytest.mark.anyio
async def test_a_round_with_a_failed_batch_says_so_in_its_summary(
    world: World, logs: pytest.LogCaptureFixture
) -> None:
    from review_monitor.testing import Fault

    await prs_in(world, 3)
    async with world.monitor(config=MonitorConfig(sweep=False)) as monitor, world.running(monitor):
        await world.run_for(30 * S)
        world.fake.inject(Fault(status=503, kind="badge", times=2))
        await world.run_for(M)
    assert (
        "poll round: 3 PRs in 1 batch(es), 0 badge points, 4999 points left (resets 10:00:00Z), "
        "interval 1m; 1 batch(es) failed"
    ) == lines_of(logs, "review_monitor.poll")[-1]


@pytest.mark.anyio
async def test_a_hint_polls_its_pr_soon_instead_of_at_the_next_round(world: World) -> None:
    prs = await prs_in(world, 3)
    start = world.clock.now()
    async with world.monitor() as monitor, world.running(monitor):
        await world.run_for(30 * S)
        monitor.poll_now(prs[1])
        await world.run_for(40 * S)
    assert [start, start + 32 * S, start + M] == world.badge_requests()


class Recorder:
    name = "recorder"

    def __init__(self) -> None:
        self.seen: list[tuple[str, int]] = []
        self.ran = anyio.Event()
        self.stopped = False

    async def observe(self, item: Observed, now: datetime) -> None:
        if isinstance(item, Observation):
            self.seen.append((item.badge.state, item.pr.number))

    async def run(self) -> None:
        self.ran.set()
        try:
            await anyio.sleep_forever()
        finally:
            self.stopped = True


@pytest.mark.anyio
async def test_an_added_listener_hears_every_pr_and_its_task_runs_beside_the_poller(
    world: World,
) -> None:
    prs = await prs_in(world, 2)
    recorder = Recorder()
    async with world.monitor() as monitor:
        monitor.add_listener(recorder, run=recorder.run)
        async with world.running(monitor):
            world.fake.merge(prs[0])
            await world.run_for(M)
    # PR 2, read again unchanged, is not told again (a repeat).
    assert (
        [("OPEN", 1), ("OPEN", 2), ("MERGED", 1)],
        True,
        True,
    ) == (recorder.seen, recorder.ran.is_set(), recorder.stopped)


@pytest.mark.anyio
async def test_the_token_is_found_in_the_environment_when_none_is_given(
    world: World, monkeypatch: pytest.MonkeyPatch, token: str
) -> None:
    monkeypatch.setenv("GH_TOKEN", token)
    await prs_in(world, 1)
    async with world.monitor(token=None) as monitor:
        await monitor.poll_round()
    assert [200] == [r.status for r in world.fake.requests if r.kind == "badge"]


@pytest.mark.anyio
async def test_a_second_monitor_on_the_same_store_is_refused_while_the_first_is_open(
    world: World,
) -> None:
    async with world.monitor():
        with pytest.raises(StoreLockedError):
            async with world.monitor():
                pass


@pytest.mark.anyio
async def test_leaving_the_monitor_releases_the_store_for_the_next_daemon(world: World) -> None:
    await prs_in(world, 1)
    async with world.monitor() as monitor, world.running(monitor):
        await world.run_for(M)
    with Store.open(world.store_path, lease=True) as store:
        assert 1 == len(store.sync.watches())


@pytest.mark.anyio
async def test_a_listener_cannot_be_added_twice_under_one_name(world: World) -> None:
    async with world.monitor() as monitor:
        monitor.add_listener(Recorder())
        with pytest.raises(ValueError, match="already added"):
            monitor.add_listener(Recorder())


def test_the_monitor_is_unusable_before_it_is_entered(tmp_path: Path) -> None:
    monitor = Monitor(store_path=tmp_path / "state.db", token="t")
    with pytest.raises(RuntimeError, match="not open"):
        monitor.poll_now(PrRef("octo-org", "app", 1))


@pytest.mark.anyio
async def test_a_token_that_cannot_say_who_it_is_skips_the_preflight_after_one_line(
    world: World, logs: pytest.LogCaptureFixture
) -> None:
    from review_monitor.testing import Fault

    await prs_in(world, 3)
    world.fake.inject(
        Fault(status=403, kind="other", path_contains="/user", message="Resource not accessible")
    )
    async with world.monitor() as monitor, world.running(monitor):
        await world.run_for(3 * M)
    asked = [r.path for r in world.fake.requests if r.path == "/user"]
    assert (
        ["/user"],
        ["could not read the token's own login (HTTP 403); the permission preflight is skipped"],
    ) == (asked, lines_of(logs, "review_monitor.monitor")[1:-1])


@pytest.mark.anyio
async def test_new_bodies_of_one_batch_are_read_in_one_detail_query(world: World) -> None:
    prs = await prs_in(world, 3)
    world.fake.set_permission("octo-org/repo0", "alice", "write")
    async with world.monitor() as monitor, world.running(monitor):
        await world.run_for(30 * S)
        for pr in prs:
            world.fake.post_review(pr, "alice", "APPROVED", f"BODY-{pr.number}")
        await world.run_for(M)
    texts = sorted(e.notice.text for e in world.entries())
    assert (1, [True, True, True]) == (
        world.fake.count("detail"),
        [f"BODY-{n}" in t for n, t in zip((1, 2, 3), texts, strict=True)],
    )


@pytest.mark.anyio
async def test_newly_failing_checks_of_one_batch_are_read_in_one_checks_query(
    world: World,
) -> None:
    prs = await prs_in(world, 3)
    async with world.monitor() as monitor, world.running(monitor):
        await world.run_for(30 * S)
        for pr in prs:
            world.fake.add_check_run(pr, "tests", summary=f"OUTPUT-{pr.number}")
        await world.run_for(M)
    texts = sorted(e.notice.text for e in world.entries())
    assert (1, [True, True, True]) == (
        world.fake.count("checks"),
        [f"OUTPUT-{n}" in t for n, t in zip((1, 2, 3), texts, strict=True)],
    )
