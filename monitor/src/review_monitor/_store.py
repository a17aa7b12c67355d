"""The state store: watches, listener marks and the notice outbox, in one SQLite file.

SQLite through the standard library: WAL, ``isolation_level=None`` and an explicit
``BEGIN IMMEDIATE`` around every write, so the daemon and short commands (bind, status)
share the file with brief transactions.  ``SyncStore`` is the blocking API (short
commands, worker threads); ``Store`` is the async facade that runs each call off the
event loop with ``anyio.to_thread``.

The outbox holds every notice until a publisher has taken it.  ``commit`` writes a
listener's new mark and enqueues its notices in one transaction (the transactional
outbox): a crash can neither lose a notice nor record its cause as handled without it.
Each row has an enqueue ``key`` (the notice's key when it was enqueued, unique:
enqueueing a key again is a no-op, even after the row's content was merged or replaced)
and a ``status``: pending, delivered, parked (refused: kept, not retried until
``unpark``), handed-off (re-routed to the orchestrator) or merged (absorbed into an
earlier pending notice of the same worker).
"""

from __future__ import annotations

import functools
import sqlite3
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Any, Literal, ParamSpec, TypeVar

import anyio.to_thread
import msgspec

from ._clock import Clock, SystemClock
from ._errors import StoreError
from ._lease import Lease
from ._listener import WATCH_TOOL, Watch
from ._migrations import migrate
from ._model import PrRef
from ._notice import Notice

__all__ = [
    "Attempt",
    "Mark",
    "OutboxEntry",
    "OutboxStatus",
    "ReactionEntry",
    "ReactionStatus",
    "RecordTx",
    "Store",
    "SyncStore",
]

OutboxStatus = Literal["pending", "delivered", "parked", "handed-off", "merged"]
_FINISHED: tuple[OutboxStatus, ...] = ("delivered", "handed-off", "merged")
ReactionStatus = Literal["pending", "done", "failed"]

_P = ParamSpec("_P")
_T = TypeVar("_T")


class Mark(msgspec.Struct, frozen=True):
    """A listener's opaque state for one PR: the listener encodes and versions ``blob``."""

    version: int
    blob: bytes


class Attempt(msgspec.Struct, frozen=True):
    """One delivery attempt of an outbox entry."""

    n: int
    at: datetime
    outcome: str  # delivered, busy, gone, refused, error, merged, replaced
    detail: str


class OutboxEntry(msgspec.Struct, frozen=True):
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


def _ts(t: datetime) -> str:
    if t.tzinfo is None:
        raise ValueError("store times must be timezone-aware")
    # Fixed width, so text order is time order in SQL comparisons.
    return t.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _dt(text: str) -> datetime:
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)


def _opt_dt(text: str | None) -> datetime | None:
    return None if text is None else _dt(text)


def _pr_of(notice: Notice) -> PrRef:
    owner, _, name = notice.pr.repo.partition("/")
    if not owner or not name:
        raise ValueError(f"a notice's repo must be owner/name, got {notice.pr.repo!r}")
    return PrRef(owner=owner, name=name, number=notice.pr.number, host=notice.pr.host)


_ENTRY_COLUMNS = (
    "seq, key, worker, host, owner, name, number, notice, status, attempts, created_at, "
    "next_attempt_at, last_outcome, last_detail, delivered_at, session_id, routed_to"
)

_NOTICE_DECODER = msgspec.json.Decoder(Notice)

_REACTION_COLUMNS = (
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
        next_attempt_at=_dt(row[6]),
        last_detail=row[7],
        created_at=_dt(row[8]),
    )


def _entry(row: tuple[Any, ...]) -> OutboxEntry:
    return OutboxEntry(
        seq=row[0],
        key=row[1],
        worker=row[2],
        pr=PrRef(host=row[3], owner=row[4], name=row[5], number=row[6]),
        notice=_NOTICE_DECODER.decode(row[7]),
        status=row[8],
        attempts=row[9],
        created_at=_dt(row[10]),
        next_attempt_at=_dt(row[11]),
        last_outcome=row[12],
        last_detail=row[13],
        delivered_at=_opt_dt(row[14]),
        session_id=row[15],
        routed_to=row[16],
    )


