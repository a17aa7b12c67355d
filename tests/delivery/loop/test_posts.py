"""``PostSender`` over a real store and FakeGitHub: each post made once, its ids recorded,
a refusal told to the worker, and a post whose answer was lost looked for before it is
ever sent again."""

from __future__ import annotations

import random
from collections.abc import Collection
from datetime import timedelta

import pytest

from comment_wake._post_marker import new_post_key
from comment_wake.delivery import POST_FAILED_KIND, PostSender
from comment_wake.delivery._backoff import Backoff
from comment_wake.store import (
    ContentLimits,
    PostTarget,
    PostTool,
    insert_post,
    posts,
    pr_posts,
    sending_post,
    set_progress_text,
)
from comment_wake.tools._posting import post_body
from review_monitor import PrRef
from review_monitor.github import GitHubClient, ReviewLine
from review_monitor.store import Store
from review_monitor.testing import FakeGitHub, Fault, FixedClock

pytestmark = pytest.mark.anyio

VIEWER = "octo-worker"
SECRET = "ghp_NeverPostThisToken0123456789abcdefgh"
GRACE = timedelta(seconds=30)
RECHECK = 2 * GRACE + timedelta(seconds=60)
DEFAULT_CONTENT = ContentLimits()


def sender(
    store: Store,
    github: GitHubClient,
    clock: FixedClock,
    *,
    content: ContentLimits = DEFAULT_CONTENT,
    secrets: Collection[str] = (SECRET,),
) -> PostSender:
    async def viewer() -> str | None:
        return VIEWER

    return PostSender(
        store,
        github,
        clock=clock,
        viewer=viewer,
        secrets=lambda: secrets,
        grace=GRACE,
        progress_gap=timedelta(minutes=5),
        content=content,
        backoff=Backoff(base=timedelta(seconds=1), cap=timedelta(seconds=2), jitter=0.0),
        rng=random.Random(1),
    )


def queue(
    store: Store,
    clock: FixedClock,
    pr: PrRef,
    text: str = "Renamed it.",
    *,
    tool: PostTool = "reply",
    target: PostTarget | None = None,
) -> str:
    key = new_post_key()
    with store.sync.write(at=clock.now()) as tx:
        insert_post(
            tx,
            key=key,
            worker="w-7",
            pr=pr,
            tool=tool,
            body=post_body(text, "w-7", key),
            target=target,
        )
    return key


def made(fake: FakeGitHub, pr: PrRef) -> list[str]:
    return [i.body.splitlines()[0] for i in fake.items(pr) if i.author == VIEWER]


async def test_a_queued_post_is_made_and_its_id_recorded(
    store: Store, github: GitHubClient, clock: FixedClock, fake: FakeGitHub, pr: PrRef
) -> None:
    queue(store, clock, pr)
    await sender(store, github, clock).run_once()
    (item,) = [i for i in fake.items(pr) if i.author == VIEWER]
    with store.sync.read() as tx:
        ids, _, intents = pr_posts(tx, pr, since=clock.now() - timedelta(hours=1))
    assert ([item.id], {}) == (list(ids), intents)


async def test_a_refused_post_fails_and_the_worker_is_told_why(
    store: Store, github: GitHubClient, clock: FixedClock, fake: FakeGitHub, pr: PrRef
) -> None:
    fake.lock(pr)
    fake.set_push_access(pr.repo, False)
    key = queue(store, clock, pr)
    await sender(store, github, clock).run_once()
    (post,) = posts(store.sync)
    (entry,) = store.sync.entries()
    assert ("failed", "locked", POST_FAILED_KIND, "w-7", True) == (
        post.status,
        post.failure,
        entry.notice.kind,
        entry.worker,
        key in entry.notice.text,
    )


async def test_a_body_holding_the_token_is_never_sent(
    store: Store, github: GitHubClient, clock: FixedClock, fake: FakeGitHub, pr: PrRef
) -> None:
    queue(store, clock, pr, f"my token is {SECRET}")
    await sender(store, github, clock).run_once()
    (post,) = posts(store.sync)
    assert (("failed", "secret"), []) == ((post.status, post.failure), made(fake, pr))


async def test_a_lost_answer_is_found_by_its_key_once_github_lists_it(
    store: Store, github: GitHubClient, clock: FixedClock, fake: FakeGitHub, pr: PrRef
) -> None:
    fake.list_posts_late = timedelta(seconds=20)
    fake.inject(Fault.lost_answer())
    queue(store, clock, pr)
    send = sender(store, github, clock)
    await send.run_once()  # the post is made, its answer lost
    await send.run_once()  # the first search: not listed yet
    clock.advance(RECHECK)
    passed = await send.run_once()  # the last search finds it
    (post,) = posts(store.sync)
    assert (1, "posted", 1) == (passed.found, post.status, len(made(fake, pr)))


