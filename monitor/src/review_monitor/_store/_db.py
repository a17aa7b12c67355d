"""The store's database and its transactions: the API every part reads and writes through.

A ``Database`` runs on one of two engines, the same SQL on both (``_dialect``): a SQLite
file (``_sqlite``, the default) or a PostgreSQL server (``_postgres``, fleet mode).
``read()`` gives one consistent view for several statements; ``write(at=...)`` is all or
nothing, and ``WriteTx.lock`` holds a named lock for a check-then-write invariant.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal, Protocol, Self

from review_monitor._clock import Clock, SystemClock
from review_monitor._errors import StoreError

from ._dialect import is_postgres_url
from ._schema import Tables

__all__ = [
    "Cursor",
    "Database",
    "Engine",
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


class Cursor(Protocol):
    """What a statement gives back, on either engine."""

    @property
    def rowcount(self) -> int: ...

    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...

    def __iter__(self) -> Iterator[Any]: ...


class _Statements(Protocol):
    """An engine's open transaction."""

    def execute(self, sql: str, args: Sequence[Any] = ()) -> Cursor: ...

    def lock(self, name: str) -> None: ...


class Engine(Protocol):
    """A store's database engine: its transactions and its life."""

    @property
    def dialect(self) -> Literal["sqlite", "postgresql"]: ...

    @property
    def where(self) -> str:
        """Where the store is, as it may be shown: a path, or a URL with no password."""
        ...

    def write(self) -> AbstractContextManager[_Statements]: ...

    def read(self) -> AbstractContextManager[_Statements]: ...

    def check_writable(self) -> None: ...

    def close(self) -> None: ...


class ReadTx:
    """An open transaction: run statements with ``execute`` (``?`` placeholders, on
    either engine)."""

    def __init__(
        self, statements: _Statements, dialect: Literal["sqlite", "postgresql"] = "sqlite"
    ) -> None:
        self._statements = statements
        self.dialect = dialect  # for the rare statement the engines spell apart

    def execute(self, sql: str, args: Iterable[Any] = ()) -> Cursor:
        return self._statements.execute(sql, tuple(args))


class WriteTx(ReadTx):
    """An open write transaction, stamped ``at``: every part writes through it, so one
    commit can change several parts (a mark, its notices, an application's rows)."""

    def __init__(
        self,
        statements: _Statements,
        at: datetime,
        dialect: Literal["sqlite", "postgresql"] = "sqlite",
    ) -> None:
        super().__init__(statements, dialect)
        self.at = at
        self.stamp = store_time(at)  # ``at`` as the store writes it

    def lock(self, name: str) -> None:
        """Hold the named lock until this transaction ends: every check-then-write
        invariant (one live worker per PR, an hourly cap) takes its lock before it reads.
        SQLite's ``BEGIN IMMEDIATE`` already serialises every writer, so there it costs
        nothing; PostgreSQL takes a transaction-level advisory lock."""
        self._statements.lock(name)


class Database:
    """The store's database on its engine: opening and migrating it, and its
    transactions.  ``Database.connect(target, parts, clock)`` opens a SQLite file (a
    path) or a PostgreSQL server (a ``postgresql://`` URL)."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    @staticmethod
    def connect(
        target: Path | str,
        parts: Sequence[Tables],
        clock: Clock | None,
        *,
        create: bool = True,
        connect_timeout: float | None = None,
    ) -> Engine:
        """The engine for ``target`` with ``parts`` migrated.  A missing store without
        ``create`` raises ``StoreMissingError``.  ``connect_timeout``: how long a
        PostgreSQL server is waited for before ``StoreUnavailableError`` (None: the
        engine's default, a daemon's 10 s); a SQLite file has none."""
        now = (clock or SystemClock()).now()
        if is_postgres_url(target):
            from ._postgres import PostgresEngine

            return PostgresEngine.open(
                str(target), parts, now, create=create, connect_timeout=connect_timeout
            )
        from ._sqlite import SqliteEngine

        return SqliteEngine.open(Path(target), parts, now, create=create)

    @property
    def dialect(self) -> Literal["sqlite", "postgresql"]:
        return self._engine.dialect

    @property
    def where(self) -> str:
        """Where the store is, as it may be shown (never a password)."""
        return self._engine.where

    @property
    def path(self) -> Path:
        """The SQLite file; a PostgreSQL store has none (``StoreError``)."""
        path = getattr(self._engine, "path", None)
        if not isinstance(path, Path):
            raise StoreError(f"the store at {self.where} is not a file")
        return path

    def close(self) -> None:
        self._engine.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @contextmanager
    def write(self, *, at: datetime) -> Iterator[WriteTx]:
        """One write transaction: all or nothing.  Raising inside the block rolls it
        back, so a caller can check what it reads and refuse with nothing written."""
        with self._engine.write() as statements:
            yield WriteTx(statements, at, self.dialect)

    def check_writable(self) -> None:
        """Raise when the store cannot be written (SQLite's ``SQLITE_READONLY``, a
        PostgreSQL standby), by a write that changes nothing, rolled back."""
        self._engine.check_writable()

    @contextmanager
    def read(self) -> Iterator[ReadTx]:
        """One read transaction: a consistent view for several statements."""
        with self._engine.read() as statements:
            yield ReadTx(statements, self.dialect)
