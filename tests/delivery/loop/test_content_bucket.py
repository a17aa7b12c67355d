"""The identity's content bucket (``take_content``): a refused take names a later time, and
reactions are shed before posts (they leave ``post_reserve`` of each window)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from comment_wake.store import BucketLevels, ContentLimits, take_content, take_token
from review_monitor.store import Store, SyncStore
from review_monitor.testing import FixedClock


def test_a_refused_take_is_never_tried_again_at_the_same_time(
    store: Store, clock: FixedClock
) -> None:
    # Tried every 100 ms, the minute bucket refills to a level a rounding error short of
    # a whole token (at 20 s): the time to try again must still lie ahead, or a sender
    # that trusts it tries again and again without time moving.
    limits = ContentLimits(per_minute=3, per_hour=150)
    start = clock.now()
    same: list[timedelta] = []
    for k in range(400):
        now = start + timedelta(milliseconds=100 * k)
        with store.sync.write(at=now) as tx:
            retry_at = take_content(tx, "github.com", limits, now)
        if retry_at is not None and retry_at <= now:
            same.append(now - start)
    assert [] == same


def _takes(levels: BucketLevels, limits: ContentLimits, *, reaction: bool) -> BucketLevels:
    """Take tokens at ``levels.at`` until refused; the levels left."""
    keep = limits.post_reserve if reaction else (0, 0)
    while not isinstance(taken := take_token(levels, limits, levels.at, keep=keep), datetime):
        levels = taken
    return levels


def test_a_flood_of_reactions_leaves_posts_the_reserve_of_the_minute() -> None:
    limits = ContentLimits()  # 20 a minute, 150 an hour
    full = BucketLevels.full(limits, datetime(2026, 12, 4, 12, 0, tzinfo=UTC))
    after_reactions = _takes(full, limits, reaction=True)
    after_posts = _takes(after_reactions, limits, reaction=False)
    reactions = full.minute - after_reactions.minute
    posts = after_reactions.minute - after_posts.minute
    assert (14, 6) == (reactions, posts)


def test_a_flood_of_reactions_leaves_posts_the_reserve_of_the_hour() -> None:
    # A reaction every second for an hour (each refused one tried again the next second).
    limits = ContentLimits()
    start = datetime(2026, 12, 4, 12, 0, tzinfo=UTC)
    levels = BucketLevels.full(limits, start)
    for s in range(3600):
        taken = take_token(levels, limits, start + timedelta(seconds=s), keep=limits.post_reserve)
        if not isinstance(taken, datetime):
            levels = taken
    assert 50 <= levels.hour < 51  # the hour's reserve stays for posts


def test_a_shed_reaction_is_told_when_the_reserve_is_passed_again() -> None:
    limits = ContentLimits(per_minute=20, per_hour=150)
    at = datetime(2026, 12, 4, 12, 0, tzinfo=UTC)
    at_reserve = BucketLevels(6.0, 100.0, at)  # the minute holds just its reserve
    retry_at = take_token(at_reserve, limits, at, keep=limits.post_reserve)
    assert at + timedelta(seconds=3) == retry_at  # one token of 20 a minute


def test_a_post_takes_a_token_reactions_leave_to_it(any_store: SyncStore) -> None:
    limits = ContentLimits(per_minute=3, per_hour=150)  # a reserve of one for posts
    at = datetime(2026, 12, 4, 12, 0, tzinfo=UTC)
    with any_store.write(at=at) as tx:
        reactions = [take_content(tx, "github.com", limits, at, reaction=True) for _ in range(3)]
        post = take_content(tx, "github.com", limits, at)
    assert ([None, None, at + timedelta(seconds=20)], None) == (reactions, post)
