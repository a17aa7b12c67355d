"""Acknowledgement reactions on FakeGitHub after a comment wake is delivered."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import pytest

from comment_wake.delivery import DeliveryConfig, DeliveryLoop
from comment_wake.delivery._ack import ack_subjects
from comment_wake.store import reactions, spend_content
from review_monitor import Notice, PrRef
from review_monitor.github import GitHubClient
from review_monitor.store import Store, SyncStore
from review_monitor.testing import FakeGitHub, Fault, FixedClock, InMemoryPublisher

pytestmark = pytest.mark.anyio

NoticeFactory = Callable[..., Notice]
LoopFactory = Callable[..., DeliveryLoop]


async def test_each_delivered_comment_gets_the_reaction_in_one_request(
    store: Store,
    clock: FixedClock,
    fake: FakeGitHub,
    pr: PrRef,
    github: GitHubClient,
    make_loop: LoopFactory,
    make_notice: NoticeFactory,
) -> None:
    ids = tuple(fake.post_comment(pr, "alice", f"c{k}") for k in range(3))
    await store.call(SyncStore.enqueue, [make_notice(item_ids=ids)], at=clock.now())
    await make_loop(github=github).run_once()
    assert ([(("EYES", fake.viewer),)] * 3, 1) == (
        [fake.reactions(i) for i in ids],
        fake.count("reaction"),
    )


async def test_the_configured_reaction_is_used(
    store: Store,
    clock: FixedClock,
    fake: FakeGitHub,
    pr: PrRef,
    github: GitHubClient,
    make_loop: LoopFactory,
    make_notice: NoticeFactory,
) -> None:
    cid = fake.post_comment(pr, "alice", "ship it")
    await store.call(SyncStore.enqueue, [make_notice(item_ids=(cid,))], at=clock.now())
    await make_loop(github=github, config=DeliveryConfig(reaction="rocket")).run_once()
    assert (("ROCKET", fake.viewer),) == fake.reactions(cid)


async def test_an_empty_reaction_turns_acknowledgement_off(
    store: Store,
    clock: FixedClock,
    fake: FakeGitHub,
    pr: PrRef,
    github: GitHubClient,
    make_loop: LoopFactory,
    make_notice: NoticeFactory,
) -> None:
    cid = fake.post_comment(pr, "alice", "ship it")
    await store.call(SyncStore.enqueue, [make_notice(item_ids=(cid,))], at=clock.now())
    await make_loop(github=github, config=DeliveryConfig(reaction="")).run_once()
    assert ((), ()) == (fake.reactions(cid), await store.call(reactions))


async def test_a_notice_not_delivered_gets_no_reaction(
    store: Store,
    clock: FixedClock,
    fake: FakeGitHub,
    pr: PrRef,
    github: GitHubClient,
    make_loop: LoopFactory,
    make_notice: NoticeFactory,
    publishers: dict[str, InMemoryPublisher],
) -> None:
    cid = fake.post_comment(pr, "alice", "ship it")
    publishers["w-42"].busy()
    await store.call(SyncStore.enqueue, [make_notice(item_ids=(cid,))], at=clock.now())
    await make_loop(github=github).run_once()
    assert () == fake.reactions(cid)


async def test_a_handed_off_comment_gets_no_reaction(
    store: Store,
    clock: FixedClock,
    fake: FakeGitHub,
    pr: PrRef,
    github: GitHubClient,
    make_loop: LoopFactory,
    make_notice: NoticeFactory,
    publishers: dict[str, InMemoryPublisher],
) -> None:
    cid = fake.post_comment(pr, "alice", "ship it")
    publishers["w-42"].gone()
    await store.call(SyncStore.enqueue, [make_notice(item_ids=(cid,))], at=clock.now())
    loop = make_loop(github=github)
    await loop.run_once()
    await loop.run_once()
    assert (1, ()) == (len(publishers["orch"].delivered), fake.reactions(cid))


def test_only_comment_wake_items_that_are_words_are_acknowledged(
    make_notice: NoticeFactory,
) -> None:
    wake = make_notice(item_ids=("IC_1",))
    verdict = make_notice(kind="review-verdict", item_ids=("PRR_1",))
    check = Notice(
        **{
            **{f: getattr(wake, f) for f in wake.__struct_fields__},
            "items": (wake.items[0].__class__("CR_1", None, "u", None, "check"),),
        }
    )
    assert (("IC_1",), (), ()) == (ack_subjects(wake), ack_subjects(verdict), ack_subjects(check))


async def test_a_failed_reaction_is_retried_later_without_repeating_the_wake(
    store: Store,
    clock: FixedClock,
    fake: FakeGitHub,
    pr: PrRef,
    github: GitHubClient,
    make_loop: LoopFactory,
    make_notice: NoticeFactory,
    publishers: dict[str, InMemoryPublisher],
) -> None:
    cid = fake.post_comment(pr, "alice", "ship it")
    fake.inject(Fault.server_error(502, kind="reaction"))
    await store.call(SyncStore.enqueue, [make_notice(item_ids=(cid,))], at=clock.now())
    loop = make_loop(github=github)
    await loop.run_once()
    first = fake.reactions(cid)
    clock.advance(timedelta(hours=1))
    await loop.run_once()
    assert ((), (("EYES", fake.viewer),), 1) == (
        first,
        fake.reactions(cid),
        len(publishers["w-42"].attempts),
    )


async def test_a_reaction_to_a_deleted_comment_is_given_up_after_its_attempts(
    store: Store,
    clock: FixedClock,
    fake: FakeGitHub,
    pr: PrRef,
    github: GitHubClient,
    make_loop: LoopFactory,
    make_notice: NoticeFactory,
) -> None:
    cid = fake.post_comment(pr, "alice", "ship it")
    fake.delete(cid)
    await store.call(SyncStore.enqueue, [make_notice(item_ids=(cid,))], at=clock.now())
    loop = make_loop(github=github, config=DeliveryConfig(reaction_attempts=3))
    for _ in range(5):
        await loop.run_once()
        clock.advance(timedelta(hours=2))
    rows = await store.call(reactions)
    assert [("failed", 3)] == [(r.status, r.attempts) for r in rows]


async def test_a_reaction_waits_while_the_content_bucket_holds_only_the_posts_reserve(
    store: Store,
    clock: FixedClock,
    fake: FakeGitHub,
    pr: PrRef,
    github: GitHubClient,
    make_loop: LoopFactory,
    make_notice: NoticeFactory,
) -> None:
    config = DeliveryConfig(content_per_minute=3)  # one token of the minute kept for posts
    for _ in range(2):  # two reaction requests: down to the reserve
        await store.call(
            spend_content, github.host.casefold(), config.content_limits, clock.now(), reaction=True
        )
    cid = fake.post_comment(pr, "alice", "ship it")
    await store.call(SyncStore.enqueue, [make_notice(item_ids=(cid,))], at=clock.now())
    await make_loop(github=github, config=config).run_once()
    post = await store.call(
        spend_content, github.host.casefold(), config.content_limits, clock.now()
    )
    assert ((), "pending", None) == (
        fake.reactions(cid),
        reactions(store.sync)[0].status,
        post,
    )
