"""The per-worker retry schedule (pure)."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from comment_wake.delivery._backoff import Backoff, RetryState

NO_JITTER = Backoff(base=timedelta(seconds=5), cap=timedelta(minutes=15), factor=2.0, jitter=0.0)
T0 = datetime(2026, 3, 1, tzinfo=UTC)


def test_delay_doubles_without_jitter() -> None:
    rng = random.Random(1)
    delays = [NO_JITTER.delay(n, rng).total_seconds() for n in range(1, 6)]
    assert [5.0, 10.0, 20.0, 40.0, 80.0] == delays


def test_delay_is_capped() -> None:
    assert timedelta(minutes=15) == NO_JITTER.delay(20, random.Random(1))


def test_a_very_long_outage_does_not_overflow() -> None:
    assert timedelta(minutes=15) == NO_JITTER.delay(10_000, random.Random(1))


@settings(max_examples=200)
@given(attempt=st.integers(1, 200), seed=st.integers(0, 2**32))
def test_jittered_delay_stays_within_its_band(attempt: int, seed: int) -> None:
    policy = Backoff(base=timedelta(seconds=5), cap=timedelta(minutes=15), jitter=0.5)
    undisturbed = min(900.0, 5.0 * 2.0 ** min(attempt - 1, 64))
    delay = policy.delay(attempt, random.Random(seed)).total_seconds()
    assert undisturbed * 0.5 <= delay <= undisturbed


def test_jitter_comes_from_the_injected_random() -> None:
    policy = Backoff()
    first = [policy.delay(3, random.Random(7)) for _ in range(2)]
    assert first[0] == first[1]


def test_jitter_spreads_workers_that_failed_together() -> None:
    policy = Backoff()
    rng = random.Random(3)
    delays = {policy.delay(4, rng) for _ in range(20)}
    assert len(delays) > 1


def test_retry_after_raises_the_delay_up_to_the_cap() -> None:
    rng = random.Random(1)
    raised = NO_JITTER.delay(1, rng, at_least=timedelta(seconds=60))
    capped = NO_JITTER.delay(1, rng, at_least=timedelta(hours=2))
    assert (timedelta(seconds=60), timedelta(minutes=15)) == (raised, capped)


def test_retry_state_waits_after_a_failure() -> None:
    state = RetryState().after_failure(NO_JITTER, T0, random.Random(1))
    assert (1, False, True) == (
        state.failures,
        state.ready(T0 + timedelta(seconds=4)),
        state.ready(T0 + timedelta(seconds=5)),
    )


def test_retry_state_grows_with_consecutive_failures() -> None:
    rng = random.Random(1)
    state = RetryState()
    for _ in range(3):
        state = state.after_failure(NO_JITTER, T0, rng)
    assert T0 + timedelta(seconds=20) == state.not_before


def test_success_resets_the_retry_state() -> None:
    state = RetryState().after_failure(NO_JITTER, T0, random.Random(1)).after_success()
    assert (0, True) == (state.failures, state.ready(T0))


@pytest.mark.parametrize(
    "kwargs",
    [
        {"base": timedelta(0)},
        {"base": timedelta(seconds=10), "cap": timedelta(seconds=5)},
        {"factor": 0.5},
        {"jitter": 1.5},
    ],
)
def test_a_nonsensical_policy_is_rejected(kwargs: dict[str, object]) -> None:
    with pytest.raises(ValueError, match="backoff"):
        Backoff(**kwargs)  # type: ignore[arg-type]
