"""One SQLite database and its transactions: the API every part reads and writes through.

SQLite through the standard library: WAL, ``isolation_level=None`` and an explicit
``BEGIN IMMEDIATE`` around every write, so the daemon and short commands (bind, status)
share the file with brief transactions.  One connection, used under a lock, so a
``Database`` is safe to share between threads.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import stat
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Self

from review_monitor._clock import Clock, SystemClock

from ._faults import check_store_file, corrupt_error, is_corrupt
from ._schema import Tables, migrate

__all__ = [
    "Database",
    "ReadTx",
    "WriteTx",
    "opt_dt",
    "parse_store_time",
    "placeholders",
    "store_time",
]


def store_time(t: datetime) -> str:
    """A time as the store keeps it: UTC, fixed width, so text order is time order."""
    if t.tzinfo is None:
        raise ValueError("store times must be timezone-aware")
    return t.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def parse_store_time(text: str) -> datetime:
    """A time as ``store_time`` wrote it, back as an aware UTC ``datetime``."""
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)


def opt_dt(text: str | None) -> datetime | None:
    return None if text is None else parse_store_time(text)


def placeholders(values: Sequence[object]) -> str:
    """``?, ?, ?`` for an ``IN (...)`` over ``values``."""
    return ", ".join("?" for _ in values)


def _sibling(path: Path, suffix: str) -> Path:
    return path.with_name(path.name + suffix)


def _owner_only(*paths: Path) -> None:
    """Take group and other permissions off each file that exists."""
    for path in paths:
        try:
            mode = stat.S_IMODE(os.stat(path).st_mode)
        except FileNotFoundError:
            continue
        if mode & 0o077:
            with contextlib.suppress(PermissionError):  # another user's file: theirs to fix
                os.chmod(path, mode & 0o600)


class ReadTx:
    """An open transaction: run statements with ``execute``."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    def execute(self, sql: str, args: Iterable[Any] = ()) -> sqlite3.Cursor:
        return self._conn.execute(sql, tuple(args))


class WriteTx(ReadTx):
    """An open write transaction, stamped ``at``: every part writes through it, so one
    commit can change several parts (a mark, its notices, an application's rows)."""

    def __init__(self, conn: sqlite3.Connection, at: datetime) -> None:
        super().__init__(conn)
        self.at = at
        self.stamp = store_time(at)  # ``at`` as the store writes it

    def lock(self, name: str) -> None:
        """Hold the named lock until this transaction ends: every check-then-write
        invariant (one live worker per PR, an hourly cap) takes its lock before it reads.
        SQLite's ``BEGIN IMMEDIATE`` already serialises every writer, so here it costs
        nothing; PostgreSQL takes a transaction-level advisory lock."""


class Database:
    """The store's SQLite file: opening and migrating it, and its transactions."""

    def __init__(self, conn: sqlite3.Connection, path: Path) -> None:
        self._conn = conn
        self._lock = threading.Lock()
        self.path = path

    @staticmethod
    def connect(
        path: Path, parts: Sequence[Tables], clock: Clock | None, *, create: bool = True
    ) -> sqlite3.Connection:
        """Open the file at ``path`` (creating it if needed and ``create``) and migrate
        ``parts``.  A missing store without ``create`` raises ``StoreMissingError``; an
        empty, foreign or damaged file ``StoreCorruptError``, never a fresh store.

        The file, its WAL and its shared-memory file are the owner's alone (0600), and a
        folder created for it is 0700, whatever the umask: the store holds comment bodies.
        """
        check_store_file(path, create=create)
        if not path.parent.exists():
            path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            os.chmod(path.parent, 0o700)
        conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=10.0)
        try:
            # Before the WAL exists: SQLite gives its -wal and -shm files the file's mode.
            _owner_only(path)
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = FULL")
            conn.execute("PRAGMA foreign_keys = ON")
            conn.execute("PRAGMA busy_timeout = 10000")
            migrate(conn, parts, (clock or SystemClock()).now())
            _owner_only(path, _sibling(path, "-wal"), _sibling(path, "-shm"))
        except sqlite3.Error as exc:
            conn.close()
            if is_corrupt(exc):
                raise corrupt_error(path, exc) from None
            raise
        except BaseException:
            conn.close()
            raise
        return conn

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @contextmanager
    def write(self, *, at: datetime) -> Iterator[WriteTx]:
        """One write transaction: all or nothing.  Raising inside the block rolls it
        back, so a caller can check what it reads and refuse with nothing written."""
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield WriteTx(self._conn, at)
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

    def check_writable(self) -> None:
        """Raise SQLite's ``OperationalError`` (``SQLITE_READONLY``) when this connection
        cannot write, by a write that changes nothing, rolled back."""
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                self._conn.execute("DELETE FROM schema_versions WHERE 0")
            finally:
                self._conn.execute("ROLLBACK")

    @contextmanager
    def read(self) -> Iterator[ReadTx]:
        """One read transaction: a consistent view for several statements."""
        with self._lock:
            self._conn.execute("BEGIN")
            try:
                yield ReadTx(self._conn)
            finally:
                self._conn.execute("COMMIT")
