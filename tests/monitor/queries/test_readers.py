"""The async readers against FakeGitHub through a minimal ``GitHubApi``."""

from __future__ import annotations

import math
from datetime import timedelta

import pytest

from review_monitor import Author, PrRef
from review_monitor.github import (
    GitHubApi,
    add_reactions,
    read_badges,
    read_details,
    read_failing_checks,
    read_failing_checks_batch,
    read_gap,
)
from review_monitor.testing import FakeGitHub, FixedClock

pytestmark = pytest.mark.anyio


async def test_read_badges_reads_a_pr_through_githubs_answer(
    fake: FakeGitHub, api: GitHubApi
) -> None:
    pr = fake.add_pr("octo-org/octo-repo", 12, title="Add a thing")
    cid = fake.post_comment(pr, "alice", "please rename")
    batch = await read_badges(api, [pr])
    status = batch.statuses[pr]
    assert (pr, "Add a thing", "OPEN", [cid], Author("alice", "User")) == (
        status.pr,
        status.title,
        status.state,
        [c.id for c in status.comments],
        status.comments[0].author,
    )


async def test_read_badges_reports_cost_and_remaining(fake: FakeGitHub, api: GitHubApi) -> None:
    pr = fake.add_pr("octo-org/octo-repo", 12)
    batch = await read_badges(api, [pr])
    assert (1, 4999) == (batch.cost, batch.remaining)


async def test_a_hundred_prs_over_several_repositories_take_one_query(
    fake: FakeGitHub,
    api: GitHubApi,
) -> None:
    prs = [fake.add_pr(f"octo-org/repo-{i % 7}", i + 1) for i in range(100)]
    batch = await read_badges(api, prs)
    assert (100, 1, 2) == (len(batch.statuses), fake.count("badge"), batch.cost)


async def test_a_deleted_pr_and_a_lost_repository_are_missing(
    fake: FakeGitHub, api: GitHubApi
) -> None:
    kept = fake.add_pr("octo-org/octo-repo", 1)
    lost = fake.add_pr("octo-org/private", 2)
    fake.hide_repo("octo-org/private")
    never = PrRef("octo-org", "octo-repo", 99)
    batch = await read_badges(api, [kept, lost, never])
    assert ([kept], {lost, never}) == (list(batch.statuses), set(batch.missing))


async def test_every_pr_missing_is_an_answer_not_a_fault(fake: FakeGitHub, api: GitHubApi) -> None:
    gone = PrRef("nobody", "nothing", 1)
    batch = await read_badges(api, [gone])
    assert ({}, (gone,)) == (batch.statuses, batch.missing)


async def test_bots_and_the_viewers_own_posts_are_listed_with_flags(
    fake: FakeGitHub,
    api: GitHubApi,
) -> None:
    pr = fake.add_pr("octo-org/octo-repo", 1)
    fake.post_comment(pr, "dependabot[bot]", "bump")
    fake.post_comment(pr, "octo-worker", "done")
    status = (await read_badges(api, [pr])).statuses[pr]
    assert [("dependabot", "Bot", False), ("octo-worker", "User", True)] == [
        (c.author.login, c.author.type, c.viewer_did_author) for c in status.comments if c.author
    ]


async def test_a_pending_review_is_not_on_the_badge(fake: FakeGitHub, api: GitHubApi) -> None:
    pr = fake.add_pr("octo-org/octo-repo", 1)
    fake.post_review(pr, "octo-worker", "PENDING", "draft")
    done = fake.post_review(pr, "bob", "CHANGES_REQUESTED", "fix it")
    status = (await read_badges(api, [pr])).statuses[pr]
    assert [(done, "CHANGES_REQUESTED")] == [(r.id, r.state) for r in status.reviews]


async def test_a_flood_sets_person_comments_from(
    fake: FakeGitHub,
    clock: FixedClock,
    api: GitHubApi,
) -> None:
    pr = fake.add_pr("octo-org/octo-repo", 1)
    for _ in range(15):
        clock.advance(timedelta(seconds=10))
        fake.post_comment(pr, "mallory", "spam")
    status = (await read_badges(api, [pr], comments_window=10)).statuses[pr]
    assert (status.comments[0].created_at, True) == (
        status.person_comments_from,
        status.comments_page.has_previous_page,
    )


async def test_an_unparseable_time_from_github_leaves_the_item_off(
    fake: FakeGitHub,
    api: GitHubApi,
) -> None:
    pr = fake.add_pr("octo-org/octo-repo", 1)
    bad = fake.post_comment(pr, "alice", "one")
    good = fake.post_comment(pr, "alice", "two")
    fake.corrupt(bad, "createdAt", "yesterday")
    status = (await read_badges(api, [pr])).statuses[pr]
    assert [good] == [c.id for c in status.comments]


