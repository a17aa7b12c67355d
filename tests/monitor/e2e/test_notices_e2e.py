"""Many PRs over loopback: each notice once, across a restart too."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta
from typing import TYPE_CHECKING

import pytest

from review_monitor import MonitorConfig, PrRef
from untrusted_fence import clean

if TYPE_CHECKING:
    from conftest import World

M = timedelta(minutes=1)
REPOS = ("octo-org/alpha", "octo-org/beta", "octo-org/gamma")
NOT_PASSED = "was not passed on"
SNEAKY_TITLE = "Fix\u202e the\nparser \u200bnow"


def worker(pr: PrRef) -> str:
    return f"w-{pr.name}-{pr.number}"


def populate(world: World) -> dict[str, PrRef]:
    """150 PRs in three repositories (three batches of 50); a few named for the story."""
    fake = world.fake
    prs: dict[str, PrRef] = {}
    for repo in REPOS:
        for n in range(1, 51):
            title = SNEAKY_TITLE if (repo, n) == ("octo-org/gamma", 50) else f"Change {n}"
            prs[f"{repo.split('/')[1]}{n}"] = fake.add_pr(repo, n, title=title)
        fake.set_permission(repo, "alice", "write")
        fake.set_permission(repo, "mona", "maintain")
        fake.set_permission(repo, "tri", "triage")
    # Already there before the watch began (by more than the 2-minute clock-skew
    # allowance) and before the monitor first looks: history, never announced.
    before = world.clock.now() - 10 * M
    fake.post_review(prs["alpha1"], "alice", "APPROVED", "old approval", at=before)
    fake.add_check_run(prs["alpha2"], "lint", summary="old failure")
    return prs


async def happen(world: World, prs: dict[str, PrRef]) -> set[tuple[str, str]]:
    """Things happen on GitHub; returns the (worker, kind) notices they must give."""
    fake = world.fake
    fake.post_review(prs["alpha3"], "alice", "APPROVED", "Looks good to me.")
    fake.post_review(prs["alpha4"], "mallory", "CHANGES_REQUESTED", "STRANGER-TEXT do X")
    fake.post_review(prs["alpha5"], "tri", "APPROVED", "TRIAGER-TEXT")
    fake.post_review(prs["beta1"], "renovate[bot]", "COMMENTED", "bump deps")
    fake.post_review(prs["beta2"], "mona", "CHANGES_REQUESTED", "Please split this.")
    fake.post_review(prs["beta3"], "alice", "COMMENTED", "just a remark")
    fake.post_comment(prs["beta4"], "alice", "a plain comment is not a verdict")
    fake.merge(prs["beta5"])
    fake.close(prs["gamma1"])
    fake.add_check_run(prs["gamma2"], "tests", summary="AssertionError: CHECK-OUTPUT")
    fake.merge(prs["gamma50"])
    return {
        (worker(prs["alpha3"]), "review-verdict"),
        (worker(prs["beta1"]), "bot-review"),
        (worker(prs["beta2"]), "review-verdict"),
        (worker(prs["beta5"]), "pr-merged"),
        (worker(prs["gamma1"]), "pr-closed"),
        (worker(prs["gamma2"]), "check-failed"),
        (worker(prs["gamma50"]), "pr-merged"),
    }


def kinds(world: World) -> list[tuple[str, str]]:
    return [(e.worker, e.notice.kind) for e in world.entries()]


@pytest.mark.anyio
async def test_many_prs_give_each_notice_once_and_nothing_for_strangers_or_baselines(
    world: World,
) -> None:
    prs = populate(world)
    await world.watch(list(prs.values()))
    async with world.monitor() as monitor, world.running(monitor):
        await world.run_for(2 * M)  # the baseline rounds
        expected = await happen(world, prs)
        await world.run_for(4 * M)
    got = kinds(world)
    assert (sorted(expected), 7) == (sorted(set(got)), len(got))


@pytest.mark.anyio
async def test_without_the_sweep_the_poll_reads_150_prs_in_three_queries_a_round(
    world: World,
) -> None:
    prs = populate(world)
    await world.watch(list(prs.values()))
    async with world.monitor(config=MonitorConfig(sweep=False)) as monitor, world.running(monitor):
        start = len(world.badge_requests())
        await world.run_for(5 * M)
    assert 15 == len(world.badge_requests()) - start


@pytest.mark.anyio
async def test_a_title_in_a_notice_header_is_cleaned_by_the_fence_library(world: World) -> None:
    prs = populate(world)
    await world.watch([prs["gamma50"]])
    async with world.monitor() as monitor, world.running(monitor):
        await world.run_for(M)
        world.fake.merge(prs["gamma50"])
        await world.run_for(2 * M)
    (entry,) = world.entries()
    title = " ".join(clean(SNEAKY_TITLE).split())
    assert f"Merged: {title} (octo-org/gamma#50)." == entry.notice.text.split("\n")[0]


@pytest.mark.anyio
async def test_no_notice_is_repeated_across_a_restart_and_what_happened_meanwhile_is_told(
    world: World,
) -> None:
    prs = populate(world)
    await world.watch(list(prs.values()))
    async with world.monitor() as monitor, world.running(monitor):
        await world.run_for(2 * M)
        await happen(world, prs)
        await world.run_for(3 * M)
    first = await world.deliver()
    # While the daemon is down:
    world.fake.post_review(prs["gamma10"], "alice", "APPROVED", "after the restart")
    world.fake.merge(prs["gamma11"])
    await world.clock.advance(10 * M)
    async with world.monitor() as monitor, world.running(monitor):
        await world.run_for(5 * M)
    second = await world.deliver()
    assert (
        7,
        [(worker(prs["gamma10"]), "review-verdict"), (worker(prs["gamma11"]), "pr-merged")],
        [],
    ) == (
        len(first),
        sorted((n.worker, n.kind) for n in second),
        [k for k, c in Counter(world.committed).items() if c > 1],
    )


@pytest.mark.anyio
async def test_a_strangers_verdict_gives_one_log_line_without_its_author_or_text(
    world: World, logs: pytest.LogCaptureFixture
) -> None:
    prs = populate(world)
    await world.watch([prs["alpha4"]])
    async with world.monitor() as monitor, world.running(monitor):
        await world.run_for(M)
        world.fake.post_review(prs["alpha4"], "mallory", "CHANGES_REQUESTED", "STRANGER-TEXT")
        await world.run_for(2 * M)
    lines = [r.getMessage() for r in logs.records if "without write access" in r.getMessage()]
    assert (
        (),
        [f"a review verdict on {prs['alpha4']} by an account without write access {NOT_PASSED}"],
        False,
    ) == (world.entries(), lines, "mallory" in logs.text or "STRANGER-TEXT" in logs.text)


@pytest.mark.anyio
async def test_every_watcher_of_a_pr_gets_its_own_notice(world: World) -> None:
    prs = populate(world)
    pr = prs["alpha7"]
    await world.watch([pr], worker="first")
    await world.watch([pr], worker="second")
    async with world.monitor() as monitor, world.running(monitor):
        await world.run_for(M)
        world.fake.post_review(pr, "alice", "APPROVED", "ship it")
        await world.run_for(2 * M)
    assert [("first-alpha-7", "review-verdict"), ("second-alpha-7", "review-verdict")] == sorted(
        kinds(world)
    )
