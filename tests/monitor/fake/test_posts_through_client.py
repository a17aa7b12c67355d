"""The posting calls of ``review_monitor.github`` against FakeGitHub: each refusal's kind, the
lost answer, the secondary limit, and finding a post again by listing."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import timedelta

import pytest

from review_monitor import PrRef, RateLimitedError
from review_monitor.github import (
    GitHubClient,
    PostRefused,
    PostUncertain,
    RetryPolicy,
    ReviewLine,
    create_issue_comment,
    create_review,
    get_review,
    list_issue_comments,
    list_review_comments,
    list_reviews,
    pull_head,
    reply_to_review_comment,
    update_issue_comment,
)
from review_monitor.testing import FakeGitHub, Fault, FixedClock

from .conftest import START

pytestmark = pytest.mark.anyio


@pytest.fixture
async def api(fake: FakeGitHub, clock: FixedClock) -> AsyncIterator[GitHubClient]:
    retry = RetryPolicy(attempts=2)
    async with GitHubClient("t0ken", transport=fake.transport(), clock=clock, retry=retry) as c:
        yield c


@pytest.fixture
def pr(fake: FakeGitHub) -> PrRef:
    made = fake.add_pr("octo/repo", 1)
    fake.set_diff(made, {"a.py": range(1, 11)})
    return made


LINE = ReviewLine(path="a.py", line=3, side="RIGHT", body="here")


async def test_a_comment_posted_is_found_again_by_listing(
    api: GitHubClient, fake: FakeGitHub, pr: PrRef
) -> None:
    posted = await create_issue_comment(api, pr, "key:abc hello")
    listed = await list_issue_comments(api, pr, START)
    assert [(posted.database_id, posted.node_id, "octo-worker", "key:abc hello")] == [
        (c.database_id, c.node_id, c.author, c.body) for c in listed
    ]


async def test_a_review_of_the_head_is_posted_with_its_line(
    api: GitHubClient, fake: FakeGitHub, pr: PrRef
) -> None:
    head = await pull_head(api, pr)
    posted = await create_review(api, pr, commit_id=head, body="overall", comments=[LINE])
    comments = await list_review_comments(api, pr, START)
    assert [(posted.database_id, "here")] == [(c.review_database_id, c.body) for c in comments]


async def test_a_reply_names_the_review_github_made_for_it(
    api: GitHubClient, fake: FakeGitHub, pr: PrRef
) -> None:
    fake.post_review(
        pr, "alice", "COMMENTED", inline=[("a.py", 3, "why?")], inline_ids=[(None, 77)]
    )
    posted = await reply_to_review_comment(api, pr, 77, "because")
    reviews = await list_reviews(api, pr)
    assert (posted.review_database_id, "COMMENTED", "octo-worker") == (
        reviews[-1].database_id,
        reviews[-1].state,
        reviews[-1].author,
    )


async def test_the_review_of_a_reply_is_read_by_its_database_id(
    api: GitHubClient, fake: FakeGitHub, pr: PrRef
) -> None:
    fake.post_review(
        pr, "alice", "COMMENTED", inline=[("a.py", 3, "why?")], inline_ids=[(None, 77)]
    )
    posted = await reply_to_review_comment(api, pr, 77, "because")
    assert posted.review_database_id is not None
    review = await get_review(api, pr, posted.review_database_id)
    listed = await list_reviews(api, pr)
    assert (listed[-1].node_id, "COMMENTED") == (review.node_id, review.state)


async def test_an_edit_answers_the_same_comment(
    api: GitHubClient, fake: FakeGitHub, pr: PrRef
) -> None:
    posted = await create_issue_comment(api, pr, "v1")
    edited = await update_issue_comment(api, pr, posted.database_id, "v2")
    assert (posted.node_id, ["v2"]) == (
        edited.node_id,
        [c.body for c in await list_issue_comments(api, pr, START)],
    )


async def test_a_line_outside_the_diff_is_refused_as_not_in_diff(
    api: GitHubClient, fake: FakeGitHub, pr: PrRef
) -> None:
    outside = ReviewLine(path="a.py", line=40, body="x")
    with pytest.raises(PostRefused) as caught:
        await create_review(api, pr, commit_id=fake.head(pr), body="b", comments=[outside])
    assert ("not-in-diff", 422) == (caught.value.kind, caught.value.status)


async def test_a_review_after_a_push_is_refused_as_head_moved(
    api: GitHubClient, fake: FakeGitHub, pr: PrRef
) -> None:
    old = fake.head(pr)
    fake.push(pr)
    with pytest.raises(PostRefused) as caught:
        await create_review(api, pr, commit_id=old, body="b", comments=[LINE])
    assert ("head-moved", 422) == (caught.value.kind, caught.value.status)


async def test_a_review_beside_the_viewers_own_pending_review_is_refused(
    api: GitHubClient, fake: FakeGitHub, pr: PrRef
) -> None:
    fake.post_review(pr, "octo-worker", "PENDING", "a draft in the browser")
    with pytest.raises(PostRefused) as caught:
        await create_review(api, pr, commit_id=fake.head(pr), body="b", comments=[LINE])
    assert ("pending-review", 422) == (caught.value.kind, caught.value.status)


async def test_a_locked_pr_is_refused_as_locked(
    api: GitHubClient, fake: FakeGitHub, pr: PrRef
) -> None:
    fake.lock(pr)
    fake.set_push_access("octo/repo", False)
    with pytest.raises(PostRefused) as caught:
        await create_issue_comment(api, pr, "hello")
    assert ("locked", 403) == (caught.value.kind, caught.value.status)


async def test_an_edit_of_a_deleted_comment_is_refused_as_not_found(
    api: GitHubClient, fake: FakeGitHub, pr: PrRef
) -> None:
    posted = await create_issue_comment(api, pr, "v1")
    fake.delete(posted.node_id)
    with pytest.raises(PostRefused) as caught:
        await update_issue_comment(api, pr, posted.database_id, "v2")
    assert ("not-found", 404) == (caught.value.kind, caught.value.status)


async def test_a_reply_to_a_missing_comment_is_refused_as_not_found(
    api: GitHubClient, pr: PrRef
) -> None:
    with pytest.raises(PostRefused) as caught:
        await reply_to_review_comment(api, pr, 5, "x")
    assert ("not-found", 404) == (caught.value.kind, caught.value.status)


async def test_a_lost_answer_is_uncertain_and_the_post_exists_once(
    api: GitHubClient, fake: FakeGitHub, pr: PrRef
) -> None:
    fake.inject(Fault.lost_answer())
    with pytest.raises(PostUncertain):
        await create_issue_comment(api, pr, "key:abc")
    assert ["key:abc"] == [c.body for c in await list_issue_comments(api, pr, START)]


async def test_the_content_limit_reaches_the_client_as_a_secondary_limit(
    api: GitHubClient, fake: FakeGitHub, clock: FixedClock, pr: PrRef
) -> None:
    for _ in range(80):
        await create_issue_comment(api, pr, "x")
    with pytest.raises(RateLimitedError) as caught:
        await create_issue_comment(api, pr, "x")
    assert (True, clock.now() + timedelta(seconds=60)) == (
        caught.value.secondary,
        caught.value.retry_at,
    )


async def test_a_listing_follows_every_page(api: GitHubClient, fake: FakeGitHub, pr: PrRef) -> None:
    for k in range(130):
        fake.post_comment(pr, "alice", f"c{k}")
    listed = await list_issue_comments(api, pr, START)
    assert (130, "c129") == (len(listed), listed[-1].body)