async def test_a_null_author_from_github_is_kept_as_none(fake: FakeGitHub, api: GitHubApi) -> None:
    pr = fake.add_pr("octo-org/octo-repo", 1)
    cid = fake.post_comment(pr, "alice", "one")
    fake.corrupt(cid, "author", None)
    status = (await read_badges(api, [pr])).statuses[pr]
    assert [(cid, None)] == [(c.id, c.author) for c in status.comments]


async def test_read_badges_refuses_a_pr_on_another_host(fake: FakeGitHub, api: GitHubApi) -> None:
    with pytest.raises(ValueError, match="another host"):
        await read_badges(api, [PrRef("o", "n", 1, host="ghe.example.com")])


async def test_read_details_reads_bodies_urls_and_edits(
    fake: FakeGitHub,
    clock: FixedClock,
    api: GitHubApi,
) -> None:
    pr = fake.add_pr("octo-org/octo-repo", 1)
    cid = fake.post_comment(pr, "alice", "first")
    clock.advance(timedelta(minutes=1))
    fake.edit(cid, "second")
    detail = (await read_details(api, [cid]))[cid]
    assert ("comment", "second", clock.now()) == (detail.kind, detail.body, detail.last_edited_at)
    assert detail.url.startswith("https://github.com/octo-org/octo-repo/pull/1#issuecomment-")


@pytest.mark.parametrize("n", [1, 30, 31, 75])
async def test_read_details_takes_one_query_per_30_ids(
    fake: FakeGitHub, api: GitHubApi, n: int
) -> None:
    pr = fake.add_pr("octo-org/octo-repo", 1)
    ids = [fake.post_comment(pr, "alice", f"c{i}") for i in range(n)]
    details = await read_details(api, ids)
    assert (n, math.ceil(n / 30)) == (len(details), fake.count("detail"))


async def test_read_details_pages_inline_comments_beyond_20(
    fake: FakeGitHub, api: GitHubApi
) -> None:
    pr = fake.add_pr("octo-org/octo-repo", 1)
    inline = [("src/a.py", i + 1, f"nit {i}") for i in range(45)]
    rid = fake.post_review(pr, "bob", "COMMENTED", "see inline", inline=inline)
    detail = (await read_details(api, [rid]))[rid]
    assert ([("src/a.py", i + 1, f"nit {i}") for i in range(45)], 3) == (
        [(c.path, c.line, c.body) for c in detail.inline],
        fake.count("detail"),
    )


async def test_read_details_leaves_out_a_deleted_item(fake: FakeGitHub, api: GitHubApi) -> None:
    pr = fake.add_pr("octo-org/octo-repo", 1)
    kept = fake.post_comment(pr, "alice", "kept")
    gone = fake.post_comment(pr, "alice", "gone")
    fake.delete(gone)
    assert [kept] == list(await read_details(api, [kept, gone]))


async def test_read_gap_reads_backwards_until_the_stop_time(
    fake: FakeGitHub,
    clock: FixedClock,
    api: GitHubApi,
) -> None:
    pr = fake.add_pr("octo-org/octo-repo", 1)
    times = []
    for _ in range(260):
        clock.advance(timedelta(seconds=1))
        times.append(clock.now())
        fake.post_comment(pr, "mallory", "spam")
    status = (await read_badges(api, [pr])).statuses[pr]
    assert status.comments_page.start_cursor is not None
    gap = await read_gap(
        api, pr, "comments", status.comments_page.start_cursor, stop_at=times[120], max_pages=5
    )
    assert (2, True, times[50], 200) == (gap.pages, gap.complete, gap.reached, len(gap.items))


async def test_read_gap_stops_at_the_start_of_the_listing(
    fake: FakeGitHub,
    api: GitHubApi,
) -> None:
    pr = fake.add_pr("octo-org/octo-repo", 1)
    for _ in range(30):
        fake.post_review(pr, "bob", "COMMENTED", "x")
    status = (await read_badges(api, [pr])).statuses[pr]
    assert status.reviews_page.start_cursor is not None
    gap = await read_gap(
        api, pr, "reviews", status.reviews_page.start_cursor,
        stop_at=status.reviews[0].created_at - timedelta(days=1), max_pages=5,
    )  # fmt: skip
    assert (1, True, 10) == (gap.pages, gap.complete, len(gap.items))


async def test_read_gap_gives_up_after_max_pages(
    fake: FakeGitHub,
    clock: FixedClock,
    api: GitHubApi,
) -> None:
    pr = fake.add_pr("octo-org/octo-repo", 1)
    for _ in range(350):
        clock.advance(timedelta(seconds=1))
        fake.post_comment(pr, "mallory", "spam")
    status = (await read_badges(api, [pr])).statuses[pr]
    assert status.comments_page.start_cursor is not None
    gap = await read_gap(
        api, pr, "comments", status.comments_page.start_cursor,
        stop_at=clock.now() - timedelta(days=1), max_pages=2,
    )  # fmt: skip
    assert (2, False, 200) == (gap.pages, gap.complete, len(gap.items))


