"""The store on PostgreSQL: psycopg 3's sync API over a small pool, behind the same
``read()`` / ``write(at=...)`` transactions as SQLite.

- One work connection (``max_size=1``), used by one transaction at a time, as SQLite's:
  the daemon's store calls already run one at a time on the store's executor.
- Write transactions run READ COMMITTED; each check-then-write invariant takes its named
  lock first (``WriteTx.lock``: a transaction-level advisory lock).  Read transactions
  are REPEATABLE READ, READ ONLY: one snapshot for all their statements, as SQLite's.
- Nothing relies on the session (no session advisory lock, no LISTEN, no prepared
  statement: ``prepare_threshold=None``), so PgBouncer in transaction mode works.
- Every psycopg error leaves as a ``StoreError`` whose message names PostgreSQL's error
  code and never a value: a lost server is ``StoreUnavailableError``.
- Migrations run per part under one transaction-level advisory lock, after a read of
  the ledger that sees nothing to do: two hundred hosts starting together apply each once.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal

from review_monitor._errors import (
    StoreError,
    StoreMissingError,
    StoreSchemaError,
    StoreUnavailableError,
)

from ._dialect import postgres_ddl, postgres_sql
from ._schema import LEDGER, Migration, Tables, refuse_newer

if TYPE_CHECKING:
    import psycopg
    from psycopg_pool import ConnectionPool

    from ._db import Cursor

__all__ = ["CONNECT_TIMEOUT", "PostgresEngine", "redact_url"]

CONNECT_TIMEOUT = 10.0
"""How long, in seconds, a connection is waited for by default (a daemon's: a server
restarting or failing over is waited through)."""

# The name of the lock every migration takes (hashed to an advisory lock key).
_SCHEMA_LOCK = "review_monitor:schema"


def redact_url(url: str) -> str:
    """``url`` as it may be shown: user, host, port and database, never a password or
    another parameter."""
    from psycopg.conninfo import conninfo_to_dict

    try:
        parts = conninfo_to_dict(url)
    except Exception:
        return "postgresql://(a malformed URL)"
    user = f"{parts['user']}@" if parts.get("user") else ""
    host = parts.get("host") or "localhost"
    port = f":{parts['port']}" if parts.get("port") else ""
    return f"postgresql://{user}{host}{port}/{parts.get('dbname') or ''}"


def _fault(exc: BaseException, where: str) -> StoreError:
    """The ``StoreError`` for a psycopg or pool error: its SQLSTATE and, outside the
    data-exception class (whose messages quote values), PostgreSQL's primary message."""
    import psycopg
    from psycopg_pool import PoolTimeout

    if isinstance(exc, PoolTimeout | psycopg.OperationalError) and not isinstance(
        exc, psycopg.errors.QueryCanceled
    ):
        code = getattr(exc, "sqlstate", None)
        return StoreUnavailableError(
            f"the PostgreSQL store {where} cannot be reached"
            + (f" (SQLSTATE {code})" if code else "")
            + "; every host waits and nothing is lost: it goes on when the server answers"
        )
    if isinstance(exc, psycopg.Error):
        code = exc.sqlstate or "?"
        said = exc.diag.message_primary if code[:2] != "22" else None
        tail = f": {said}" if said else ""
        return StoreError(f"PostgreSQL error {code} ({type(exc).__name__}) on {where}{tail}")
    return StoreError(f"{type(exc).__name__} on the PostgreSQL store {where}")


def _configure(conn: psycopg.Connection[Any]) -> None:
    """A Python ``bool`` is sent as the integer SQLite stores (the schema's flags are
    0/1 integers on both engines), not as PostgreSQL's boolean."""
    from psycopg.types.numeric import Int8Dumper

    conn.adapters.register_dumper(bool, Int8Dumper)


class _Connection:
    """One pooled connection's statements, with ``?`` placeholders translated."""

    def __init__(self, conn: psycopg.Connection[Any], where: str) -> None:
        self._conn = conn
        self._where = where

    def execute(self, sql: str, args: Sequence[Any] = ()) -> Cursor:
        import psycopg

        try:
            return self._conn.execute(postgres_sql(sql), tuple(args))
        except psycopg.Error as exc:
            raise _fault(exc, self._where) from None

    def lock(self, name: str) -> None:
        self.execute("SELECT pg_advisory_xact_lock(hashtextextended(?, 0))", (name,))


