"""Leases in the store: a named row with a holder, an expiry and a term (fleet mode).

A lease is how one of many daemons sharing a PostgreSQL store holds a role: its host
(``host:<host_id>``), the one reader of a GitHub identity, the janitor.  The pattern is
River's and Oban's: a row, renewed well before it expires; whoever finds it expired takes
it with ``term + 1``.  The term is a fencing token: a holder's writes carry it, and a
write under an old term loses, so a holder cut off for longer than the expiry can do no
harm when it comes back.

- ``acquire_lease`` takes the lease when it is free, expired, already ours, or held under
  the same ``claim`` (a restart of the same host: the state directory's claim, whose
  local lock the caller holds, so the old process is dead).  Otherwise it reports who
  holds it until when.
- ``renew_lease`` is one conditional statement: it extends the lease only while the
  holder and term are still ours, and says whether they were.
- ``release_lease`` lets it expire now, keeping the term, so the next holder's is higher.

Time is an argument.  In production it is the database's clock (``database_now``), one
clock for every host whatever their own clocks say; tests pass the app's clock.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import msgspec

from ._db import ReadTx, WriteTx, parse_store_time, store_time
from ._schema import Migration, Tables

__all__ = [
    "LEASES",
    "HeldLease",
    "LeaseHeld",
    "LeaseRow",
    "acquire_lease",
    "database_now",
    "read_lease",
    "read_leases",
    "release_lease",
    "renew_lease",
]

_V1 = (
    """CREATE TABLE leases (
        name TEXT PRIMARY KEY,
        holder TEXT NOT NULL,
        claim TEXT NOT NULL,
        term INTEGER NOT NULL,
        expires_at TEXT NOT NULL,
        renewed_at TEXT NOT NULL
    )""",
)
LEASES = Tables("review_monitor.leases", (Migration(1, "leases", _V1),))


class LeaseRow(msgspec.Struct, frozen=True):
    """A lease as the store holds it."""

    name: str
    holder: str  # the holding process's instance id
    claim: str  # what may take it over at once (the host's state directory)
    term: int
    expires_at: datetime
    renewed_at: datetime


class HeldLease(msgspec.Struct, frozen=True):
    """A lease this caller now holds: renew it with its ``term``."""

    name: str
    holder: str
    term: int
    expires_at: datetime
    took_over: bool  # from another live holder of the same claim (a restart)


class LeaseHeld(msgspec.Struct, frozen=True):
    """Another holder has the lease until ``expires_at``."""

    row: LeaseRow


def database_now(tx: ReadTx) -> datetime:
    """The database's clock: PostgreSQL's ``clock_timestamp()``, shared by every host;
    SQLite's is this machine's, the only one that opens the file."""
    if tx.dialect == "postgresql":
        value = tx.execute("SELECT clock_timestamp()").fetchone()[0]
        if isinstance(value, datetime):
            return value.astimezone(UTC)
    return datetime.now(UTC)


_LEASE_COLUMNS = "name, holder, claim, term, expires_at, renewed_at"


def _lease_row(row: tuple[object, ...]) -> LeaseRow:
    name, holder, claim, term, expires_at, renewed_at = row
    return LeaseRow(
        str(name),
        str(holder),
        str(claim),
        int(str(term)),
        parse_store_time(str(expires_at)),
        parse_store_time(str(renewed_at)),
    )


def read_lease(tx: ReadTx, name: str) -> LeaseRow | None:
    """The lease ``name`` as of ``tx``; None when nobody ever took it."""
    row = tx.execute(f"SELECT {_LEASE_COLUMNS} FROM leases WHERE name = ?", (name,)).fetchone()
    return None if row is None else _lease_row(row)


def read_leases(tx: ReadTx) -> list[LeaseRow]:
    """Every lease ever taken, by name, as of ``tx`` (``status``' view of the fleet)."""
    rows = tx.execute(f"SELECT {_LEASE_COLUMNS} FROM leases ORDER BY name").fetchall()
    return [_lease_row(r) for r in rows]


def acquire_lease(
    tx: WriteTx,
    name: str,
    holder: str,
    *,
    now: datetime,
    ttl: timedelta,
    claim: str = "",
) -> HeldLease | LeaseHeld:
    """Take or renew ``name`` for ``holder`` inside ``tx``, or say who holds it."""
    tx.lock(f"lease:{name}")
    row = read_lease(tx, name)
    expires = now + ttl
    if row is None:
        tx.execute(
            "INSERT INTO leases (name, holder, claim, term, expires_at, renewed_at) "
            "VALUES (?, ?, ?, 1, ?, ?)",
            (name, holder, claim, store_time(expires), store_time(now)),
        )
        return HeldLease(name, holder, 1, expires, took_over=False)
    if row.holder == holder:
        term = row.term
    elif row.expires_at <= now or (claim and row.claim == claim):
        term = row.term + 1
    else:
        return LeaseHeld(row)
    tx.execute(
        "UPDATE leases SET holder = ?, claim = ?, term = ?, expires_at = ?, renewed_at = ? "
        "WHERE name = ?",
        (holder, claim, term, store_time(expires), store_time(now), name),
    )
    took_over = row.holder != holder and row.expires_at > now
    return HeldLease(name, holder, term, expires, took_over=took_over)


def renew_lease(
    tx: WriteTx, lease: HeldLease, *, now: datetime, ttl: timedelta
) -> HeldLease | None:
    """Extend ``lease`` to ``now + ttl`` while it is still ours at its term; None when
    it is not (expired and taken, or taken over): the caller has lost it."""
    expires = now + ttl
    cur = tx.execute(
        "UPDATE leases SET expires_at = ?, renewed_at = ? "
        "WHERE name = ? AND holder = ? AND term = ? AND expires_at > ?",
        (
            store_time(expires),
            store_time(now),
            lease.name,
            lease.holder,
            lease.term,
            store_time(now),
        ),
    )
    if cur.rowcount != 1:
        return None
    return HeldLease(lease.name, lease.holder, lease.term, expires, took_over=False)


def release_lease(tx: WriteTx, lease: HeldLease, *, now: datetime) -> bool:
    """Let ``lease`` expire at ``now`` (the term stays, so the next holder's is higher);
    False when it was no longer ours."""
    cur = tx.execute(
        "UPDATE leases SET expires_at = ? WHERE name = ? AND holder = ? AND term = ?",
        (store_time(now), lease.name, lease.holder, lease.term),
    )
    return cur.rowcount == 1