class SyncStore:
    """The blocking store API.  Thread-safe: one connection, used under a lock."""

    def __init__(self, conn: sqlite3.Connection, path: Path) -> None:
        self._conn = conn
        self._lock = threading.Lock()
        self.path = path

    @classmethod
    def open(cls, path: Path | str, *, clock: Clock | None = None) -> SyncStore:
        """Open (creating if needed) and migrate the store at ``path``."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=10.0)
        try:
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = FULL")
            conn.execute("PRAGMA foreign_keys = ON")
            conn.execute("PRAGMA busy_timeout = 10000")
            migrate(conn, (clock or SystemClock()).now())
        except BaseException:
            conn.close()
            raise
        return cls(conn, path)

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

    @contextmanager
    def _read(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._conn.execute("BEGIN")
            try:
                yield self._conn
            finally:
                self._conn.execute("COMMIT")

    # -- watch registry ------------------------------------------------------------

    def add_watch(self, thread_id: str, pr: PrRef, *, at: datetime) -> bool:
        """Register ``thread_id`` as watching ``pr``; False when it already was."""
        with self._write() as c:
            cur = c.execute(
                "INSERT OR IGNORE INTO watches (thread_id, host, owner, name, number, tool, "
                "added_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (thread_id, pr.host, pr.owner, pr.name, pr.number, WATCH_TOOL, _ts(at)),
            )
            return cur.rowcount == 1

    def remove_watch(self, thread_id: str, pr: PrRef) -> bool:
        with self._write() as c:
            cur = c.execute(
                "DELETE FROM watches WHERE thread_id = ? AND host = ? AND owner = ? "
                "AND name = ? AND number = ? AND tool = ?",
                (thread_id, pr.host, pr.owner, pr.name, pr.number, WATCH_TOOL),
            )
            return cur.rowcount > 0

    def watches(self) -> tuple[Watch, ...]:
        """Every watch, sorted by PR then thread id."""
        with self._read() as c:
            rows = c.execute(
                "SELECT thread_id, host, owner, name, number FROM watches WHERE tool = ?",
                (WATCH_TOOL,),
            ).fetchall()
        out = [Watch(r[0], PrRef(host=r[1], owner=r[2], name=r[3], number=r[4])) for r in rows]
        return tuple(sorted(out, key=lambda w: (w.pr, w.thread_id)))

    # -- marks and the transactional outbox ------------------------------------------

    def load_mark(self, pr: PrRef, listener: str) -> Mark | None:
        with self._read() as c:
            row = c.execute(
                "SELECT version, blob FROM marks WHERE host = ? AND owner = ? AND name = ? "
                "AND number = ? AND listener = ?",
                (pr.host, pr.owner, pr.name, pr.number, listener),
            ).fetchone()
        return None if row is None else Mark(int(row[0]), bytes(row[1]))

    def marked_prs(self, listener: str) -> tuple[PrRef, ...]:
        """Every PR that has a mark for ``listener``, watched or not, sorted (a listener
        that keeps work in its marks finds it again after a restart this way)."""
        with self._read() as c:
            rows = c.execute(
                "SELECT host, owner, name, number FROM marks WHERE listener = ?", (listener,)
            ).fetchall()
        return tuple(sorted(PrRef(host=r[0], owner=r[1], name=r[2], number=r[3]) for r in rows))

    def commit(
        self,
        pr: PrRef,
        listener: str,
        *,
        mark: Mark | tuple[int, bytes] | None,
        notices: Sequence[Notice] = (),
        records: Sequence[tuple[str, str, bytes]] = (),
        at: datetime,
    ) -> list[int]:
        """Write ``listener``'s new mark for ``pr`` (None: leave it), enqueue ``notices``
        and put the application ``records`` (``(namespace, key, value)``), all in one
        transaction.  Returns the seqs of the notices newly enqueued; a notice whose key
        is already in the outbox is skipped."""
        if mark is not None and not isinstance(mark, Mark):
            mark = Mark(*mark)
        with self._write() as c:
            if mark is not None:
                c.execute(
                    "INSERT INTO marks (host, owner, name, number, listener, version, blob, "
                    "updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) "
                    "ON CONFLICT (host, owner, name, number, listener) DO UPDATE SET "
                    "version = excluded.version, blob = excluded.blob, "
                    "updated_at = excluded.updated_at",
                    (
                        pr.host,
                        pr.owner,
                        pr.name,
                        pr.number,
                        listener,
                        mark.version,
                        mark.blob,
                        _ts(at),
                    ),
                )
            tx = RecordTx(c, at)
            for namespace, key, value in records:
                tx.put(namespace, key, value)
            return [seq for n in notices if (seq := self._insert(c, n, at)) is not None]

    def enqueue(self, notices: Sequence[Notice], *, at: datetime) -> list[int]:
        """Enqueue notices without a mark change; returns the seqs newly enqueued."""
        with self._write() as c:
            return [seq for n in notices if (seq := self._insert(c, n, at)) is not None]

    @staticmethod
    def _insert(c: sqlite3.Connection, notice: Notice, at: datetime) -> int | None:
        pr = _pr_of(notice)
        cur = c.execute(
            "INSERT OR IGNORE INTO outbox (key, worker, kind, host, owner, name, number, "
            "notice, status, created_at, next_attempt_at, updated_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?)",
            (
                notice.key,
                notice.worker,
                notice.kind,
                pr.host,
                pr.owner,
                pr.name,
                pr.number,
                msgspec.json.encode(notice),
                _ts(at),
                _ts(at),
                _ts(at),
            ),
        )
        return cur.lastrowid if cur.rowcount == 1 else None

    # -- the delivery loop's view --------------------------------------------------

    def due(self, now: datetime) -> tuple[OutboxEntry, ...]:
        """The head of each worker's pending queue (its oldest pending entry) when its
        ``next_attempt_at`` has come, earliest due first.  A head that is not due yet
        holds its worker's queue: per worker, notices go out in order."""
        with self._read() as c:
            rows = c.execute(
                f"SELECT {_ENTRY_COLUMNS} FROM outbox WHERE seq IN "
                "(SELECT MIN(seq) FROM outbox WHERE status = 'pending' GROUP BY worker) "
                "AND next_attempt_at <= ? ORDER BY next_attempt_at, seq",
                (_ts(now),),
            ).fetchall()
        return tuple(_entry(r) for r in rows)

    def next_due_at(self) -> datetime | None:
        """When the earliest worker head is due (may be in the past); None when idle."""
        with self._read() as c:
            row = c.execute(
                "SELECT MIN(next_attempt_at) FROM outbox WHERE seq IN "
                "(SELECT MIN(seq) FROM outbox WHERE status = 'pending' GROUP BY worker)"
            ).fetchone()
        return _opt_dt(row[0])

    def entry(self, seq: int) -> OutboxEntry | None:
        with self._read() as c:
            row = c.execute(f"SELECT {_ENTRY_COLUMNS} FROM outbox WHERE seq = ?", (seq,)).fetchone()
        return None if row is None else _entry(row)

    def entry_by_key(self, key: str) -> OutboxEntry | None:
        with self._read() as c:
            row = c.execute(f"SELECT {_ENTRY_COLUMNS} FROM outbox WHERE key = ?", (key,)).fetchone()
        return None if row is None else _entry(row)

    def entries(
        self,
        *,
        worker: str | None = None,
        statuses: Sequence[OutboxStatus] = ("pending",),
    ) -> tuple[OutboxEntry, ...]:
        """Entries in seq order, by status (pending by default), of one worker or all
        (``status`` lists what is waiting per worker)."""
        marks = ", ".join("?" for _ in statuses)
        sql = f"SELECT {_ENTRY_COLUMNS} FROM outbox WHERE status IN ({marks})"
        args: list[Any] = list(statuses)
        if worker is not None:
            sql += " AND worker = ?"
            args.append(worker)
        with self._read() as c:
            rows = c.execute(sql + " ORDER BY seq", args).fetchall()
        return tuple(_entry(r) for r in rows)

    def attempts(self, seq: int) -> tuple[Attempt, ...]:
        """The attempt log of one entry, oldest first."""
        with self._read() as c:
            rows = c.execute(
                "SELECT n, at, outcome, detail FROM outbox_attempts WHERE seq = ? ORDER BY n",
                (seq,),
            ).fetchall()
        return tuple(Attempt(r[0], _dt(r[1]), r[2], r[3]) for r in rows)

    def record_attempt(
        self, seq: int, *, at: datetime, outcome: str, detail: str = "", retry_at: datetime
    ) -> None:
        """Log an attempt that leaves the entry pending (busy, an error) and set when the
        next one is due.  The entry stays at the head of its worker's queue."""
        with self._write() as c:
            self._log(c, seq, at, outcome, detail, expect="pending")
            c.execute("UPDATE outbox SET next_attempt_at = ? WHERE seq = ?", (_ts(retry_at), seq))

    def mark_delivered(
        self, seq: int, *, at: datetime, session_id: str | None = None, detail: str = ""
    ) -> None:
        """Log a successful attempt and finish the entry."""
        with self._write() as c:
            self._log(c, seq, at, "delivered", detail, expect="pending")
            c.execute(
                "UPDATE outbox SET status = 'delivered', delivered_at = ?, session_id = ? "
                "WHERE seq = ?",
                (_ts(at), session_id, seq),
            )

    def park(self, seq: int, *, at: datetime, detail: str) -> None:
        """Log a refused attempt and park the entry: kept, not retried until ``unpark``.
        The worker's later notices move up behind it."""
        with self._write() as c:
            self._log(c, seq, at, "refused", detail, expect="pending")
            c.execute("UPDATE outbox SET status = 'parked' WHERE seq = ?", (seq,))

    def unpark(self, worker: str, *, at: datetime) -> int:
        """Put a worker's parked entries back in its queue, due at ``at`` (after its
        configuration was fixed); returns how many."""
        with self._write() as c:
            cur = c.execute(
                "UPDATE outbox SET status = 'pending', next_attempt_at = ?, updated_at = ? "
                "WHERE worker = ? AND status = 'parked'",
                (_ts(at), _ts(at), worker),
            )
            return cur.rowcount

    def hand_off(self, seq: int, handoff: Notice, *, at: datetime, detail: str) -> int:
        """The worker is gone: log the attempt, mark the entry handed-off and enqueue
        ``handoff`` (addressed to the orchestrator) in the same transaction.  Returns the
        hand-off's seq (the existing one when its key was already enqueued)."""
        with self._write() as c:
            self._log(c, seq, at, "gone", detail, expect="pending")
            new = self._insert(c, handoff, at)
            if new is None:
                new = int(
                    c.execute("SELECT seq FROM outbox WHERE key = ?", (handoff.key,)).fetchone()[0]
                )
            c.execute(
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
        with self._write() as c:
            head = c.execute("SELECT worker, status FROM outbox WHERE seq = ?", (seq,)).fetchone()
            if head is None or head[1] != "pending":
                raise StoreError(f"outbox entry {seq} is not pending")
            if notice.worker != head[0]:
                raise StoreError(f"outbox entry {seq} belongs to another worker")
            for other in absorbed:
                row = c.execute(
                    "SELECT worker, status FROM outbox WHERE seq = ?", (other,)
                ).fetchone()
                if row is None or row[1] != "pending" or row[0] != head[0] or other == seq:
                    raise StoreError(f"outbox entry {other} cannot be merged into {seq}")
                c.execute(
                    "UPDATE outbox SET status = 'merged', routed_to = ?, updated_at = ? "
                    "WHERE seq = ?",
                    (seq, _ts(at), other),
                )
            c.execute(
                "UPDATE outbox SET notice = ?, kind = ?, updated_at = ? WHERE seq = ?",
                (msgspec.json.encode(notice), notice.kind, _ts(at), seq),
            )

    def prune(self, *, before: datetime) -> int:
        """Delete finished entries (delivered, handed-off, merged) last touched before
        ``before``, with their attempt logs; returns how many.  Their keys go with them,
        so keep ``before`` far behind anything a listener could enqueue again."""
        marks = ", ".join("?" for _ in _FINISHED)
        with self._write() as c:
            cur = c.execute(
                f"DELETE FROM outbox WHERE status IN ({marks}) AND updated_at < ?",
                (*_FINISHED, _ts(before)),
            )
            return cur.rowcount

    @staticmethod
    def _log(
        c: sqlite3.Connection, seq: int, at: datetime, outcome: str, detail: str, *, expect: str
    ) -> None:
        row = c.execute("SELECT status, attempts FROM outbox WHERE seq = ?", (seq,)).fetchone()
        if row is None:
            raise StoreError(f"no outbox entry {seq}")
        if row[0] != expect:
            raise StoreError(f"outbox entry {seq} is {row[0]}, not {expect}")
        n = int(row[1]) + 1
        c.execute(
            "INSERT INTO outbox_attempts (seq, n, at, outcome, detail) VALUES (?, ?, ?, ?, ?)",
            (seq, n, _ts(at), outcome, detail),
        )
        c.execute(
            "UPDATE outbox SET attempts = ?, last_outcome = ?, last_detail = ?, updated_at = ? "
            "WHERE seq = ?",
            (n, outcome, detail, _ts(at), seq),
        )

    # -- acknowledgement reactions ---------------------------------------------------

    def mark_delivered_with_reactions(
        self,
        seq: int,
        *,
        at: datetime,
        session_id: str | None = None,
        detail: str = "",
        subject_ids: Sequence[str] = (),
        content: str = "",
        host: str = "",
    ) -> int:
        """``mark_delivered`` and, in the same transaction, owe a ``content`` reaction to
        each of ``subject_ids`` (none when ``content`` is empty).  A reaction already owed
        or made is left as it is.  Returns how many reactions were newly owed."""
        owed = 0
        with self._write() as c:
            self._log(c, seq, at, "delivered", detail, expect="pending")
            c.execute(
                "UPDATE outbox SET status = 'delivered', delivered_at = ?, session_id = ? "
                "WHERE seq = ?",
                (_ts(at), session_id, seq),
            )
            if content:
                for subject in dict.fromkeys(subject_ids):
                    cur = c.execute(
                        "INSERT OR IGNORE INTO reactions (subject_id, content, seq, host, "
                        "status, next_attempt_at, created_at, updated_at) "
                        "VALUES (?, ?, ?, ?, 'pending', ?, ?, ?)",
                        (subject, content, seq, host, _ts(at), _ts(at), _ts(at)),
                    )
                    owed += cur.rowcount
        return owed

    def due_reactions(self, now: datetime, *, limit: int = 90) -> tuple[ReactionEntry, ...]:
        """Pending reactions whose ``next_attempt_at`` has come, oldest first."""
        with self._read() as c:
            rows = c.execute(
                f"SELECT {_REACTION_COLUMNS} FROM reactions WHERE status = 'pending' "
                "AND next_attempt_at <= ? ORDER BY next_attempt_at, created_at, subject_id "
                "LIMIT ?",
                (_ts(now), limit),
            ).fetchall()
        return tuple(_reaction(r) for r in rows)

    def next_reaction_at(self) -> datetime | None:
        """When the earliest pending reaction is due (may be past); None when none is owed."""
        with self._read() as c:
            row = c.execute(
                "SELECT MIN(next_attempt_at) FROM reactions WHERE status = 'pending'"
            ).fetchone()
        return _opt_dt(row[0])

    def reactions(
        self, *, statuses: Sequence[ReactionStatus] = ("pending", "done", "failed")
    ) -> tuple[ReactionEntry, ...]:
        """Reactions by status, in the order they were owed."""
        marks = ", ".join("?" for _ in statuses)
        with self._read() as c:
            rows = c.execute(
                f"SELECT {_REACTION_COLUMNS} FROM reactions WHERE status IN ({marks}) "
                "ORDER BY created_at, seq, subject_id",
                list(statuses),
            ).fetchall()
        return tuple(_reaction(r) for r in rows)

    def settle_reactions(
        self,
        content: str,
        *,
        done: Sequence[str] = (),
        failed: Sequence[str] = (),
        at: datetime,
        detail: str = "",
        retry_at: datetime | None = None,
    ) -> None:
        """Record one attempt at some pending reactions: ``done`` ones are finished;
        ``failed`` ones are due again at ``retry_at``, or given up (status failed) when
        it is None."""
        with self._write() as c:
            for subject in done:
                c.execute(
                    "UPDATE reactions SET status = 'done', attempts = attempts + 1, "
                    "last_detail = NULL, updated_at = ? "
                    "WHERE subject_id = ? AND content = ? AND status = 'pending'",
                    (_ts(at), subject, content),
                )
            for subject in failed:
                c.execute(
                    "UPDATE reactions SET status = ?, attempts = attempts + 1, "
                    "next_attempt_at = ?, last_detail = ?, updated_at = ? "
                    "WHERE subject_id = ? AND content = ? AND status = 'pending'",
                    (
                        "failed" if retry_at is None else "pending",
                        _ts(retry_at or at),
                        detail,
                        _ts(at),
                        subject,
                        content,
                    ),
                )

    # -- daemon state ----------------------------------------------------------------

    def get_state(self, key: str) -> bytes | None:
        with self._read() as c:
            row = c.execute("SELECT value FROM daemon_state WHERE key = ?", (key,)).fetchone()
        return None if row is None else bytes(row[0])

    def set_state(self, key: str, value: bytes, *, at: datetime) -> None:
        with self._write() as c:
            c.execute(
                "INSERT INTO daemon_state (key, value, updated_at) VALUES (?, ?, ?) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value, "
                "updated_at = excluded.updated_at",
                (key, value, _ts(at)),
            )

    # -- application records -----------------------------------------------------------

    @contextmanager
    def write_records(self, *, at: datetime) -> Iterator[RecordTx]:
        """One write transaction over application records and watches: all or nothing.

        Raising inside the block rolls everything back, so an application can check what
        it reads and refuse without leaving half of a change behind.
        """
        with self._write() as c:
            yield RecordTx(c, at)

    def record(self, namespace: str, key: str) -> bytes | None:
        with self._read() as c:
            row = c.execute(
                "SELECT value FROM app_records WHERE namespace = ? AND key = ?", (namespace, key)
            ).fetchone()
        return None if row is None else bytes(row[0])

    def records(self, namespace: str) -> tuple[tuple[str, bytes], ...]:
        """Every ``(key, value)`` of ``namespace``, sorted by key."""
        with self._read() as c:
            rows = c.execute(
                "SELECT key, value FROM app_records WHERE namespace = ? ORDER BY key",
                (namespace,),
            ).fetchall()
        return tuple((str(r[0]), bytes(r[1])) for r in rows)

    # -- housekeeping (the daemon's periodic prune) --------------------------------------

    def records_under(self, prefix: str) -> tuple[tuple[str, str, bytes], ...]:
        """Every ``(namespace, key, value)`` whose namespace starts with ``prefix``, sorted
        by namespace then key."""
        with self._read() as c:
            rows = c.execute(
                "SELECT namespace, key, value FROM app_records "
                "WHERE substr(namespace, 1, ?) = ? ORDER BY namespace, key",
                (len(prefix), prefix),
            ).fetchall()
        return tuple((str(r[0]), str(r[1]), bytes(r[2])) for r in rows)

    def prune_records(self, prefix: str, *, before: datetime) -> int:
        """Delete application records whose namespace starts with ``prefix`` (never empty)
        and that were last written before ``before``; returns how many."""
        if not prefix:
            raise ValueError("prune_records needs a namespace prefix")
        with self._write() as c:
            cur = c.execute(
                "DELETE FROM app_records WHERE substr(namespace, 1, ?) = ? AND updated_at < ?",
                (len(prefix), prefix, _ts(before)),
            )
            return cur.rowcount

    def prune_reactions(self, *, before: datetime) -> int:
        """Delete finished reactions (done or given up) last touched before ``before``;
        pending ones stay whatever their age.  Returns how many."""
        with self._write() as c:
            cur = c.execute(
                "DELETE FROM reactions WHERE status IN ('done', 'failed') AND updated_at < ?",
                (_ts(before),),
            )
            return cur.rowcount


class RecordTx:
    """Application records and watches inside one ``SyncStore.write_records`` transaction."""

    def __init__(self, conn: sqlite3.Connection, at: datetime) -> None:
        self._conn = conn
        self._at = at

    def get(self, namespace: str, key: str) -> bytes | None:
        row = self._conn.execute(
            "SELECT value FROM app_records WHERE namespace = ? AND key = ?", (namespace, key)
        ).fetchone()
        return None if row is None else bytes(row[0])

    def items(self, namespace: str) -> tuple[tuple[str, bytes], ...]:
        rows = self._conn.execute(
            "SELECT key, value FROM app_records WHERE namespace = ? ORDER BY key", (namespace,)
        ).fetchall()
        return tuple((str(r[0]), bytes(r[1])) for r in rows)

    def put(self, namespace: str, key: str, value: bytes) -> None:
        self._conn.execute(
            "INSERT INTO app_records (namespace, key, value, updated_at) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (namespace, key) DO UPDATE SET value = excluded.value, "
            "updated_at = excluded.updated_at",
            (namespace, key, value, _ts(self._at)),
        )

    def delete(self, namespace: str, key: str) -> bool:
        cur = self._conn.execute(
            "DELETE FROM app_records WHERE namespace = ? AND key = ?", (namespace, key)
        )
        return cur.rowcount > 0

    def add_watch(self, thread_id: str, pr: PrRef) -> bool:
        cur = self._conn.execute(
            "INSERT OR IGNORE INTO watches (thread_id, host, owner, name, number, tool, "
            "added_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (thread_id, pr.host, pr.owner, pr.name, pr.number, WATCH_TOOL, _ts(self._at)),
        )
        return cur.rowcount == 1

    def remove_watch(self, thread_id: str, pr: PrRef) -> bool:
        cur = self._conn.execute(
            "DELETE FROM watches WHERE thread_id = ? AND host = ? AND owner = ? "
            "AND name = ? AND number = ? AND tool = ?",
            (thread_id, pr.host, pr.owner, pr.name, pr.number, WATCH_TOOL),
        )
        return cur.rowcount > 0

    def watches_of(self, thread_id: str) -> tuple[PrRef, ...]:
        rows = self._conn.execute(
            "SELECT host, owner, name, number FROM watches WHERE thread_id = ? AND tool = ?",
            (thread_id, WATCH_TOOL),
        ).fetchall()
        return tuple(sorted(PrRef(host=r[0], owner=r[1], name=r[2], number=r[3]) for r in rows))


class Store:
    """The async store: each call runs ``SyncStore`` in a worker thread.

    ``Store.open(path, lease=True)`` is what a daemon does: it takes the lease first
    (``StoreLockedError`` when another daemon holds it) and keeps it until ``close``.
    Short commands open without the lease, or use ``SyncStore`` directly.
    """

    def __init__(self, sync: SyncStore, lease: Lease | None = None) -> None:
        self.sync = sync
        self.lease = lease

    @classmethod
    def open(cls, path: Path | str, *, lease: bool = False, clock: Clock | None = None) -> Store:
        held = Lease.acquire(Path(path)) if lease else None
        try:
            return cls(SyncStore.open(path, clock=clock), held)
        except BaseException:
            if held is not None:
                held.release()
            raise

    @property
    def path(self) -> Path:
        return self.sync.path

    def close(self) -> None:
        self.sync.close()
        if self.lease is not None:
            self.lease.release()

    def __enter__(self) -> Store:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    @staticmethod
    async def _run(fn: Callable[_P, _T], *args: _P.args, **kwargs: _P.kwargs) -> _T:
        return await anyio.to_thread.run_sync(functools.partial(fn, *args, **kwargs))

    async def add_watch(self, thread_id: str, pr: PrRef, *, at: datetime) -> bool:
        return await self._run(self.sync.add_watch, thread_id, pr, at=at)

    async def remove_watch(self, thread_id: str, pr: PrRef) -> bool:
        return await self._run(self.sync.remove_watch, thread_id, pr)

    async def watches(self) -> tuple[Watch, ...]:
        return await self._run(self.sync.watches)

    async def load_mark(self, pr: PrRef, listener: str) -> Mark | None:
        return await self._run(self.sync.load_mark, pr, listener)

    async def marked_prs(self, listener: str) -> tuple[PrRef, ...]:
        return await self._run(self.sync.marked_prs, listener)

    async def commit(
        self,
        pr: PrRef,
        listener: str,
        *,
        mark: Mark | tuple[int, bytes] | None,
        notices: Sequence[Notice] = (),
        records: Sequence[tuple[str, str, bytes]] = (),
        at: datetime,
    ) -> list[int]:
        """See ``SyncStore.commit``: the mark, the notices and the records in one
        transaction."""
        return await self._run(
            self.sync.commit, pr, listener, mark=mark, notices=notices, records=records, at=at
        )

    async def enqueue(self, notices: Sequence[Notice], *, at: datetime) -> list[int]:
        return await self._run(self.sync.enqueue, notices, at=at)

    async def due(self, now: datetime) -> tuple[OutboxEntry, ...]:
        return await self._run(self.sync.due, now)

    async def next_due_at(self) -> datetime | None:
        return await self._run(self.sync.next_due_at)

    async def entry(self, seq: int) -> OutboxEntry | None:
        return await self._run(self.sync.entry, seq)

    async def entry_by_key(self, key: str) -> OutboxEntry | None:
        return await self._run(self.sync.entry_by_key, key)

    async def entries(
        self, *, worker: str | None = None, statuses: Sequence[OutboxStatus] = ("pending",)
    ) -> tuple[OutboxEntry, ...]:
        return await self._run(self.sync.entries, worker=worker, statuses=statuses)

    async def attempts(self, seq: int) -> tuple[Attempt, ...]:
        return await self._run(self.sync.attempts, seq)

    async def record_attempt(
        self, seq: int, *, at: datetime, outcome: str, detail: str = "", retry_at: datetime
    ) -> None:
        await self._run(
            self.sync.record_attempt, seq, at=at, outcome=outcome, detail=detail, retry_at=retry_at
        )

    async def mark_delivered(
        self, seq: int, *, at: datetime, session_id: str | None = None, detail: str = ""
    ) -> None:
        await self._run(self.sync.mark_delivered, seq, at=at, session_id=session_id, detail=detail)

    async def park(self, seq: int, *, at: datetime, detail: str) -> None:
        await self._run(self.sync.park, seq, at=at, detail=detail)

    async def unpark(self, worker: str, *, at: datetime) -> int:
        return await self._run(self.sync.unpark, worker, at=at)

    async def hand_off(self, seq: int, handoff: Notice, *, at: datetime, detail: str) -> int:
        return await self._run(self.sync.hand_off, seq, handoff, at=at, detail=detail)

    async def merge_into(
        self, seq: int, notice: Notice, *, absorbed: Sequence[int] = (), at: datetime
    ) -> None:
        await self._run(self.sync.merge_into, seq, notice, absorbed=absorbed, at=at)

    async def prune(self, *, before: datetime) -> int:
        return await self._run(self.sync.prune, before=before)

    async def get_state(self, key: str) -> bytes | None:
        return await self._run(self.sync.get_state, key)

    async def set_state(self, key: str, value: bytes, *, at: datetime) -> None:
        await self._run(self.sync.set_state, key, value, at=at)

    async def mark_delivered_with_reactions(
        self,
        seq: int,
        *,
        at: datetime,
        session_id: str | None = None,
        detail: str = "",
        subject_ids: Sequence[str] = (),
        content: str = "",
        host: str = "",
    ) -> int:
        """See ``SyncStore.mark_delivered_with_reactions``."""
        return await self._run(
            self.sync.mark_delivered_with_reactions,
            seq,
            at=at,
            session_id=session_id,
            detail=detail,
            subject_ids=subject_ids,
            content=content,
            host=host,
        )

    async def due_reactions(self, now: datetime, *, limit: int = 90) -> tuple[ReactionEntry, ...]:
        return await self._run(self.sync.due_reactions, now, limit=limit)

    async def next_reaction_at(self) -> datetime | None:
        return await self._run(self.sync.next_reaction_at)

    async def reactions(
        self, *, statuses: Sequence[ReactionStatus] = ("pending", "done", "failed")
    ) -> tuple[ReactionEntry, ...]:
        return await self._run(self.sync.reactions, statuses=statuses)

    async def settle_reactions(
        self,
        content: str,
        *,
        done: Sequence[str] = (),
        failed: Sequence[str] = (),
        at: datetime,
        detail: str = "",
        retry_at: datetime | None = None,
    ) -> None:
        await self._run(
            self.sync.settle_reactions,
            content,
            done=done,
            failed=failed,
            at=at,
            detail=detail,
            retry_at=retry_at,
        )

    async def records_under(self, prefix: str) -> tuple[tuple[str, str, bytes], ...]:
        return await self._run(self.sync.records_under, prefix)

    async def prune_records(self, prefix: str, *, before: datetime) -> int:
        return await self._run(self.sync.prune_records, prefix, before=before)

    async def prune_reactions(self, *, before: datetime) -> int:
        return await self._run(self.sync.prune_reactions, before=before)
