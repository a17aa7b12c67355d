"""The notice outbox: every notice waits here until a publisher has taken it.

Each row has an enqueue ``key`` (the notice's key when it was enqueued, unique:
enqueueing a key again is a no-op, even after the row's content was merged or replaced)
and a ``status``: pending, delivered, parked (refused: kept, not retried until
``unpark``), handed-off (re-routed to the orchestrator, or re-addressed to the PR's
current worker by ``unpark``) or merged (absorbed into an earlier pending notice of the
same worker).  Each attempt is logged in
``outbox_attempts``.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from datetime import datetime
from typing import Any, Literal

import msgspec

from review_monitor._errors import StoreError
from review_monitor._model import PrRef
from review_monitor._notice import Notice, notice_key

from ._db import Database, ReadTx, WriteTx, opt_dt, parse_store_time, placeholders, store_time
from ._owners import pr_lock, read_owner
from ._schema import Migration, Tables

__all__ = [
    "OUTBOX",
    "Also",
    "Attempt",
    "OutboxEntry",
    "OutboxPart",
    "OutboxStatus",
    "count_enqueued",
    "enqueue_notices",
    "readdressed",
]

OutboxStatus = Literal["pending", "delivered", "parked", "handed-off", "merged"]
"""An outbox entry's state; ``pending`` is the only one the delivery loop works on."""
_FINISHED: tuple[OutboxStatus, ...] = ("delivered", "handed-off", "merged")

Also = Callable[[WriteTx], object] | None
"""More writes for the same transaction (an application's rows), or None."""

_V1 = (  # version 1: outbox and its attempt log
    """CREATE TABLE outbox (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        key TEXT NOT NULL UNIQUE,
        worker TEXT NOT NULL,
        kind TEXT NOT NULL,
        host TEXT NOT NULL,
        owner TEXT NOT NULL,
        name TEXT NOT NULL,
        number INTEGER NOT NULL,
        notice BLOB NOT NULL,
        status TEXT NOT NULL CHECK (status IN
            ('pending', 'delivered', 'parked', 'handed-off', 'merged')),
        attempts INTEGER NOT NULL DEFAULT 0,
        created_at TEXT NOT NULL,
        next_attempt_at TEXT NOT NULL,
        last_outcome TEXT,
        last_detail TEXT,
        delivered_at TEXT,
        session_id TEXT,
        routed_to INTEGER,
        updated_at TEXT NOT NULL
    )""",
    "CREATE INDEX outbox_queue ON outbox (status, worker, seq)",
    """CREATE TABLE outbox_attempts (
        seq INTEGER NOT NULL REFERENCES outbox (seq) ON DELETE CASCADE,
        n INTEGER NOT NULL,
        at TEXT NOT NULL,
        outcome TEXT NOT NULL,
        detail TEXT NOT NULL,
        PRIMARY KEY (seq, n)
    )""",
)
# PostgreSQL: version 1 creates both tables there too, its types translated (``seq`` an
# identity column).
OUTBOX = Tables(
    "review_monitor.outbox", (Migration(1, "outbox and its attempt log", _V1),), legacy=2
)


class Attempt(msgspec.Struct, frozen=True):
    """One delivery attempt of an outbox entry."""

    n: int
    at: datetime
    outcome: str  # delivered, busy, gone, refused, error, merged, replaced
    detail: str


class OutboxEntry(msgspec.Struct, frozen=True):
    """One notice in the outbox, with its worker, status, attempts and when it may be tried
    next."""

    seq: int  # insertion order
    key: str  # the enqueue key
    worker: str
    pr: PrRef
    notice: Notice
    status: OutboxStatus
    attempts: int
    created_at: datetime
    next_attempt_at: datetime
    last_outcome: str | None
    last_detail: str | None
    delivered_at: datetime | None
    session_id: str | None
    routed_to: int | None  # handed-off: the hand-off's seq; merged: the entry it joined


_COLUMNS = (
    "seq, key, worker, host, owner, name, number, notice, status, attempts, created_at, "
    "next_attempt_at, last_outcome, last_detail, delivered_at, session_id, routed_to"
)
_NOTICE_DECODER = msgspec.json.Decoder(Notice)


