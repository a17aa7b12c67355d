"""What became of each delivered comment: comment-wake's ``comment_outcomes`` table.

A row per (comment, worker), written ``open`` in the transaction that marks its comment
wake delivered (``delivering(...)`` joins ``mark_delivered``'s ``also``), so a delivered
comment can never be missing from it; the worker's ``comment_addressed`` tool moves it to
``done``, ``declined``, ``handed-off`` or ``failed`` (the last call wins).  Seed 004
tracks each comment's fate the same way and sums it up per PR (``OutcomeSummary``).
The table holds ids, URLs, logins and times, never a comment's text.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any, Final, Literal, get_args

import msgspec

from review_monitor import Notice, PrRef
from review_monitor.store import (
    Migration,
    ReadTx,
    SyncStore,
    Tables,
    WriteTx,
    parse_store_time,
    store_time,
)

__all__ = [
    "OUTCOMES",
    "OUTCOME_ITEM_KINDS",
    "Addressed",
    "CommentFate",
    "CommentOutcome",
    "Outcome",
    "OutcomeSummary",
    "address",
    "delivering",
    "outcome_summary",
    "outcomes",
    "prune_outcomes",
]

CommentFate = Literal["open", "done", "declined", "handed-off", "failed"]
"""A delivered comment's fate: ``open`` until its worker says what became of it."""
Outcome = CommentFate
"""Deprecated: the old name of ``CommentFate``, kept for one release."""
Addressed = Literal["done", "declined", "handed-off", "failed"]
"""What a worker may say became of a comment (``comment_addressed``)."""

OUTCOME_ITEM_KINDS: Final = frozenset({"comment", "review", "review-comment"})
"""The notice item kinds whose fate is tracked: a person's words, as for the pick-up."""

_V1 = (  # version 1: per-comment outcomes
    """CREATE TABLE comment_outcomes (
        subject_id TEXT NOT NULL,
        worker TEXT NOT NULL,
        host TEXT NOT NULL,
        repo TEXT NOT NULL,
        number INTEGER NOT NULL,
        database_id INTEGER,
        url TEXT NOT NULL,
        author TEXT,
        item_kind TEXT NOT NULL,
        seq INTEGER NOT NULL,
        delivered_at TEXT NOT NULL,
        outcome TEXT NOT NULL
            CHECK (outcome IN ('open', 'done', 'declined', 'handed-off', 'failed')),
        note TEXT NOT NULL DEFAULT '',
        updated_at TEXT NOT NULL,
        PRIMARY KEY (subject_id, worker)
    )""",
    "CREATE INDEX comment_outcomes_by_worker ON comment_outcomes (worker, delivered_at)",
)
# version 2: a PR is keyed by ``pr_key`` (``PrRef.key_text``), the same text on every
# engine, not by its spelled repo compared with SQLite's NOCASE; the spelled host and repo
# stay, for display.  An old SQLite store's rows take their key from their spelling
# (SQLite's lower() folds ASCII only, as ``PrRef.key`` does).  A PostgreSQL store is
# created at this shape, here.
_V2_TABLE = """CREATE TABLE comment_outcomes{suffix} (
        subject_id {text} NOT NULL,
        worker {text} NOT NULL,
        host {text} NOT NULL,
        repo {text} NOT NULL,
        number {integer} NOT NULL,
        pr_key {text} NOT NULL,
        database_id {integer},
        url {text} NOT NULL,
        author {text},
        item_kind {text} NOT NULL,
        seq {integer} NOT NULL,
        delivered_at {text} NOT NULL,
        outcome {text} NOT NULL
            CHECK (outcome IN ('open', 'done', 'declined', 'handed-off', 'failed')),
        note {text} NOT NULL DEFAULT '',
        updated_at {text} NOT NULL,
        PRIMARY KEY (subject_id, worker)
    )"""
_V2_INDEXES = (
    "CREATE INDEX comment_outcomes_by_worker ON comment_outcomes (worker, delivered_at)",
    "CREATE INDEX comment_outcomes_by_pr ON comment_outcomes (pr_key, delivered_at)",
)
_V2 = (
    _V2_TABLE.format(suffix="_v2", text="TEXT", integer="INTEGER"),
    "INSERT INTO comment_outcomes_v2 (subject_id, worker, host, repo, number, pr_key, "
    "database_id, url, author, item_kind, seq, delivered_at, outcome, note, updated_at) "
    "SELECT subject_id, worker, host, repo, number, "
    "lower(host) || '/' || lower(repo) || '#' || number, "
    "database_id, url, author, item_kind, seq, delivered_at, outcome, note, updated_at "
    "FROM comment_outcomes",
    "DROP TABLE comment_outcomes",
    "ALTER TABLE comment_outcomes_v2 RENAME TO comment_outcomes",
    *_V2_INDEXES,
)
_V2_POSTGRES = (
    _V2_TABLE.format(suffix="", text='TEXT COLLATE "C"', integer="BIGINT"),
    *_V2_INDEXES,
)
OUTCOMES = Tables(
    "comment_wake.outcomes",
    (
        # PostgreSQL: nothing here, the table is created at its current shape (version 2).
        Migration(1, "per-comment outcomes", _V1, postgres=()),
        Migration(2, "outcomes keyed by pr_key", _V2, postgres=_V2_POSTGRES),
    ),
)
"""What became of every delivered comment, a part of the store the app registers."""


