"""The budget row of a GitHub identity (fleet mode): what GitHub last said is left.

Every host of a fleet spends the same identity's points (the reader's polls, the owners'
gap pages and permission lookups), and each sees only its own answers.  Each writes what
its client last heard (``remaining`` and ``reset_at`` per resource, GraphQL and REST
``core`` apart) into one row per identity and resource, merged:

- an answer from a later window (its reset more than ``WINDOW_SKEW`` after the row's)
  replaces the row;
- an answer from the same window keeps the lower ``remaining``: within a window the
  count only goes down, so the lower one is the later truth;
- an answer from an earlier window is dropped.

The reader seeds its budget governor from the row when it takes the lease, and
``status`` on any host shows it.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import timedelta

from review_monitor._ratelimit import RateLimit

from ._db import ReadTx, WriteTx, opt_dt, parse_store_time, store_time
from ._schema import Migration, Tables

__all__ = ["BUDGET", "WINDOW_SKEW", "read_budget", "read_budgets", "record_budget"]

_V1 = (
    """CREATE TABLE budget (
        identity TEXT NOT NULL,
        resource TEXT NOT NULL,
        remaining INTEGER NOT NULL,
        lim INTEGER,
        reset_at TEXT NOT NULL,
        observed_at TEXT NOT NULL,
        PRIMARY KEY (identity, resource)
    )""",
)
BUDGET = Tables("review_monitor.budget", (Migration(1, "the identity's budget", _V1),))

# Two hosts' clocks (and GitHub's rounding of resetAt) differ by a little: resets closer
# than this are the same window.
WINDOW_SKEW = timedelta(seconds=60)


def record_budget(tx: WriteTx, identity: str, limits: Iterable[RateLimit]) -> None:
    """Merge what one host's client last heard into ``identity``'s rows, inside ``tx``."""
    for limit in limits:
        if limit.remaining is None or limit.reset_at is None:
            continue
        tx.lock(f"budget:{identity}:{limit.resource}")
        row = tx.execute(
            "SELECT remaining, reset_at FROM budget WHERE identity = ? AND resource = ?",
            (identity, limit.resource),
        ).fetchone()
        if row is not None:
            stored_reset = parse_store_time(row[1])
            if limit.reset_at < stored_reset - WINDOW_SKEW:
                continue  # an earlier window's answer
            if abs(limit.reset_at - stored_reset) <= WINDOW_SKEW and int(row[0]) <= limit.remaining:
                continue  # the same window: the row already says less is left
        tx.execute(
            "INSERT INTO budget (identity, resource, remaining, lim, reset_at, observed_at) "
            "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (identity, resource) DO UPDATE SET "
            "remaining = excluded.remaining, lim = excluded.lim, reset_at = excluded.reset_at, "
            "observed_at = excluded.observed_at",
            (
                identity,
                limit.resource,
                limit.remaining,
                limit.limit,
                store_time(limit.reset_at),
                store_time(limit.observed_at),
            ),
        )


def read_budget(tx: ReadTx, identity: str) -> dict[str, RateLimit]:
    """``identity``'s rows by resource, as of ``tx``."""
    return read_budgets(tx).get(identity, {})


def read_budgets(tx: ReadTx) -> dict[str, dict[str, RateLimit]]:
    """Every identity's rows, by identity and resource, as of ``tx``."""
    rows = tx.execute(
        "SELECT identity, resource, lim, remaining, reset_at, observed_at FROM budget "
        "ORDER BY identity, resource"
    ).fetchall()
    out: dict[str, dict[str, RateLimit]] = {}
    for identity, resource, lim, remaining, reset_at, observed_at in rows:
        out.setdefault(str(identity), {})[str(resource)] = RateLimit(
            resource=str(resource),
            limit=None if lim is None else int(lim),
            remaining=int(remaining),
            used=None,
            reset_at=opt_dt(reset_at),
            observed_at=parse_store_time(observed_at),
        )
    return out
