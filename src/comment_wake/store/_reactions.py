"""The acknowledgement reactions the delivery owes: comment-wake's ``reactions`` table.

One row per (comment, reaction content), owed in the transaction that marks its comment
wake delivered (``owing(...)`` passed as ``mark_delivered``'s ``also``), so a crash can
neither lose nor repeat the wake for it; retried on its own schedule, never holding an
outbox entry.  Functions over the ``SyncStore`` run their own transaction.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from datetime import datetime
from typing import Any, Literal

import msgspec

from review_monitor.store import Migration, SyncStore, Tables, WriteTx, parse_store_time, store_time

from ._hosts import of_workers

__all__ = [
    "REACTIONS",
    "ReactionEntry",
    "ReactionStatus",
    "due_reactions",
    "next_reaction_at",
    "owing",
    "prune_reactions",
    "reactions",
    "settle_reactions",
]

ReactionStatus = Literal["pending", "done", "failed"]
"""A reaction's state: owed, given, or given up after its attempts."""

_V1 = (  # version 1: acknowledgement reactions
    """CREATE TABLE reactions (
        subject_id TEXT NOT NULL,
        content TEXT NOT NULL,
        seq INTEGER NOT NULL,
        host TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('pending', 'done', 'failed')),
        attempts INTEGER NOT NULL DEFAULT 0,
        next_attempt_at TEXT NOT NULL,
        last_detail TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        PRIMARY KEY (subject_id, content)
    )""",
    "CREATE INDEX reactions_due ON reactions (status, next_attempt_at)",
)
REACTIONS = Tables(
    "comment_wake.reactions", (Migration(1, "acknowledgement reactions", _V1),), legacy=4
)
"""The pick-up reactions owed and given, a part of the store the app registers."""


class ReactionEntry(msgspec.Struct, frozen=True):
    """An acknowledgement owed on GitHub: react with ``content`` to ``subject_id``."""

    subject_id: str  # the comment's or review's GraphQL node id
    content: str  # GraphQL ReactionContent, e.g. EYES
    seq: int  # the outbox entry whose delivery asked for it
    host: str
    status: ReactionStatus
    attempts: int
    next_attempt_at: datetime
    last_detail: str | None
    created_at: datetime


_COLUMNS = (
    "subject_id, content, seq, host, status, attempts, next_attempt_at, last_detail, created_at"
)


def _reaction(row: tuple[Any, ...]) -> ReactionEntry:
    return ReactionEntry(
        subject_id=row[0],
        content=row[1],
        seq=row[2],
        host=row[3],
        status=row[4],
        attempts=row[5],
        next_attempt_at=parse_store_time(row[6]),
        last_detail=row[7],
        created_at=parse_store_time(row[8]),
    )


def owing(
    seq: int, subject_ids: Sequence[str], content: str, host: str
) -> Callable[[WriteTx], int]:
    """The write that owes a ``content`` reaction to each of ``subject_ids`` for the
    outbox entry ``seq`` (none when ``content`` is empty), inside the caller's
    transaction.  A reaction already owed or made is left as it is; it returns how many
    were newly owed (each insert is one conditional statement: no lock)."""

    def owe(tx: WriteTx) -> int:
        owed = 0
        if content:
            for subject in dict.fromkeys(subject_ids):
                cur = tx.execute(
                    "INSERT INTO reactions (subject_id, content, seq, host, "
                    "status, next_attempt_at, created_at, updated_at) "
                    "VALUES (?, ?, ?, ?, 'pending', ?, ?, ?) "
                    "ON CONFLICT (subject_id, content) DO NOTHING",
                    (subject, content, seq, host, tx.stamp, tx.stamp, tx.stamp),
                )
                owed += cur.rowcount
        return owed

    return owe


def _owed_for(workers: Collection[str] | None) -> tuple[str, tuple[str, ...]]:
    """The condition that keeps the reactions owed for ``workers``' deliveries (their
    outbox entries), and its arguments."""
    if workers is None:
        return "", ()
    mine, args = of_workers(workers, "worker")
    return f" AND seq IN (SELECT seq FROM outbox WHERE true{mine})", args


def due_reactions(
    db: SyncStore, now: datetime, *, limit: int = 90, workers: Collection[str] | None = None
) -> tuple[ReactionEntry, ...]:
    """Pending reactions whose ``next_attempt_at`` has come, oldest first; ``workers``:
    only those owed for their deliveries (fleet mode: the workers bound on this host)."""
    mine, args = _owed_for(workers)
    with db.read() as tx:
        rows = tx.execute(
            f"SELECT {_COLUMNS} FROM reactions WHERE status = 'pending' "
            f"AND next_attempt_at <= ?{mine} "
            "ORDER BY next_attempt_at, created_at, subject_id LIMIT ?",
            (store_time(now), *args, limit),
        ).fetchall()
    return tuple(_reaction(r) for r in rows)


def next_reaction_at(db: SyncStore, *, workers: Collection[str] | None = None) -> datetime | None:
    """When the earliest pending reaction is due (may be past); None when none is owed.
    ``workers`` as in ``due_reactions``."""
    mine, args = _owed_for(workers)
    with db.read() as tx:
        row = tx.execute(
            f"SELECT MIN(next_attempt_at) FROM reactions WHERE status = 'pending'{mine}", args
        ).fetchone()
    return None if row[0] is None else parse_store_time(row[0])


def reactions(
    db: SyncStore, *, statuses: Sequence[ReactionStatus] = ("pending", "done", "failed")
) -> tuple[ReactionEntry, ...]:
    """Reactions by status, in the order they were owed."""
    marks = ", ".join("?" for _ in statuses)
    with db.read() as tx:
        rows = tx.execute(
            f"SELECT {_COLUMNS} FROM reactions WHERE status IN ({marks}) "
            "ORDER BY created_at, seq, subject_id",
            statuses,
        ).fetchall()
    return tuple(_reaction(r) for r in rows)


def settle_reactions(
    db: SyncStore,
    content: str,
    *,
    done: Sequence[str] = (),
    failed: Sequence[str] = (),
    at: datetime,
    detail: str = "",
    retry_at: datetime | None = None,
    count: bool = True,
) -> None:
    """Record one attempt at some pending reactions: ``done`` ones are finished;
    ``failed`` ones are due again at ``retry_at``, or given up (status failed) when
    it is None.  ``count=False``: no attempt was made (put off before sending)."""
    step = int(count)
    with db.write(at=at) as tx:
        for subject in done:
            tx.execute(
                "UPDATE reactions SET status = 'done', attempts = attempts + 1, "
                "last_detail = NULL, updated_at = ? "
                "WHERE subject_id = ? AND content = ? AND status = 'pending'",
                (tx.stamp, subject, content),
            )
        for subject in failed:
            tx.execute(
                "UPDATE reactions SET status = ?, attempts = attempts + ?, "
                "next_attempt_at = ?, last_detail = ?, updated_at = ? "
                "WHERE subject_id = ? AND content = ? AND status = 'pending'",
                (
                    "failed" if retry_at is None else "pending",
                    step,
                    store_time(retry_at or at),
                    detail,
                    tx.stamp,
                    subject,
                    content,
                ),
            )


def prune_reactions(db: SyncStore, *, before: datetime) -> int:
    """Delete finished reactions (done or given up) last touched before ``before``;
    pending ones stay whatever their age.  Returns how many."""
    with db.write(at=before) as tx:
        cur = tx.execute(
            "DELETE FROM reactions WHERE status IN ('done', 'failed') AND updated_at < ?",
            (store_time(before),),
        )
        return cur.rowcount
