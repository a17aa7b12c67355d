"""Faults injected through FakeGitHub over loopback: the monitor never crashes, no mark
moves on a failure, and each fault gets one clear log line (no token, no text)."""

from __future__ import annotations

from datetime import UTC, timedelta
from typing import TYPE_CHECKING

import pytest

from review_monitor import Monitor, PrRef
from review_monitor._queries import badge_layout
from review_monitor.poll import MonitorNotices
from review_monitor.store import SyncStore
from review_monitor.testing import Fault

if TYPE_CHECKING:
    from conftest import World

S = timedelta(seconds=1)
M = timedelta(minutes=1)
APP = "octo-org/app"


async def three_prs(world: World) -> tuple[PrRef, PrRef, PrRef]:
    fake = world.fake
    prs = (fake.add_pr(APP, 1), fake.add_pr(APP, 2), fake.add_pr(APP, 3))
    fake.set_permission(APP, "alice", "write")
    await world.watch(prs)
    return prs


def poller_lines(logs: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in logs.records if r.name == "review_monitor.poller"]


def kinds(world: World) -> list[tuple[int, str]]:
    return [(e.pr.number, e.notice.kind) for e in world.entries()]


async def mark_of(monitor: Monitor, pr: PrRef) -> bytes | None:
    mark = await monitor.store.call(SyncStore.load_mark, pr, MonitorNotices.name)
    return None if mark is None else mark.blob


@pytest.mark.anyio
async def test_a_5xx_fails_the_poll_without_moving_a_mark_and_the_next_poll_catches_up(
    world: World, logs: pytest.LogCaptureFixture
) -> None:
    a, _, _ = await three_prs(world)
    async with world.monitor() as monitor, world.running(monitor):
        await world.run_for(30 * S)
        world.fake.merge(a)
        before = await mark_of(monitor, a)
        world.fake.inject(Fault(status=502, kind="badge", times=2))
        await world.run_for(M)
        failed = (kinds(world), await mark_of(monitor, a) == before, poller_lines(logs))
        await world.run_for(M)
    assert (
        [],
        True,
        [
            "badge poll of 3 PRs failed: TransientError (HTTP 502); their listeners were "
            "not called, the next poll tries again"
        ],
        [(1, "pr-merged")],
    ) == (*failed, kinds(world))


@pytest.mark.anyio
async def test_a_timeout_fails_the_poll_with_one_line_and_the_next_poll_catches_up(
    world: World, logs: pytest.LogCaptureFixture
) -> None:
    a, _, _ = await three_prs(world)
    async with world.monitor(timeout="1s") as monitor, world.running(monitor):
        await world.run_for(30 * S)
        world.fake.merge(a)
        world.fake.inject(Fault.time_out(kind="badge", times=2))
        await world.run_for(M)
        failed = (kinds(world), poller_lines(logs))
        await world.run_for(M)
    assert (
        [],
        [
            "badge poll of 3 PRs failed: TransientError; their listeners were not called, "
            "the next poll tries again"
        ],
        [(1, "pr-merged")],
    ) == (*failed, kinds(world))


@pytest.mark.anyio
async def test_a_secondary_limit_pauses_every_poll_for_as_long_as_github_asks(
    world: World, logs: pytest.LogCaptureFixture
) -> None:
    a, _, _ = await three_prs(world)
    async with world.monitor() as monitor, world.running(monitor):
        await world.run_for(30 * S)
        world.fake.merge(a)
        world.fake.inject(Fault.secondary_limit(retry_after=300, kind="badge"))
        await world.run_for(M)
        limited_at = world.badge_requests()[-1]
        await world.run_for(6 * M)
    after = [t - limited_at for t in world.badge_requests() if t > limited_at]
    lines = [line for line in poller_lines(logs) if "failed" in line]
    assert (
        300 * S,
        [
            f"badge poll of 3 PRs failed: secondary rate limit until "
            f"{(limited_at + 300 * S).astimezone(UTC).isoformat()}; their listeners were "
            "not called, the next poll tries again"
        ],
        [(1, "pr-merged")],
    ) == (after[0], lines, kinds(world))


