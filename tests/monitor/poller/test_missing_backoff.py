"""The backoff of a PR GitHub answers NOT_FOUND: 1, 2, 4, 8 minutes, capped at
``missing_pr_interval``, reset by a successful read (pure, times as arguments)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from review_monitor._missing import Missing, missed, missing_wait

M = timedelta(minutes=1)
T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


def test_the_waits_double_from_one_minute_up_to_the_interval() -> None:
    assert [1 * M, 2 * M, 4 * M, 8 * M, 15 * M, 15 * M] == [
        missing_wait(n, 15 * M) for n in range(1, 7)
    ]


def test_a_run_of_misses_tries_again_at_1_3_7_15_and_30_minutes() -> None:
    entry: Missing | None = None
    tries = []
    now = T0
    for _ in range(5):
        entry = missed(entry, now, 15 * M)
        tries.append(entry.retry_at - T0)
        now = entry.retry_at
    assert [1 * M, 3 * M, 7 * M, 15 * M, 30 * M] == tries


def test_a_miss_after_a_successful_read_starts_again_at_one_minute() -> None:
    before = missed(missed(missed(None, T0, 15 * M), T0 + M, 15 * M), T0 + 3 * M, 15 * M)
    # A successful read drops the entry: the next miss has no ``before``.
    later = T0 + 60 * M
    assert (3, Missing(since=later, misses=1, retry_at=later + M)) == (
        before.misses,
        missed(None, later, 15 * M),
    )


def test_an_interval_under_a_minute_caps_the_first_wait_too() -> None:
    assert 30 * timedelta(seconds=1) == missing_wait(1, timedelta(seconds=30))


def test_a_long_run_of_misses_stays_at_the_interval() -> None:
    assert 15 * M == missing_wait(10_000, 15 * M)
