"""``TokenRefusal``: when a refused token (401) stops the app, from the poll's events."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from comment_wake.app._refusal import TokenRefusal
from review_monitor import Fault, PollRound, PrRef

T0 = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)
PR = PrRef("octo", "repo", 1)


def _refused(at: datetime) -> list[Fault | PollRound]:
    return [
        Fault(at=at, kind="auth", detail="badge poll of 1 PRs failed: AuthError"),
        PollRound(at=at, prs=(PR,), batches=1, cost=0, remaining=None, failed_batches=1),
    ]


def _read(at: datetime) -> PollRound:
    return PollRound(at=at, prs=(PR,), batches=1, cost=1, remaining=4999)


def _verdicts(refusal: TokenRefusal, events: list[Fault | PollRound]) -> list[bool]:
    return [refusal.see(e) for e in events]


def test_three_refused_rounds_in_a_row_stop_the_app_at_the_third_round() -> None:
    refusal = TokenRefusal()
    events = [e for n in range(3) for e in _refused(T0 + timedelta(seconds=n))]
    assert [False, False, False, False, False, True] == _verdicts(refusal, events)


def test_a_round_that_read_a_batch_starts_the_count_again() -> None:
    refusal = TokenRefusal()
    events = [
        *_refused(T0),
        *_refused(T0 + timedelta(seconds=1)),
        _read(T0 + timedelta(seconds=2)),
        *_refused(T0 + timedelta(seconds=3)),
        *_refused(T0 + timedelta(seconds=4)),
    ]
    assert not any(_verdicts(refusal, events))


def test_a_round_failed_for_another_reason_neither_counts_nor_resets() -> None:
    refusal = TokenRefusal()
    server_error: list[Fault | PollRound] = [
        Fault(at=T0, kind="github", detail="badge poll of 1 PRs failed: TransientError"),
        PollRound(at=T0, prs=(PR,), batches=1, cost=0, remaining=None, failed_batches=1),
    ]
    events = [*_refused(T0), *server_error, *_refused(T0), *_refused(T0)]
    assert [False, False, False, False, False, False, False, True] == _verdicts(refusal, events)


def test_refusals_for_two_minutes_stop_the_app_however_few_rounds_that_was() -> None:
    refusal = TokenRefusal()
    events = [*_refused(T0), Fault(at=T0 + timedelta(minutes=2), kind="auth")]
    assert [False, False, True] == _verdicts(refusal, events)
