"""The ``content`` bucket: what one GitHub identity may create (posts and reactions).

GitHub limits content creation per account on top of the hourly budget (its secondary
limits), and a worker's tools post under the user's own login.  So every post the post
sender makes and every reaction request the acknowledger sends takes one token from one
bucket per identity (GitHub host and login): two token buckets, one refilled over a
minute and one over an hour, both starting full.  The bucket is a row, taken in a write
transaction, so daemons sharing a store share it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from review_monitor.store import (
    Migration,
    SyncStore,
    Tables,
    WriteTx,
    parse_store_time,
    store_time,
)

__all__ = ["CONTENT", "ContentLimits", "spend_content", "take_content"]

_V1 = (
    """CREATE TABLE content_buckets (
        identity TEXT PRIMARY KEY,
        minute REAL NOT NULL,
        hour REAL NOT NULL,
        at TEXT NOT NULL
    )""",
)
# PostgreSQL's REAL is single precision: a level is a double there, as SQLite's REAL is.
_V1_POSTGRES = (
    """CREATE TABLE content_buckets (
        identity TEXT COLLATE "C" PRIMARY KEY,
        minute DOUBLE PRECISION NOT NULL,
        hour DOUBLE PRECISION NOT NULL,
        at TEXT COLLATE "C" NOT NULL
    )""",
)
CONTENT = Tables(
    "comment_wake.content",
    (Migration(1, "the content bucket", _V1, postgres=_V1_POSTGRES),),
)
"""The content bucket of each identity, a part of the store the app registers."""

_MINUTE = timedelta(minutes=1)
_HOUR = timedelta(hours=1)
_TICK = timedelta(microseconds=1)  # the store's time resolution


@dataclass(frozen=True, slots=True)
class ContentLimits:
    """How much content one identity may create: ``per_minute`` and ``per_hour``."""

    per_minute: int = 20
    per_hour: int = 150


def _refill(level: float, capacity: int, window: timedelta, elapsed: timedelta) -> float:
    return min(float(capacity), level + capacity * (elapsed / window))


def _ready(level: float, capacity: int, window: timedelta) -> timedelta:
    """How long until a bucket at ``level`` holds one whole token: at least a microsecond
    while it holds less (a level a rounding error short of a token rounds to no wait, and
    a sender told "now" would try again and again while no time passes)."""
    if level >= 1:
        return timedelta(0)
    return max(_TICK, window * ((1 - level) / capacity))


def take_content(
    tx: WriteTx, identity: str, limits: ContentLimits, now: datetime
) -> datetime | None:
    """Take one token of ``identity``'s bucket inside ``tx``: None when taken, else the
    time it may be tried again (nothing taken).  It reads the level, then writes what it
    read less one: under the bucket's lock (``content:IDENTITY``), taken first, so two
    daemons cannot both take the last token."""
    tx.lock(f"content:{identity}")
    row = tx.execute(
        "SELECT minute, hour, at FROM content_buckets WHERE identity = ?", (identity,)
    ).fetchone()
    if row is None:
        minute, hour = float(limits.per_minute), float(limits.per_hour)
    else:
        # A clock stepped back refills nothing (and takes nothing back).
        elapsed = max(timedelta(0), now - parse_store_time(row[2]))
        minute = _refill(row[0], limits.per_minute, _MINUTE, elapsed)
        hour = _refill(row[1], limits.per_hour, _HOUR, elapsed)
    if minute < 1 or hour < 1:
        wait = max(_ready(minute, limits.per_minute, _MINUTE), _ready(hour, limits.per_hour, _HOUR))
        return now + wait
    tx.execute(
        "INSERT INTO content_buckets (identity, minute, hour, at) VALUES (?, ?, ?, ?) "
        "ON CONFLICT (identity) DO UPDATE SET minute = excluded.minute, "
        "hour = excluded.hour, at = excluded.at",
        (identity, minute - 1, hour - 1, store_time(now)),
    )
    return None


def spend_content(
    db: SyncStore, identity: str, limits: ContentLimits, now: datetime
) -> datetime | None:
    """``take_content`` in a write transaction of its own (the post sender's and the
    acknowledger's one call before each request)."""
    with db.write(at=now) as tx:
        return take_content(tx, identity, limits, now)
