"""The identity's content bucket (``take_content``): a refused take names a later time."""

from __future__ import annotations

from datetime import timedelta

from comment_wake.store import ContentLimits, take_content
from review_monitor.store import Store
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