class CommentOutcome(msgspec.Struct, frozen=True, kw_only=True):
    """One delivered comment and what its worker says became of it."""

    subject_id: str  # the comment's or review's GraphQL node id
    worker: str
    host: str
    repo: str  # owner/name
    number: int
    database_id: int | None
    url: str
    author: str | None
    item_kind: str
    seq: int  # the outbox entry that delivered it
    delivered_at: datetime
    outcome: CommentFate
    note: str
    updated_at: datetime


class OutcomeSummary(msgspec.Struct, frozen=True, kw_only=True):
    """A PR's delivered comments counted by outcome."""

    delivered: int = 0
    open: int = 0
    done: int = 0
    declined: int = 0
    handed_off: int = 0
    failed: int = 0


_COLUMNS = (
    "subject_id, worker, host, repo, number, database_id, url, author, item_kind, seq, "
    "delivered_at, outcome, note, updated_at"
)


def _outcome(row: tuple[Any, ...]) -> CommentOutcome:
    return CommentOutcome(
        subject_id=row[0],
        worker=row[1],
        host=row[2],
        repo=row[3],
        number=row[4],
        database_id=row[5],
        url=row[6],
        author=row[7],
        item_kind=row[8],
        seq=row[9],
        delivered_at=parse_store_time(row[10]),
        outcome=row[11],
        note=row[12],
        updated_at=parse_store_time(row[13]),
    )


def delivering(seq: int, notice: Notice) -> Callable[[WriteTx], int]:
    """The write that records each comment of the delivered comment wake ``notice``
    (outbox entry ``seq``) as ``open`` for its worker, inside the caller's transaction.
    A comment already recorded for the worker keeps its outcome; it returns how many
    rows were new (each insert is one conditional statement: no lock)."""

    owner, _, name = notice.pr.repo.partition("/")
    key = PrRef(owner=owner, name=name, number=notice.pr.number, host=notice.pr.host).key_text

    def record(tx: WriteTx) -> int:
        new = 0
        for item in notice.items:
            if item.kind not in OUTCOME_ITEM_KINDS:
                continue
            cur = tx.execute(
                "INSERT INTO comment_outcomes (subject_id, worker, host, repo, number, "
                "pr_key, database_id, url, author, item_kind, seq, delivered_at, outcome, "
                "updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'open', ?) "
                "ON CONFLICT (subject_id, worker) DO NOTHING",
                (
                    item.id,
                    notice.worker,
                    notice.pr.host,
                    notice.pr.repo,
                    notice.pr.number,
                    key,
                    item.database_id,
                    item.url,
                    item.author,
                    item.kind,
                    seq,
                    tx.stamp,
                    tx.stamp,
                ),
            )
            new += cur.rowcount
        return new

    return record


def _select(tx: ReadTx, where: str, args: Sequence[object]) -> tuple[CommentOutcome, ...]:
    rows = tx.execute(
        f"SELECT {_COLUMNS} FROM comment_outcomes WHERE {where} "
        "ORDER BY delivered_at, seq, subject_id",
        tuple(args),
    ).fetchall()
    return tuple(_outcome(r) for r in rows)


def outcomes(
    db: SyncStore, *, worker: str | None = None, pr: PrRef | None = None
) -> tuple[CommentOutcome, ...]:
    """Delivered comments (one worker's, one PR's, or everyone's), in the order they were
    delivered.  A PR's owner and name compare case-insensitively, as GitHub's do (by
    ``pr_key``)."""
    where: list[str] = ["1 = 1"]
    args: list[object] = []
    if worker is not None:
        where.append("worker = ?")
        args.append(worker)
    if pr is not None:
        where.append("pr_key = ?")
        args.append(pr.key_text)
    with db.read() as tx:
        return _select(tx, " AND ".join(where), args)


def address(
    tx: WriteTx, worker: str, subject_ids: Sequence[str], outcome: Addressed, note: str
) -> int:
    """Set the outcome of ``worker``'s delivered comments ``subject_ids`` inside ``tx``
    (the last call wins: each is one statement, reading nothing first); returns how many
    rows it changed."""
    changed = 0
    for subject in dict.fromkeys(subject_ids):
        cur = tx.execute(
            "UPDATE comment_outcomes SET outcome = ?, note = ?, updated_at = ? "
            "WHERE subject_id = ? AND worker = ?",
            (outcome, note, tx.stamp, subject, worker),
        )
        changed += cur.rowcount
    return changed


def outcome_summary(rows: Sequence[CommentOutcome]) -> OutcomeSummary:
    """``rows`` counted by outcome."""
    counts = dict.fromkeys(get_args(CommentFate), 0)
    for row in rows:
        counts[row.outcome] += 1
    return OutcomeSummary(
        delivered=len(rows),
        open=counts["open"],
        done=counts["done"],
        declined=counts["declined"],
        handed_off=counts["handed-off"],
        failed=counts["failed"],
    )


def prune_outcomes(db: SyncStore, *, before: datetime) -> int:
    """Delete outcomes last touched before ``before`` (open ones too: a comment nobody
    addressed in the prune period is history).  Returns how many."""
    with db.write(at=before) as tx:
        cur = tx.execute("DELETE FROM comment_outcomes WHERE updated_at < ?", (store_time(before),))
        return cur.rowcount
