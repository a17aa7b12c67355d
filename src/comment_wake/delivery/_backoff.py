"""The bounded per-worker retry schedule: exponential, capped, jittered (pure)."""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import datetime, timedelta

__all__ = ["Backoff", "RetryState"]


@dataclass(frozen=True)
class Backoff:
    """Delay before retry number ``attempt`` (1 after the first failure).

    The undisturbed delay is ``base * factor ** (attempt - 1)``, capped at ``cap``; jitter then
    shortens it by a random fraction of at most ``jitter``, so workers that failed together
    spread out and no delay ever exceeds ``cap``.
    """

    base: timedelta = timedelta(seconds=5)
    cap: timedelta = timedelta(minutes=15)
    factor: float = 2.0
    jitter: float = 0.5

    def __post_init__(self) -> None:
        if self.base <= timedelta(0):
            raise ValueError("backoff base must be positive")
        if self.cap < self.base:
            raise ValueError("backoff cap must be at least its base")
        if self.factor < 1.0:
            raise ValueError("backoff factor must be at least 1")
        if not 0.0 <= self.jitter <= 1.0:
            raise ValueError("backoff jitter must be between 0 and 1")

    def delay(
        self, attempt: int, rng: random.Random, *, at_least: timedelta | None = None
    ) -> timedelta:
        """The jittered delay; ``at_least`` (a receiver's Retry-After) raises it, up to ``cap``."""
        if attempt < 1:
            raise ValueError("attempt counts from 1")
        cap = self.cap.total_seconds()
        # The exponent is clamped so a long outage cannot overflow the float.
        raw = min(cap, self.base.total_seconds() * self.factor ** min(attempt - 1, 64))
        seconds = raw * (1.0 - self.jitter * rng.random())
        if at_least is not None:
            seconds = min(cap, max(seconds, at_least.total_seconds()))
        return timedelta(seconds=seconds)


@dataclass(frozen=True)
class RetryState:
    """One worker's retry position: consecutive failures and when it may try again."""

    failures: int = 0
    not_before: datetime | None = None

    def after_failure(
        self,
        policy: Backoff,
        now: datetime,
        rng: random.Random,
        *,
        at_least: timedelta | None = None,
    ) -> RetryState:
        failures = self.failures + 1
        delay = policy.delay(failures, rng, at_least=at_least)
        return RetryState(failures=failures, not_before=now + delay)

    def after_success(self) -> RetryState:
        return RetryState()

    def ready(self, now: datetime) -> bool:
        return self.not_before is None or now >= self.not_before