def _entry(row: tuple[Any, ...]) -> OutboxEntry:
    return OutboxEntry(
        seq=row[0],
        key=row[1],
        worker=row[2],
        pr=PrRef(host=row[3], owner=row[4], name=row[5], number=row[6]),
        notice=_NOTICE_DECODER.decode(row[7]),
        status=row[8],
        attempts=row[9],
        created_at=parse_store_time(row[10]),
        next_attempt_at=parse_store_time(row[11]),
        last_outcome=row[12],
        last_detail=row[13],
        delivered_at=opt_dt(row[14]),
        session_id=row[15],
        routed_to=row[16],
    )


def _pr_of(notice: Notice) -> PrRef:
    owner, _, name = notice.pr.repo.partition("/")
    if not owner or not name:
        raise ValueError(f"a notice's repo must be owner/name, got {notice.pr.repo!r}")
    return PrRef(owner=owner, name=name, number=notice.pr.number, host=notice.pr.host)


def enqueue_notices(tx: WriteTx, notices: Sequence[Notice]) -> list[int]:
    """Enqueue ``notices`` inside ``tx``; the seqs newly enqueued (a key already in the
    outbox is skipped)."""
    return [seq for n in notices if (seq := _insert(tx, n)) is not None]


def readdressed(notice: Notice, worker: str) -> Notice:
    """``notice`` addressed to ``worker`` (its PR's worker now), under a key derived from
    its own key and ``worker``: addressing the same notice to the same worker again
    enqueues nothing new, and the new key has no tombstone in any inbox."""
    key = notice_key(worker, _pr_of(notice), notice.kind, [f"readdressed:{notice.key}"])
    return msgspec.structs.replace(notice, worker=worker, key=key)


def count_enqueued(tx: ReadTx, pr: PrRef, kinds: Sequence[str], since: datetime) -> int:
    """How many entries of ``kinds`` about ``pr`` were enqueued at or after ``since``,
    whatever became of them, inside ``tx``.  A cap on a sender holds against concurrent
    writers when a write transaction takes the cap's lock (``tx.lock``) before it counts,
    then enqueues with ``enqueue_notices``."""
    row = tx.execute(
        f"SELECT COUNT(*) FROM outbox WHERE kind IN ({placeholders(kinds)}) "
        "AND host = ? AND owner = ? AND name = ? AND number = ? AND created_at >= ?",
        (*kinds, pr.host, pr.owner, pr.name, pr.number, store_time(since)),
    ).fetchone()
    return int(row[0])


def _insert(tx: WriteTx, notice: Notice) -> int | None:
    """Enqueue ``notice``; its seq, or None when its key is already in the outbox."""
    rows = _insert_rows(tx, notice, "DO NOTHING")
    return int(rows[0][0]) if rows else None


def _insert_or_existing(tx: WriteTx, notice: Notice) -> int:
    """Enqueue ``notice``; its seq, or the seq of the entry that has its key.  One
    statement finds it (the no-op update makes the existing row answer ``RETURNING``),
    and on PostgreSQL holds that row, so a concurrent prune cannot take it from under
    the caller's write."""
    return int(_insert_rows(tx, notice, "DO UPDATE SET key = excluded.key")[0][0])


def _insert_rows(tx: WriteTx, notice: Notice, on_conflict: str) -> list[Any]:
    pr = _pr_of(notice)
    # ``fetchall`` runs the statement to its end.
    return tx.execute(
        "INSERT INTO outbox (key, worker, kind, host, owner, name, number, "
        "notice, status, created_at, next_attempt_at, updated_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?) "
        f"ON CONFLICT (key) {on_conflict} RETURNING seq",
        (
            notice.key,
            notice.worker,
            notice.kind,
            pr.host,
            pr.owner,
            pr.name,
            pr.number,
            msgspec.json.encode(notice),
            tx.stamp,
            tx.stamp,
            tx.stamp,
        ),
    ).fetchall()


def _log(tx: WriteTx, seq: int, outcome: str, detail: str) -> None:
    """Log an attempt at the pending entry ``seq``.

    One conditional statement counts the attempt only while the entry is pending, so a
    concurrent writer cannot finish the entry between a check and this write; on
    PostgreSQL it also holds the entry's row until the transaction ends, for the status
    change that follows."""
    row = tx.execute(
        "UPDATE outbox SET attempts = attempts + 1, last_outcome = ?, last_detail = ?, "
        "updated_at = ? WHERE seq = ? AND status = 'pending' RETURNING attempts",
        (outcome, detail, tx.stamp, seq),
    ).fetchall()
    if not row:
        raise _not_pending(tx, seq)
    tx.execute(
        "INSERT INTO outbox_attempts (seq, n, at, outcome, detail) VALUES (?, ?, ?, ?, ?)",
        (seq, int(row[0][0]), tx.stamp, outcome, detail),
    )


