"""A decision's rate evidence counts the windows its comment went by: people's, or the
trusted bots' own (issue 27: a bot never uses up people's wakes, nor shows as doing so)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from comment_wake.service import rate_evidence
from comment_wake.wake import WakeConfig, WakeMark

NOW = datetime(2026, 12, 4, 9, 0, tzinfo=UTC)
MARK = WakeMark(
    wakes=(NOW - timedelta(minutes=5),),
    bot_wakes=(NOW - timedelta(minutes=3), NOW - timedelta(minutes=1)),
)


def test_peoples_evidence_counts_peoples_wakes_only() -> None:
    rate = rate_evidence(MARK, WakeConfig(), NOW)
    assert (1, 6) == (rate.wakes_in_hour, rate.per_hour)


def test_a_bots_evidence_counts_the_bots_windows() -> None:
    rate = rate_evidence(MARK, WakeConfig(), NOW, bots=True)
    assert (2, 2, NOW - timedelta(minutes=3) + timedelta(hours=1)) == (
        rate.wakes_in_hour,
        rate.per_hour,
        rate.next_wake_at,
    )