async def test_read_failing_checks_reads_runs_and_statuses_of_the_head(
    fake: FakeGitHub,
    api: GitHubApi,
) -> None:
    pr = fake.add_pr("octo-org/octo-repo", 1)
    fake.add_check_run(pr, "old", conclusion="FAILURE")
    fake.push(pr)
    fake.add_check_run(pr, "lint", conclusion="SUCCESS")
    run = fake.add_check_run(pr, "tests", conclusion="FAILURE", title="2 failed", summary="x")
    status = fake.add_status(pr, "ci/legacy", "ERROR", description="boom")
    fake.add_check_run(pr, "slow", status="IN_PROGRESS", conclusion=None)
    failures = await read_failing_checks(api, pr)
    assert [(run, "tests", "FAILURE", "2 failed\n\nx"), (status, "ci/legacy", "ERROR", "boom")] == [
        (f.id, f.name, f.conclusion, f.summary) for f in failures
    ]


async def test_no_checks_means_no_failures(fake: FakeGitHub, api: GitHubApi) -> None:
    pr = fake.add_pr("octo-org/octo-repo", 1)
    assert () == await read_failing_checks(api, pr)


async def test_read_failing_checks_batch_reads_several_prs_in_one_query(
    fake: FakeGitHub, api: GitHubApi
) -> None:
    one, two = fake.add_pr("octo-org/octo-repo", 1), fake.add_pr("octo-org/other-repo", 2)
    run = fake.add_check_run(one, "tests", conclusion="FAILURE")
    status = fake.add_status(two, "ci/legacy", "ERROR")
    fake.add_check_run(two, "lint", conclusion="SUCCESS")
    fake.clear_requests()
    found = await read_failing_checks_batch(api, [one, two])
    assert ({one: [run], two: [status]}, 1) == (
        {pr: [f.id for f in failures] for pr, failures in found.items()},
        fake.count("checks"),
    )


async def test_read_failing_checks_batch_finds_what_the_per_pr_read_finds(
    fake: FakeGitHub, api: GitHubApi
) -> None:
    pr = fake.add_pr("octo-org/octo-repo", 1)
    fake.add_check_run(pr, "tests", conclusion="FAILURE", title="2 failed", summary="x")
    fake.add_status(pr, "ci/legacy", "ERROR", description="boom")
    assert (await read_failing_checks(api, pr),) == tuple(
        (await read_failing_checks_batch(api, [pr])).values()
    )


async def test_read_failing_checks_batch_reads_a_long_pr_to_its_end(
    fake: FakeGitHub, api: GitHubApi
) -> None:
    long, short = fake.add_pr("octo-org/octo-repo", 1), fake.add_pr("octo-org/octo-repo", 2)
    runs = [fake.add_check_run(long, f"job{i}", conclusion="FAILURE") for i in range(120)]
    fake.add_check_run(short, "tests", conclusion="FAILURE")
    fake.clear_requests()
    found = await read_failing_checks_batch(api, [long, short])
    assert (runs, ["FailingChecksBatch", "FailingChecks", "FailingChecks"]) == (
        [f.id for f in found[long]],
        [r.operation for r in fake.requests],
    )


async def test_read_failing_checks_batch_leaves_out_a_gone_pr(
    fake: FakeGitHub, api: GitHubApi
) -> None:
    pr = fake.add_pr("octo-org/octo-repo", 1)
    run = fake.add_check_run(pr, "tests", conclusion="FAILURE")
    gone = PrRef("octo-org", "octo-repo", 99)
    found = await read_failing_checks_batch(api, [gone, pr])
    assert {pr: [run]} == {p: [f.id for f in failures] for p, failures in found.items()}


async def test_read_failing_checks_batch_of_a_pr_without_checks_is_empty(
    fake: FakeGitHub, api: GitHubApi
) -> None:
    pr = fake.add_pr("octo-org/octo-repo", 1)
    assert {pr: ()} == await read_failing_checks_batch(api, [pr])


async def test_add_reactions_reports_success_per_subject(fake: FakeGitHub, api: GitHubApi) -> None:
    pr = fake.add_pr("octo-org/octo-repo", 1)
    a = fake.post_comment(pr, "alice", "one")
    b = fake.post_comment(pr, "alice", "two")
    gone = fake.post_comment(pr, "alice", "three")
    fake.delete(gone)
    result = await add_reactions(api, [a, gone, b], "EYES")
    assert ({a: True, gone: False, b: True}, (("EYES", "octo-worker"),), 1) == (
        result,
        fake.reactions(a),
        fake.count("reaction"),
    )


async def test_add_reactions_all_failing_is_all_false(fake: FakeGitHub, api: GitHubApi) -> None:
    assert {"nope": False} == await add_reactions(api, ["nope"], "EYES")