def _heads(workers: Collection[str] | None) -> tuple[str, tuple[str, ...]]:
    """The query of each worker's head (its oldest pending seq), of ``workers`` only
    when given, and its arguments."""
    if workers is None:
        return "SELECT MIN(seq) FROM outbox WHERE status = 'pending' GROUP BY worker", ()
    if not workers:
        return "SELECT MIN(seq) FROM outbox WHERE false", ()
    ids = tuple(sorted(workers))
    return (
        "SELECT MIN(seq) FROM outbox WHERE status = 'pending' "
        f"AND worker IN ({placeholders(ids)}) GROUP BY worker",
        ids,
    )


def _not_pending(tx: ReadTx, seq: int) -> StoreError:
    """Why a conditional write on the pending entry ``seq`` changed nothing (the write
    transaction raises it, so it rolls back)."""
    row = tx.execute("SELECT status FROM outbox WHERE seq = ?", (seq,)).fetchone()
    if row is None:
        return StoreError(f"no outbox entry {seq}")
    return StoreError(f"outbox entry {seq} is {row[0]}, not pending")


def _parked_for(reason: str | None) -> tuple[str, tuple[Any, ...]]:
    """The condition keeping the entries parked for a reason that begins with ``reason``
    (every one for None), and its arguments."""
    if reason is None:
        return "", ()
    return " AND substr(last_detail, 1, ?) = ?", (len(reason), reason)


def _requeue_parked(tx: WriteTx, entry: OutboxEntry, to: str) -> int:
    """Queue the parked ``entry`` again for ``to`` inside ``tx`` (its own worker: back in
    its queue; another: a ``readdressed`` entry, the parked one handed-off to it); 1, or
    0 when it is no longer parked.  Each write is conditional on the entry being parked,
    so no lock is needed for it."""
    if to == entry.worker:
        cur = tx.execute(
            "UPDATE outbox SET status = 'pending', next_attempt_at = ?, updated_at = ? "
            "WHERE seq = ? AND status = 'parked'",
            (tx.stamp, tx.stamp, entry.seq),
        )
        return cur.rowcount
    cur = tx.execute(
        "UPDATE outbox SET status = 'handed-off', last_detail = ?, updated_at = ? "
        "WHERE seq = ? AND status = 'parked'",
        (f"re-addressed to {to}, its PR's worker now", tx.stamp, entry.seq),
    )
    if cur.rowcount != 1:
        return 0
    new = _insert_or_existing(tx, readdressed(entry.notice, to))
    tx.execute("UPDATE outbox SET routed_to = ? WHERE seq = ?", (new, entry.seq))
    return 1


