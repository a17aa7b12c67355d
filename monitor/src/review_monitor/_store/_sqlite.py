"""The store on SQLite, through the standard library: one file in WAL mode.

``isolation_level=None`` and an explicit ``BEGIN IMMEDIATE`` around every write, so the
daemon and short commands (bind, status) share the file with brief transactions.  One
connection, used under a lock, so the engine is safe to share between threads.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import stat
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from ._faults import check_store_file, corrupt_error, is_corrupt
from ._schema import Tables, migrate

__all__ = ["SqliteEngine"]


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


class _Connection:
    """The connection's statements; a named lock costs nothing (see ``WriteTx.lock``)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    def execute(self, sql: str, args: Sequence[Any] = ()) -> sqlite3.Cursor:
        return self._conn.execute(sql, tuple(args))

    def lock(self, name: str) -> None:
        """``BEGIN IMMEDIATE`` already serialises every writer."""


class SqliteEngine:
    """The store's SQLite file.  ``SqliteEngine.open(path, ...)``."""

    dialect: Literal["sqlite"] = "sqlite"

    def __init__(self, conn: sqlite3.Connection, path: Path) -> None:
        self._conn = conn
        self._lock = threading.Lock()
        self.path = path
        self.where = str(path)

    @classmethod
    def open(
        cls, path: Path, parts: Sequence[Tables], now: datetime, *, create: bool = True
    ) -> SqliteEngine:
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
            migrate(conn, parts, now)
            _owner_only(path, _sibling(path, "-wal"), _sibling(path, "-shm"))
        except sqlite3.Error as exc:
            conn.close()
            if is_corrupt(exc):
                raise corrupt_error(path, exc) from None
            raise
        except BaseException:
            conn.close()
            raise
        return cls(conn, path)

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    @contextmanager
    def write(self) -> Iterator[_Connection]:
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield _Connection(self._conn)
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
                self._conn.execute("DELETE FROM schema_versions WHERE false")
            finally:
                self._conn.execute("ROLLBACK")

    @contextmanager
    def read(self) -> Iterator[_Connection]:
        with self._lock:
            self._conn.execute("BEGIN")
            try:
                yield _Connection(self._conn)
            finally:
                self._conn.execute("COMMIT")