class PostgresEngine:
    """A PostgreSQL database as the store's engine.  ``PostgresEngine.open(url, ...)``."""

    dialect: Literal["postgresql"] = "postgresql"

    def __init__(self, pool: ConnectionPool[Any], url: str) -> None:
        self._pool = pool
        self.where = redact_url(url)

    @classmethod
    def open(
        cls,
        url: str,
        parts: Sequence[Tables],
        now: datetime,
        *,
        create: bool = True,
        connect_timeout: float | None = None,
    ) -> PostgresEngine:
        """Connect to ``url`` and migrate ``parts``.  ``create=False`` raises
        ``StoreMissingError`` when the database holds no store yet.  ``connect_timeout``
        (None: ``CONNECT_TIMEOUT``) bounds the wait for a connection, at open and at each
        transaction; a short command passes a shorter one, to fail fast."""
        if connect_timeout is None:
            connect_timeout = CONNECT_TIMEOUT
        try:
            from psycopg_pool import ConnectionPool
        except ImportError:
            raise StoreError(
                "a postgresql:// store needs psycopg and psycopg-pool: "
                "install comment-wake[fleet] (or pr-review-monitor[postgres])"
            ) from None
        pool: ConnectionPool[Any] = ConnectionPool(
            url,
            min_size=1,
            max_size=1,
            open=False,
            timeout=connect_timeout,
            kwargs={"prepare_threshold": None, "autocommit": False},
            check=ConnectionPool.check_connection,
            configure=_configure,
            name="review_monitor.store",
        )
        engine = cls(pool, url)
        try:
            try:
                pool.open(wait=True, timeout=connect_timeout)
            except Exception as exc:
                raise _fault(exc, engine.where) from None
            engine._check_encoding()
            engine._migrate(parts, now, create=create)
        except BaseException:
            pool.close()
            raise
        return engine

    @contextmanager
    def _transaction(self, first: str | None) -> Iterator[_Connection]:
        import psycopg
        from psycopg_pool import PoolTimeout

        try:
            with self._pool.connection() as conn:
                tx = _Connection(conn, self.where)
                if first is not None:
                    tx.execute(first)
                yield tx
        except (psycopg.Error, PoolTimeout) as exc:  # at connect or commit
            raise _fault(exc, self.where) from None

    @contextmanager
    def write(self) -> Iterator[_Connection]:
        with self._transaction(None) as tx:
            yield tx

    @contextmanager
    def read(self) -> Iterator[_Connection]:
        with self._transaction(
            "START TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY"
        ) as tx:
            yield tx

    def check_writable(self) -> None:
        """Raise when this server takes no writes (a hot standby: SQLSTATE 25006)."""
        with contextlib.suppress(_Rollback), self.write() as tx:
            tx.execute("DELETE FROM schema_versions WHERE false")
            raise _Rollback

    def close(self) -> None:
        self._pool.close()

    def _check_encoding(self) -> None:
        """Refuse a database that does not keep UTF-8: SQL_ASCII keeps bytes as given and
        hands text back as bytes, and another encoding cannot hold every comment."""
        with self.read() as tx:
            encoding = str(tx.execute("SHOW server_encoding").fetchone()[0])
        if encoding.upper() not in ("UTF8", "UTF-8"):
            raise StoreError(
                f"the PostgreSQL database {self.where} keeps text as {encoding}; comment-wake "
                "needs UTF8: create its database with ENCODING 'UTF8'"
            )

    # -- migrations ---------------------------------------------------------------------

    def _applied(self, tx: _Connection) -> dict[str, list[int]]:
        rows = tx.execute("SELECT part, version FROM schema_versions ORDER BY version").fetchall()
        out: dict[str, list[int]] = {}
        for part, version in rows:
            out.setdefault(str(part), []).append(int(version))
        return out

    def _ledger_exists(self, tx: _Connection) -> bool:
        row = tx.execute("SELECT to_regclass('schema_versions') IS NOT NULL").fetchone()
        return bool(row and row[0])

    def _migrate(self, parts: Sequence[Tables], now: datetime, *, create: bool) -> None:
        names = [p.part for p in parts]
        if len(set(names)) != len(names):
            raise ValueError(f"a part is registered twice: {sorted(names)}")
        with self.read() as tx:
            seen = self._applied(tx) if self._ledger_exists(tx) else None
        if seen is None and not create:
            raise StoreMissingError(f"no state store in the PostgreSQL database {self.where}")
        if seen is not None:
            for part in parts:
                refuse_newer(part, seen.get(part.part, []))
            if all(len(seen.get(p.part, [])) == len(p.migrations) for p in parts):
                return  # the common start: nothing to do, no lock taken
        for part in parts:
            with self.write() as tx:
                tx.lock(_SCHEMA_LOCK)
                tx.execute(postgres_ddl(LEDGER))
                versions = self._applied(tx).get(part.part, [])
                refuse_newer(part, versions)
                for m in part.migrations:
                    if m.version not in versions:
                        self._apply(tx, part.part, m, now)

    def _apply(self, tx: _Connection, part: str, m: Migration, now: datetime) -> None:
        statements = m.postgres if m.postgres is not None else map(postgres_ddl, m.statements)
        try:
            for statement in statements:
                tx.execute(statement)
        except StoreUnavailableError:
            raise
        except StoreError as exc:
            raise StoreSchemaError(
                f"migration {part} {m.version} ({m.name}) failed: {exc}"
            ) from None
        tx.execute(
            "INSERT INTO schema_versions (part, version, name, applied_at) VALUES (?, ?, ?, ?)",
            (part, m.version, m.name, now.isoformat()),
        )


class _Rollback(Exception):
    """Raised inside a transaction to undo it on purpose."""
