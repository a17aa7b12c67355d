"""The budget governor: keeps the badge poll's hourly spend under its share of the budget.

Pure: it is told what each batch cost and what GitHub reports as ``remaining`` and
``reset_at``, and it answers how long one round of polls (every batch once) must take.
The same token also serves the workers' own ``gh`` calls, so the governor looks at two
limits and obeys the tighter one:

* the hourly rate: a round every ``interval`` must cost at most ``budget_share`` of the
  hourly budget;
* what is left: until ``reset_at`` the poll may spend at most ``budget_share`` of what
  GitHub says remains, so workers that spend heavily slow the poll down too.

Hinted polls (a webhook asked for one PR now) are paced apart from the rounds, by a
token bucket holding ``hint_share`` of the hourly budget: it starts full with a tenth of
that share, which lets a burst of hints poll at once, and refills with the other nine
tenths over the hour, so hinted polls spend at most ``hint_share`` of the budget in any
hour however many deliveries arrive.
"""

from __future__ import annotations

import math
from datetime import datetime, timedelta

import msgspec

from ._duration import format_duration

__all__ = ["DEFAULT_HINT_SHARE", "DEFAULT_HOURLY_BUDGET", "BudgetGovernor", "Pace"]

DEFAULT_HOURLY_BUDGET = 5000  # GraphQL points per hour for a personal token
DEFAULT_HINT_SHARE = 0.1
"""The share of the hourly budget hinted polls may spend (500 points for a personal token)."""
_LONGEST = timedelta(hours=1)
_HOUR = 3600.0
_BURST = 0.1  # the part of the hint share that may be spent at once


class Pace(msgspec.Struct, frozen=True):
    """How long the next round takes, and why."""

    interval: timedelta
    round_cost: float  # projected points for one round
    projected_per_hour: float  # at ``interval``
    allowed_per_hour: float
    stretched: bool
    # One log line when the poll starts or stops being stretched; None otherwise.
    note: str | None = None


class BudgetGovernor:
    """Paces the poll rounds so the badge queries spend at most ``budget_share`` of
    GitHub's hourly points, stretching the interval when they would spend more; and
    paces hinted polls within ``hint_share`` (``hint_ready_at``, ``spend_hint``)."""

    def __init__(
        self,
        *,
        base_interval: timedelta,
        budget_share: float = 0.5,
        hourly_budget: int = DEFAULT_HOURLY_BUDGET,
        hint_share: float = DEFAULT_HINT_SHARE,
    ) -> None:
        if not 0 < budget_share <= 1:
            raise ValueError("budget_share must be in (0, 1]")
        if not 0 < hint_share <= 1:
            raise ValueError("hint_share must be in (0, 1]")
        self.base_interval = base_interval
        self.budget_share = budget_share
        self.hourly_budget = hourly_budget
        self.hint_share = hint_share
        self._hint_tokens: float | None = None  # None: full (nothing spent yet)
        self._hint_at: datetime | None = None  # when _hint_tokens was last brought up to date
        self._costs: dict[int, int] = {}
        self._remaining: int | None = None
        self._reset_at: datetime | None = None
        self._stretched = False

    def record(
        self,
        *,
        batch: int | None,
        cost: int | None,
        remaining: int | None,
        reset_at: datetime | None,
    ) -> None:
        """What a badge query reported.  ``batch`` is its index in the round (None for an
        extra poll, such as a hint, which still updates ``remaining``)."""
        if batch is not None and cost is not None:
            self._costs[batch] = cost
        if remaining is not None:
            self._remaining = remaining
            # A token with a larger budget (a GitHub App, Enterprise) shows it here.
            self.hourly_budget = max(self.hourly_budget, remaining)
        if reset_at is not None:
            self._reset_at = reset_at

    # -- hinted polls ------------------------------------------------------------------

    @property
    def hint_points_per_hour(self) -> float:
        """The most hinted polls may spend in any hour."""
        return self.hint_share * self.hourly_budget

    def _hint_level(self, now: datetime) -> float:
        allowed = self.hint_points_per_hour
        burst = max(1.0, _BURST * allowed)
        if self._hint_tokens is None or self._hint_at is None:
            return burst
        elapsed = max(0.0, (now - self._hint_at).total_seconds())
        return min(burst, self._hint_tokens + elapsed * (allowed - burst) / _HOUR)

    def hint_ready_at(self, now: datetime, cost: float = 1.0) -> datetime:
        """The earliest time a hinted poll costing about ``cost`` points may run (``now``
        when the hint share has room for it)."""
        level = self._hint_level(now)
        if level >= cost:
            return now
        allowed = self.hint_points_per_hour
        rate = (allowed - max(1.0, _BURST * allowed)) / _HOUR
        if rate <= 0:  # a share so small that the burst is all of it
            return now + _LONGEST
        return now + timedelta(seconds=math.ceil((cost - level) / rate * 1000) / 1000)

    def spend_hint(self, cost: float, now: datetime) -> None:
        """A hinted poll ran at ``now`` and cost ``cost`` points."""
        self._hint_tokens = self._hint_level(now) - cost
        self._hint_at = now

    # -- rounds --------------------------------------------------------------------------

    def plan(self, batches: int, now: datetime, *, spent: float = 0.0) -> Pace:
        """The interval for a round of ``batches`` badge queries starting at ``now``, after
        the round's sweep cost ``spent`` points."""
        known = [c for i, c in self._costs.items() if i < batches]
        per_batch = sum(known) / len(known) if known else 1.0
        round_cost = spent + sum(self._costs.get(i, per_batch) for i in range(batches))
        base = self.base_interval.total_seconds()
        allowed_per_hour = self.budget_share * self.hourly_budget
        needed = [base, round_cost * 3600 / allowed_per_hour]
        if self._remaining is not None and self._reset_at is not None and self._reset_at > now:
            left = (self._reset_at - now).total_seconds()
            share_left = self.budget_share * self._remaining
            # With nothing left to share, wait for the reset.
            needed.append(left if share_left <= 0 else round_cost * left / share_left)
        seconds = min(max(needed), _LONGEST.total_seconds())
        interval = timedelta(seconds=math.ceil(seconds)) if seconds > base else self.base_interval
        stretched = interval > self.base_interval
        per_hour = round_cost * 3600 / interval.total_seconds() if round_cost else 0.0
        note = None
        if stretched != self._stretched:
            self._stretched = stretched
            if stretched:
                points_left = (
                    "GitHub has not said yet how many points are left"
                    if self._remaining is None
                    else f"{self._remaining} points left"
                )
                note = (
                    f"poll budget: stretching the poll interval from "
                    f"{format_duration(self.base_interval)} to {format_duration(interval)} "
                    f"to keep the badge poll within {self.budget_share:.0%} of the GitHub "
                    f"budget ({round_cost:g} points a round, {allowed_per_hour:g} points "
                    f"an hour allowed, {points_left})"
                )
            else:
                note = (
                    f"poll budget: back to the {format_duration(self.base_interval)} poll "
                    f"interval ({per_hour:.0f} points an hour)"
                )
        return Pace(
            interval=interval,
            round_cost=round_cost,
            projected_per_hour=per_hour,
            allowed_per_hour=allowed_per_hour,
            stretched=stretched,
            note=note,
        )