async def test_a_post_github_never_made_is_sent_again_after_two_searches(
    store: Store, github: GitHubClient, clock: FixedClock, fake: FakeGitHub, pr: PrRef
) -> None:
    # A crash after the intent was marked sending, before the request left: nothing is
    # on GitHub, and only the second miss lets it go again.
    key = queue(store, clock, pr)
    body = posts(store.sync)[0].body
    with store.sync.write(at=clock.now()) as tx:
        sending_post(tx, key, body)
    send = sender(store, github, clock)
    await send.run_once()
    clock.advance(RECHECK - timedelta(seconds=1))
    await send.run_once()
    before = len(made(fake, pr))
    clock.advance(timedelta(seconds=1))
    await send.run_once()  # the last search misses: queued again
    await send.run_once()
    assert (0, 1) == (before, len(made(fake, pr)))


async def test_a_post_left_sending_that_github_has_is_adopted_not_repeated(
    store: Store, github: GitHubClient, clock: FixedClock, fake: FakeGitHub, pr: PrRef
) -> None:
    key = queue(store, clock, pr)
    body = posts(store.sync)[0].body
    with store.sync.write(at=clock.now()) as tx:
        sending_post(tx, key, body)
    fake.post_comment(pr, VIEWER, body)  # the request had reached GitHub
    await sender(store, github, clock).run_once()
    (post,) = posts(store.sync)
    assert ("posted", 1) == (post.status, len(made(fake, pr)))


async def test_a_comment_by_another_author_holding_the_key_is_never_adopted(
    store: Store, github: GitHubClient, clock: FixedClock, fake: FakeGitHub, pr: PrRef
) -> None:
    key = queue(store, clock, pr)
    body = posts(store.sync)[0].body
    with store.sync.write(at=clock.now()) as tx:
        sending_post(tx, key, body)
    copy = fake.post_comment(pr, "mallory", body)
    send = sender(store, github, clock)
    await send.run_once()
    clock.advance(RECHECK)
    await send.run_once()
    await send.run_once()
    (post,) = posts(store.sync)
    assert (True, 1) == (post.node_id != copy, len(made(fake, pr)))


async def test_a_deleted_progress_comment_is_made_again_once(
    store: Store, github: GitHubClient, clock: FixedClock, fake: FakeGitHub, pr: PrRef
) -> None:
    key = queue(store, clock, pr, "step 1", tool="progress")
    send = sender(store, github, clock)
    for n in (2, 3):
        await send.run_once()
        (post,) = posts(store.sync)
        assert post.node_id is not None
        fake.delete(post.node_id)
        clock.advance(timedelta(minutes=6))
        with store.sync.write(at=clock.now()) as tx:
            set_progress_text(tx, key, post_body(f"step {n}", "w-7", key), clock.now())
        await send.run_once()  # the edit finds it gone
    await send.run_once()
    (post,) = posts(store.sync)
    assert (("failed", "deleted-twice"), 0) == (
        (post.status, post.failure),
        len(made(fake, pr)),
    )


async def test_the_content_bucket_puts_off_a_post_beyond_its_minute(
    store: Store, github: GitHubClient, clock: FixedClock, fake: FakeGitHub, pr: PrRef
) -> None:
    queue(store, clock, pr, "one")
    clock.advance(timedelta(seconds=1))
    queue(store, clock, pr, "two")
    send = sender(store, github, clock, content=ContentLimits(per_minute=1, per_hour=150))
    first = await send.run_once()
    clock.advance(timedelta(seconds=60))
    second = await send.run_once()
    assert ((1, 1), (1, 0), ["one", "two"]) == (
        (first.posted, first.deferred),
        (second.posted, second.deferred),
        made(fake, pr),
    )


async def test_a_review_whose_head_moved_fails_and_posts_nothing(
    store: Store, github: GitHubClient, clock: FixedClock, fake: FakeGitHub, pr: PrRef
) -> None:
    old = fake.head(pr)
    fake.push(pr)
    queue(store, clock, pr, "Looks sound.", tool="review", target=PostTarget(commit=old))
    await sender(store, github, clock).run_once()
    (post,) = posts(store.sync)
    assert (("failed", "head-moved"), []) == ((post.status, post.failure), made(fake, pr))


async def test_a_review_is_made_commented_with_its_line_comments(
    store: Store, github: GitHubClient, clock: FixedClock, fake: FakeGitHub, pr: PrRef
) -> None:
    fake.set_diff(pr, {"a.py": [3]})
    lines = (ReviewLine(path="a.py", line=3, body="Rename x?"),)
    target = PostTarget(commit=fake.head(pr), lines=lines)
    queue(store, clock, pr, "Looks sound.", tool="review", target=target)
    await sender(store, github, clock).run_once()
    kinds = [(i.kind, i.state, i.line) for i in fake.items(pr) if i.author == VIEWER]
    assert [("review", "COMMENTED", None), ("review-comment", None, 3)] == kinds
