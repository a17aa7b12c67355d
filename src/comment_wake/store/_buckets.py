"""Token buckets per identity: a minute window and an hour window, each refilled evenly
over its length and starting full.  The rules are pure (``take_token``); the rows are
taken in a write transaction under the bucket's lock (``take_row``), so daemons sharing
a store share each bucket.

A taker may be told to keep a reserve (``keep``): it takes a token only while a window
holds more than its reserve plus one, so a lower-priority taker (reactions) is shed
first and the reserve stays for the others (posts), who take down to zero.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal, Protocol

from review_monitor.store import WriteTx, parse_store_time, store_time

__all__ = ["BucketLevels", "BucketLimits", "bucket_tables", "take_row", "take_token"]

_MINUTE = timedelta(minutes=1)
_HOUR = timedelta(hours=1)
_TICK = timedelta(microseconds=1)  # the store's time resolution


class BucketLimits(Protocol):
    """A bucket's two windows: how many tokens each holds when full."""

    @property
    def per_minute(self) -> int: ...

    @property
    def per_hour(self) -> int: ...


@dataclass(frozen=True, slots=True)
class BucketLevels:
    """What a bucket holds in each window at ``at`` (fractions of a token included)."""

    minute: float
    hour: float
    at: datetime

    @classmethod
    def full(cls, limits: BucketLimits, at: datetime) -> BucketLevels:
        return cls(float(limits.per_minute), float(limits.per_hour), at)

    def refilled(self, limits: BucketLimits, now: datetime) -> BucketLevels:
        """The levels at ``now``; a clock stepped back refills nothing (and takes
        nothing back)."""
        elapsed = max(timedelta(0), now - self.at)
        return BucketLevels(
            _refill(self.minute, limits.per_minute, _MINUTE, elapsed),
            _refill(self.hour, limits.per_hour, _HOUR, elapsed),
            now,
        )


def _refill(level: float, capacity: int, window: timedelta, elapsed: timedelta) -> float:
    return min(float(capacity), level + capacity * (elapsed / window))


def _ready(level: float, capacity: int, window: timedelta, keep: int) -> timedelta:
    """How long until a window at ``level`` holds one whole token above ``keep``: at
    least a microsecond while it holds less (a level a rounding error short of a token
    rounds to no wait, and a taker told "now" would try again and again while no time
    passes)."""
    need = keep + 1
    if level >= need:
        return timedelta(0)
    return max(_TICK, window * ((need - level) / capacity))


def take_token(
    levels: BucketLevels,
    limits: BucketLimits,
    now: datetime,
    *,
    keep: tuple[int, int] = (0, 0),
) -> BucketLevels | datetime:
    """Take one token from ``levels`` (as of their ``at``) at ``now``: the levels left,
    or, when a window would fall below its reserve (``keep``: tokens of the minute and
    of the hour this taker leaves to others), the time it may try again (nothing taken).
    """
    level = levels.refilled(limits, now)
    minute_keep, hour_keep = keep
    if level.minute < minute_keep + 1 or level.hour < hour_keep + 1:
        wait = max(
            _ready(level.minute, limits.per_minute, _MINUTE, minute_keep),
            _ready(level.hour, limits.per_hour, _HOUR, hour_keep),
        )
        return now + wait
    return BucketLevels(level.minute - 1, level.hour - 1, now)


Table = Literal["content_buckets", "gap_buckets"]


def bucket_tables(table: Table) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The first migration of a bucket table: its SQLite DDL and its PostgreSQL DDL.
    Every bucket is the same row (``take_row``); only the table's name differs."""
    sqlite = f"""CREATE TABLE {table} (
        identity TEXT PRIMARY KEY,
        minute REAL NOT NULL,
        hour REAL NOT NULL,
        at TEXT NOT NULL
    )"""
    # PostgreSQL's REAL is single precision: a level is a double there, as SQLite's is.
    postgres = f"""CREATE TABLE {table} (
        identity TEXT COLLATE "C" PRIMARY KEY,
        minute DOUBLE PRECISION NOT NULL,
        hour DOUBLE PRECISION NOT NULL,
        at TEXT COLLATE "C" NOT NULL
    )"""
    return (sqlite,), (postgres,)


def take_row(
    tx: WriteTx,
    table: Table,
    identity: str,
    limits: BucketLimits,
    now: datetime,
    *,
    keep: tuple[int, int] = (0, 0),
) -> datetime | None:
    """``take_token`` on ``identity``'s row of ``table`` inside ``tx``: None when taken,
    else the time it may be tried again (nothing written).  It reads the level, then
    writes what it read less one: under the bucket's lock (``content:IDENTITY``,
    ``gap:IDENTITY``), taken first, so two daemons cannot both take the last token."""
    # The table is one of two fixed names, never an input.
    tx.lock(f"{table.removesuffix('_buckets')}:{identity}")
    row = tx.execute(
        f"SELECT minute, hour, at FROM {table} WHERE identity = ?",
        (identity,),
    ).fetchone()
    if row is None:
        levels = BucketLevels.full(limits, now)
    else:
        levels = BucketLevels(float(row[0]), float(row[1]), parse_store_time(row[2]))
    taken = take_token(levels, limits, now, keep=keep)
    if isinstance(taken, datetime):
        return taken
    tx.execute(
        f"INSERT INTO {table} (identity, minute, hour, at) VALUES (?, ?, ?, ?) "
        "ON CONFLICT (identity) DO UPDATE SET minute = excluded.minute, "
        "hour = excluded.hour, at = excluded.at",
        (identity, taken.minute, taken.hour, store_time(now)),
    )
    return None
