"""The store's schema: table sets ("parts"), each with its own numbered migrations.

A part is a name and its ordered ``Migration`` list; the ``schema_versions`` ledger
records ``(part, version)`` for every migration applied.  The monitor registers its
parts (watches, marks, outbox, state); an application registers its own with
``SyncStore.open(path, tables=[...])``.  A part the opener did not register is left as
it is, so a short command that opens the store without some part does no harm.

Stores written before the split kept one global ledger, ``schema_migrations``, with
versions 1 to 5.  A part that names its ``legacy`` version takes its version 1 from
that ledger when it has none of its own, so such a store opens with its data.  Every
store then records ``LEDGER_MOVED`` in ``schema_migrations``: a build from before the
split refuses the store ("newer than this build") instead of writing a schema it does
not know.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from datetime import datetime

import msgspec

from review_monitor._errors import StoreSchemaError

__all__ = ["LEDGER", "LEDGER_MOVED", "Migration", "Tables", "applied", "migrate", "refuse_newer"]

# The last global version: "the ledger moved to schema_versions".
LEDGER_MOVED = 6


class Migration(msgspec.Struct, frozen=True):
    """One numbered step of a part's schema.

    ``statements`` are SQLite's.  ``postgres`` are PostgreSQL's where the DDL differs
    (None: the same statements, with their column types translated: see
    ``postgres_ddl``).  A PostgreSQL database is always created at the current schema,
    so a step that only rebuilds an old SQLite table has ``postgres=()``.
    """

    version: int  # 1, 2, ... within its part
    name: str
    statements: tuple[str, ...]
    postgres: tuple[str, ...] | None = None


class Tables(msgspec.Struct, frozen=True):
    """One part's tables: its ledger name and its migrations, oldest first.

    ``legacy`` is the global ``schema_migrations`` version that created this part's
    version-1 tables in a store written before the split (None for a new part).
    """

    part: str
    migrations: tuple[Migration, ...]
    legacy: int | None = None

    def __post_init__(self) -> None:
        if [m.version for m in self.migrations] != list(range(1, len(self.migrations) + 1)):
            raise ValueError(f"part {self.part!r}: migrations must be numbered 1, 2, ...")


LEDGER = """CREATE TABLE IF NOT EXISTS schema_versions (
    part TEXT NOT NULL,
    version INTEGER NOT NULL,
    name TEXT NOT NULL,
    applied_at TEXT NOT NULL,
    PRIMARY KEY (part, version)
)"""

_OLD_LEDGER = """CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    applied_at TEXT NOT NULL
)"""


def applied(conn: sqlite3.Connection, part: str) -> list[int]:
    """The versions of ``part`` recorded in the database, ascending."""
    conn.execute(LEDGER)
    rows = conn.execute(
        "SELECT version FROM schema_versions WHERE part = ? ORDER BY version", (part,)
    )
    return [int(r[0]) for r in rows]


def migrate(conn: sqlite3.Connection, parts: Sequence[Tables], now: datetime) -> list[str]:
    """Bring every part in ``parts`` up to date; return ``part:version`` of those applied.

    Each migration runs in its own ``BEGIN IMMEDIATE`` transaction with its ledger row,
    so a crash leaves each part at a recorded version.  A part (or the old ledger) at a
    version this build does not know was written by a newer build: refuse it.
    """
    names = [p.part for p in parts]
    if len(set(names)) != len(names):
        raise ValueError(f"a part is registered twice: {sorted(names)}")
    _adopt_old_ledger(conn, parts, now)
    done: list[str] = []
    for part in parts:
        refuse_newer(part, applied(conn, part.part))
        for m in part.migrations:
            if _apply(conn, part.part, m, now):
                done.append(f"{part.part}:{m.version}")
    return done


def refuse_newer(part: Tables, versions: list[int]) -> None:
    known = len(part.migrations)
    if versions and versions[-1] > known:
        raise StoreSchemaError(
            f"the state store's {part.part} tables have schema version {versions[-1]}, "
            f"newer than this build knows ({known}); upgrade comment-wake or use another store"
        )


def _apply(conn: sqlite3.Connection, part: str, m: Migration, now: datetime) -> bool:
    conn.execute("BEGIN IMMEDIATE")
    try:
        # Another process may have applied it while we waited for the write lock.
        if conn.execute(
            "SELECT 1 FROM schema_versions WHERE part = ? AND version = ?", (part, m.version)
        ).fetchone():
            conn.execute("COMMIT")
            return False
        for statement in m.statements:
            conn.execute(statement)
        _record(conn, part, m.version, m.name, now.isoformat())
        conn.execute("COMMIT")
    except sqlite3.Error as exc:
        conn.execute("ROLLBACK")
        raise StoreSchemaError(f"migration {part} {m.version} ({m.name}) failed: {exc}") from exc
    return True


def _record(conn: sqlite3.Connection, part: str, version: int, name: str, at: str) -> None:
    conn.execute(
        "INSERT INTO schema_versions (part, version, name, applied_at) VALUES (?, ?, ?, ?)",
        (part, version, name, at),
    )


def _adopt_old_ledger(conn: sqlite3.Connection, parts: Sequence[Tables], now: datetime) -> None:
    """Give each part with a ``legacy`` version found in ``schema_migrations`` its version
    1, when it has no row of its own yet; then record ``LEDGER_MOVED`` there."""
    conn.execute(LEDGER)
    conn.execute("BEGIN IMMEDIATE")
    try:
        conn.execute(_OLD_LEDGER)
        old = dict(conn.execute("SELECT version, applied_at FROM schema_migrations").fetchall())
        newer = [v for v in old if v > LEDGER_MOVED]
        if newer:
            raise StoreSchemaError(
                f"the state store has schema version {max(newer)}, newer than this build "
                f"knows ({LEDGER_MOVED}); upgrade comment-wake or use another store"
            )
        for part in parts:
            if part.legacy in old and not applied(conn, part.part):
                _record(conn, part.part, 1, part.migrations[0].name, str(old[part.legacy]))
        if LEDGER_MOVED not in old:
            conn.execute(
                "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
                (LEDGER_MOVED, "the ledger moved to schema_versions", now.isoformat()),
            )
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