@pytest.mark.anyio
async def test_graphql_errors_beside_partial_data_skip_only_the_pr_in_error(
    world: World, logs: pytest.LogCaptureFixture
) -> None:
    a, b, c = await three_prs(world)
    repo_alias, pr_alias = badge_layout([a, b, c]).aliases[a]
    error = {"type": "INTERNAL", "message": "SECRET-ERROR-TEXT", "path": [repo_alias, pr_alias]}
    async with world.monitor() as monitor, world.running(monitor):
        await world.run_for(30 * S)
        world.fake.merge(a)
        world.fake.merge(b)
        world.fake.inject(Fault.graphql_errors(error, kind="badge"))
        await world.run_for(M)
        first = kinds(world)
        await world.run_for(M)
    skipped = [r.getMessage() for r in logs.records if "badge not read this time" in r.getMessage()]
    assert (
        [(2, "pr-merged")],
        [(2, "pr-merged"), (1, "pr-merged")],
        [f"{a}: badge not read this time (GraphQL error INTERNAL)"],
        False,
    ) == (first, kinds(world), skipped, "SECRET-ERROR-TEXT" in logs.text)


@pytest.mark.anyio
async def test_a_review_with_an_unparseable_time_is_left_off_until_it_reads_again(
    world: World, logs: pytest.LogCaptureFixture
) -> None:
    a, b, _ = await three_prs(world)
    async with world.monitor() as monitor, world.running(monitor):
        await world.run_for(30 * S)
        review = world.fake.post_review(a, "alice", "APPROVED", "REVIEW-BODY")
        world.fake.corrupt(review, "submittedAt", "yesterday")
        world.fake.merge(b)
        await world.run_for(M)
        first = kinds(world)
        world.fake.corrupt(review, "submittedAt", world.clock.now().strftime("%Y-%m-%dT%H:%M:%SZ"))
        await world.run_for(M)
    lines = [r.getMessage() for r in logs.records if "no parseable time" in r.getMessage()]
    assert (
        [(2, "pr-merged")],
        [(2, "pr-merged"), (1, "review-verdict")],
        [f"{a}: review {review} has no parseable time; left off the badge"],
        False,
    ) == (first, kinds(world), lines, "REVIEW-BODY" in logs.text)


@pytest.mark.anyio
async def test_a_verdict_with_a_null_author_is_ignored_with_one_line(
    world: World, logs: pytest.LogCaptureFixture
) -> None:
    a, b, _ = await three_prs(world)
    async with world.monitor() as monitor, world.running(monitor):
        await world.run_for(30 * S)
        review = world.fake.post_review(a, "alice", "APPROVED", "REVIEW-BODY")
        world.fake.corrupt(review, "author", None)
        world.fake.merge(b)
        await world.run_for(3 * M)
    lines = [r.getMessage() for r in logs.records if "deleted account" in r.getMessage()]
    assert (
        [(2, "pr-merged")],
        [f"a review verdict on {a} by a deleted account was ignored"],
    ) == (kinds(world), lines)


@pytest.mark.anyio
async def test_a_pr_that_disappears_is_reported_once_and_polled_again_with_backoff(
    world: World, logs: pytest.LogCaptureFixture
) -> None:
    await three_prs(world)
    gone = world.fake.add_pr("octo-org/vanishing", 1)
    await world.watch([gone])
    config = world.config(missing_pr_interval="5m")
    async with world.monitor(config) as monitor, world.running(monitor):
        await world.run_for(30 * S)
        world.fake.hide_repo("octo-org/vanishing")
        await world.run_for(M)
        hidden_at = world.clock.now()
        await world.run_for(9 * M)
    polled = [
        r.at - hidden_at
        for r in world.fake.requests
        if r.kind == "badge" and r.at > hidden_at and "vanishing" in r.variables.values()
    ]
    lines = [line for line in poller_lines(logs) if "gone" in line]
    assert (
        # Missed at hidden_at - 30s: tried again 1, 2 and 4 minutes after each miss.
        [30 * S, 150 * S, 390 * S],
        [
            f"{gone} is gone or the token lost access to it; trying again in 1m, then less "
            "often, up to every 5m",
        ],
    ) == (polled, lines)
