"""The seen set (``review_monitor._seen``): what is new, what stays known, when to retry."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from review_monitor import Author, BadgeItem
from review_monitor.seen import Seen, lag_floor, retry_delay, settle_seen, unseen

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
S = timedelta(seconds=1)
SCHEDULE = (timedelta(minutes=1), timedelta(minutes=2), timedelta(minutes=4))


def item(iid: str, at: datetime) -> BadgeItem:
    return BadgeItem("comment", iid, None, at, Author("bob"))


def seen(n: int) -> list[Seen]:
    return [Seen(f"IC_{k}", T0 + k * S) for k in range(n)]


def test_unseen_is_above_the_floor_and_unknown_oldest_first() -> None:
    items = [item("IC_3", T0 + 3 * S), item("IC_1", T0 + S), item("IC_2", T0 + 2 * S)]
    items.append(item("IC_0", T0))
    assert ["IC_1", "IC_3"] == [i.id for i in unseen(items, T0, {"IC_2"})]


def test_without_a_floor_every_unknown_item_is_unseen() -> None:
    assert ["IC_0"] == [i.id for i in unseen([item("IC_0", T0)], None, set())]


def test_settle_raises_the_floor_to_the_highest_raise_and_drops_ids_below_it() -> None:
    floor, kept = settle_seen(T0, (T0 + 2 * S, None, T0 + S), seen(5), (), 64)
    assert (T0 + 2 * S, ["IC_3", "IC_4"]) == (floor, [h.id for h in kept])


def test_settle_never_lowers_the_floor() -> None:
    assert T0 + 3 * S == settle_seen(T0 + 3 * S, (T0,), seen(2), (), 64)[0]


def test_settle_stops_just_below_an_item_still_open() -> None:
    floor, _ = settle_seen(None, (T0 + 10 * S,), seen(3), (T0 + 4 * S,), 64)
    assert T0 + 4 * S - timedelta(microseconds=1) == floor


def test_settle_raises_the_floor_when_more_than_capacity_ids_are_handled() -> None:
    floor, kept = settle_seen(None, (), seen(70), (), 64)
    assert (T0 + 5 * S, [f"IC_{k}" for k in range(6, 70)]) == (floor, [h.id for h in kept])


def test_lag_floor_trails_the_newest_handled_item() -> None:
    assert T0 + 4 * S - timedelta(minutes=5) == lag_floor(seen(5), timedelta(minutes=5))


def test_lag_floor_of_nothing_handled_is_none() -> None:
    assert None is lag_floor([], timedelta(minutes=5))


def test_retry_delay_follows_the_schedule_then_gives_up() -> None:
    assert [*SCHEDULE, None] == [retry_delay(k, SCHEDULE) for k in (1, 2, 3, 4)]


def test_retry_delay_counts_failures_from_one() -> None:
    with pytest.raises(ValueError, match="starts at 1"):
        retry_delay(0, SCHEDULE)
