"""The rate limit's arithmetic: gap, hourly and daily sliding windows."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from comment_wake.wake import WakeConfig, release_at

T = datetime(2025, 6, 2, 9, 0, tzinfo=UTC)
CONFIG = WakeConfig()


def minutes(*ms: float) -> list[datetime]:
    return [T + timedelta(minutes=m) for m in ms]


def test_no_wakes_means_no_limit() -> None:
    assert None is release_at([], CONFIG)


def test_next_wake_waits_the_minimum_gap() -> None:
    assert T + timedelta(minutes=1) == release_at(minutes(0), CONFIG)


def test_seventh_wake_in_an_hour_waits_for_the_oldest_to_leave_the_window() -> None:
    assert T + timedelta(minutes=60) == release_at(minutes(0, 10, 20, 30, 40, 50), CONFIG)


def test_wakes_that_left_the_hour_window_do_not_count() -> None:
    assert T + timedelta(minutes=71) == release_at(minutes(0, 10, 20, 30, 40, 50, 70), CONFIG)


def test_daily_cap_waits_for_a_day_window_slot() -> None:
    config = WakeConfig(wakes_per_day=3)
    assert T + timedelta(hours=24) == release_at(minutes(0, 100, 200), config)