class OutboxPart(Database):
    """``SyncStore``'s outbox: what the delivery loop reads and records."""

    def enqueue(self, notices: Sequence[Notice], *, at: datetime) -> list[int]:
        """Enqueue notices without a mark change; returns the seqs newly enqueued."""
        with self.write(at=at) as tx:
            return enqueue_notices(tx, notices)

    def due(
        self, now: datetime, *, workers: Collection[str] | None = None
    ) -> tuple[OutboxEntry, ...]:
        """The head of each worker's pending queue (its oldest pending entry) when its
        ``next_attempt_at`` has come, earliest due first.  A head that is not due yet
        holds its worker's queue: per worker, notices go out in order.  ``workers``: only
        theirs (fleet mode: the recipients this host delivers to); None: everyone's."""
        heads, args = _heads(workers)
        with self.read() as tx:
            rows = tx.execute(
                f"SELECT {_COLUMNS} FROM outbox WHERE seq IN ({heads}) "
                "AND next_attempt_at <= ? ORDER BY next_attempt_at, seq",
                (*args, store_time(now)),
            ).fetchall()
        return tuple(_entry(r) for r in rows)

    def next_due_at(self, *, workers: Collection[str] | None = None) -> datetime | None:
        """When the earliest worker head is due (may be in the past); None when idle.
        ``workers`` as in ``due``."""
        heads, args = _heads(workers)
        with self.read() as tx:
            row = tx.execute(
                f"SELECT MIN(next_attempt_at) FROM outbox WHERE seq IN ({heads})", args
            ).fetchone()
        return opt_dt(row[0])

    def entry(self, seq: int) -> OutboxEntry | None:
        with self.read() as tx:
            row = tx.execute(f"SELECT {_COLUMNS} FROM outbox WHERE seq = ?", (seq,)).fetchone()
        return None if row is None else _entry(row)

    def entry_by_key(self, key: str) -> OutboxEntry | None:
        with self.read() as tx:
            row = tx.execute(f"SELECT {_COLUMNS} FROM outbox WHERE key = ?", (key,)).fetchone()
        return None if row is None else _entry(row)

    def entries(
        self,
        *,
        worker: str | None = None,
        statuses: Sequence[OutboxStatus] = ("pending",),
    ) -> tuple[OutboxEntry, ...]:
        """Entries in seq order, by status (pending by default), of one worker or all
        (``status`` lists what is waiting per worker)."""
        sql = f"SELECT {_COLUMNS} FROM outbox WHERE status IN ({placeholders(statuses)})"
        args: list[Any] = list(statuses)
        if worker is not None:
            sql += " AND worker = ?"
            args.append(worker)
        with self.read() as tx:
            rows = tx.execute(sql + " ORDER BY seq", args).fetchall()
        return tuple(_entry(r) for r in rows)

    def count_since(self, pr: PrRef, kinds: Sequence[str], since: datetime) -> int:
        """How many entries of ``kinds`` about ``pr`` were enqueued at or after ``since``,
        whatever became of them (``count_enqueued`` in a read transaction)."""
        with self.read() as tx:
            return count_enqueued(tx, pr, kinds, since)

    def attempts(self, seq: int) -> tuple[Attempt, ...]:
        """The attempt log of one entry, oldest first."""
        with self.read() as tx:
            rows = tx.execute(
                "SELECT n, at, outcome, detail FROM outbox_attempts WHERE seq = ? ORDER BY n",
                (seq,),
            ).fetchall()
        return tuple(Attempt(r[0], parse_store_time(r[1]), r[2], r[3]) for r in rows)

    def record_attempt(
        self, seq: int, *, at: datetime, outcome: str, detail: str = "", retry_at: datetime
    ) -> None:
        """Log an attempt that leaves the entry pending (busy, an error) and set when the
        next one is due.  The entry stays at the head of its worker's queue."""
        with self.write(at=at) as tx:
            _log(tx, seq, outcome, detail)
            tx.execute(
                "UPDATE outbox SET next_attempt_at = ? WHERE seq = ?", (store_time(retry_at), seq)
            )

    def mark_delivered(
        self,
        seq: int,
        *,
        at: datetime,
        session_id: str | None = None,
        detail: str = "",
        also: Also = None,
    ) -> None:
        """Log a successful attempt and finish the entry; ``also`` writes in the same
        transaction (the application owes its acknowledgements there)."""
        with self.write(at=at) as tx:
            _log(tx, seq, "delivered", detail)
            tx.execute(
                "UPDATE outbox SET status = 'delivered', delivered_at = ?, session_id = ? "
                "WHERE seq = ?",
                (tx.stamp, session_id, seq),
            )
            if also is not None:
                also(tx)

    def park(self, seq: int, *, at: datetime, detail: str) -> None:
        """Log a refused attempt and park the entry: kept, not retried until ``unpark``.
        The worker's later notices move up behind it."""
        with self.write(at=at) as tx:
            _log(tx, seq, "refused", detail)
            tx.execute("UPDATE outbox SET status = 'parked' WHERE seq = ?", (seq,))

    def unpark(
        self,
        worker: str,
        *,
        at: datetime,
        reason: str | None = None,
        to_current_worker: bool = False,
        staying: Collection[str] = (),
    ) -> int:
        """Put a worker's parked entries back in its queue, due at ``at`` (after its
        configuration was fixed); ``reason``: only those parked for a reason that begins
        so (a fleet host back takes its ``host-lost`` notices).  Returns how many.

        ``to_current_worker`` (fleet mode, where a PR moves between workers): a parked
        notice whose PR another worker owns now (``pr_owners``) goes to that worker,
        ``readdressed`` (the parked entry becomes handed-off, ``routed_to`` the new one),
        and the parked notices of ``worker``'s own PRs left for an earlier worker come to
        ``worker`` the same way.  ``staying``: the kinds that always stay with whom they
        were addressed to (a hand-off or a message for an orchestrator)."""
        only, args = _parked_for(reason)
        if not to_current_worker:
            with self.write(at=at) as tx:
                cur = tx.execute(
                    "UPDATE outbox SET status = 'pending', next_attempt_at = ?, updated_at = ? "
                    f"WHERE worker = ? AND status = 'parked'{only}",
                    (tx.stamp, tx.stamp, worker, *args),
                )
                return cur.rowcount
        with self.read() as tx:
            own = tx.execute(
                f"SELECT {_COLUMNS} FROM outbox WHERE status = 'parked' AND worker = ?{only} "
                "ORDER BY seq",
                (worker, *args),
            ).fetchall()
            owned = {
                str(r[0])
                for r in tx.execute("SELECT pr_key FROM pr_owners WHERE worker = ?", (worker,))
            }
            others = (
                tx.execute(
                    f"SELECT {_COLUMNS} FROM outbox WHERE status = 'parked' "
                    f"AND worker != ?{only} ORDER BY seq",
                    (worker, *args),
                ).fetchall()
                if owned
                else []
            )
        by_pr: dict[str, list[OutboxEntry]] = {}
        for entry in (*map(_entry, own), *map(_entry, others)):
            if entry.worker == worker or (
                entry.pr.key_text in owned and entry.notice.kind not in staying
            ):
                by_pr.setdefault(entry.pr.key_text, []).append(entry)
        queued = 0
        # One transaction per PR, each holding only that PR's lock (the lock a bind takes
        # to move the PR): the owner read there stays the owner until the notices moved.
        for entries in by_pr.values():
            with self.write(at=at) as tx:
                tx.lock(pr_lock(entries[0].pr))
                owner = read_owner(tx, entries[0].pr)
                current = owner.worker if owner is not None and owner.worker else None
                for entry in sorted(entries, key=lambda e: e.seq):
                    to = entry.worker
                    if current is not None and entry.notice.kind not in staying:
                        to = current
                    if to == worker or entry.worker == worker:
                        queued += _requeue_parked(tx, entry, to)
        return queued

    def hand_off(self, seq: int, handoff: Notice, *, at: datetime, detail: str) -> int:
        """The worker is gone: log the attempt, mark the entry handed-off and enqueue
        ``handoff`` (addressed to the orchestrator) in the same transaction.  Returns the
        hand-off's seq (the existing one when its key was already enqueued)."""
        with self.write(at=at) as tx:
            _log(tx, seq, "gone", detail)
            new = _insert_or_existing(tx, handoff)
            tx.execute(
                "UPDATE outbox SET status = 'handed-off', routed_to = ? WHERE seq = ?",
                (new, seq),
            )
            return new

    def merge_into(
        self, seq: int, notice: Notice, *, absorbed: Sequence[int] = (), at: datetime
    ) -> None:
        """Replace the pending entry ``seq``'s notice with ``notice`` (a busy head with
        later notices for the same PR folded in) and mark each ``absorbed`` entry merged
        into it.  Enqueue keys stay as they were, so re-enqueueing any of them is still a
        no-op.  All entries must be pending and belong to the same worker."""
        # Each write is conditional on what it checks (pending, the worker), so no
        # concurrent writer can change an entry between a check and the write; a refusal
        # raises, and the whole merge rolls back.
        with self.write(at=at) as tx:
            cur = tx.execute(
                "UPDATE outbox SET notice = ?, kind = ?, updated_at = ? "
                "WHERE seq = ? AND status = 'pending' AND worker = ?",
                (msgspec.json.encode(notice), notice.kind, tx.stamp, seq, notice.worker),
            )
            if cur.rowcount != 1:
                head = tx.execute("SELECT status FROM outbox WHERE seq = ?", (seq,)).fetchone()
                if head is None or head[0] != "pending":
                    raise StoreError(f"outbox entry {seq} is not pending")
                raise StoreError(f"outbox entry {seq} belongs to another worker")
            for other in absorbed:
                cur = tx.execute(
                    "UPDATE outbox SET status = 'merged', routed_to = ?, updated_at = ? "
                    "WHERE seq = ? AND seq != ? AND status = 'pending' AND worker = ?",
                    (seq, tx.stamp, other, seq, notice.worker),
                )
                if cur.rowcount != 1:
                    raise StoreError(f"outbox entry {other} cannot be merged into {seq}")

    def prune(self, *, before: datetime) -> int:
        """Delete finished entries (delivered, handed-off, merged) last touched before
        ``before``, with their attempt logs; returns how many.  Their keys go with them,
        so keep ``before`` far behind anything a listener could enqueue again."""
        with self.write(at=before) as tx:
            cur = tx.execute(
                f"DELETE FROM outbox WHERE status IN ({placeholders(_FINISHED)}) "
                "AND updated_at < ?",
                (*_FINISHED, store_time(before)),
            )
            return cur.rowcount
