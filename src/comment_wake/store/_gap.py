"""The ``gap`` bucket (fleet mode): the flood gap pages one identity's owners may read.

In a fleet one host reads the badges for every host, and the owners make only the reads
their decisions need.  The one such read that may wait is a flood's gap pages beyond the
first (issue 28): each takes a token of a bucket per identity, a row shaped as the content
bucket (``_buckets``: a minute window and an hour window, both starting full), and none
is read while the identity's shared budget row says GraphQL points are low
(``budget_low``).  A page refused is deferred, never skipped: the wake core keeps the
span unread below its floor and reads it again at a later look.  A single host has no
gap bucket: its gap reads are bounded by ``[wake] gap_pages`` as they always were.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from review_monitor.github import RateLimit
from review_monitor.store import Migration, SyncStore, Tables, WriteTx, read_budget

from ._buckets import bucket_tables, take_row

__all__ = ["GAP", "GAP_BUDGET_RESERVE", "GapLimits", "budget_low", "spend_gap", "take_gap"]

_V1, _V1_POSTGRES = bucket_tables("gap_buckets")
GAP = Tables(
    "comment_wake.gap",
    (Migration(1, "the gap bucket", _V1, postgres=_V1_POSTGRES),),
)
"""The gap bucket of each identity, a part of the store the app registers."""

GAP_BUDGET_RESERVE = 0.2
"""The share of GraphQL's hourly limit kept from gap pages, in proportion to what is left
of the window: with 5,000 points an hour, gap pages beyond the first wait while fewer
than 1,000 remain an hour before the reset, fewer than 500 half an hour before it."""

_HOUR = timedelta(hours=1)
_DEFAULT_LIMIT = 5000  # GraphQL points an hour, when the row does not say


@dataclass(frozen=True, slots=True)
class GapLimits:
    """The gap pages beyond the first that one identity's owners may read: ``per_hour``
    (``[fleet] gap_pages_per_hour``), and a minute window of a third of it (at least one),
    so one flood cannot spend the hour at once."""

    per_hour: int = 60

    @property
    def per_minute(self) -> int:
        return max(1, self.per_hour // 3)


def budget_low(graphql: RateLimit | None, now: datetime) -> bool:
    """Whether the identity's shared budget row says too few GraphQL points are left for
    optional reads: fewer than ``GAP_BUDGET_RESERVE`` of the hourly limit, scaled by the
    part of the hour left before the reset.  No row, or a window already reset: not low."""
    if graphql is None or graphql.remaining is None or graphql.reset_at is None:
        return False
    if graphql.reset_at <= now:
        return False
    left = min(1.0, (graphql.reset_at - now) / _HOUR)
    limit = graphql.limit or _DEFAULT_LIMIT
    return graphql.remaining < GAP_BUDGET_RESERVE * limit * left


def take_gap(
    tx: WriteTx, identity: str, budget: str | None, limits: GapLimits, now: datetime
) -> bool:
    """Take one token of ``identity``'s gap bucket inside ``tx``: False (nothing taken)
    when the bucket is empty or the budget row of ``budget`` (``github_host:login``; None:
    not known yet) says the points are low."""
    if budget is not None and budget_low(read_budget(tx, budget).get("graphql"), now):
        return False
    return take_row(tx, "gap_buckets", identity, limits, now) is None


def spend_gap(
    db: SyncStore, identity: str, budget: str | None, limits: GapLimits, now: datetime
) -> bool:
    """``take_gap`` in a write transaction of its own (one call before each gap page
    beyond the first)."""
    with db.write(at=now) as tx:
        return take_gap(tx, identity, budget, limits, now)
