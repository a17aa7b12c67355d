"""The state store's schema as numbered migrations, each recorded in the database."""

from __future__ import annotations

import sqlite3
from datetime import datetime

import msgspec

from ._errors import StoreSchemaError

__all__ = ["MIGRATIONS", "Migration", "applied_versions", "migrate"]


class Migration(msgspec.Struct, frozen=True):
    version: int
    name: str
    statements: tuple[str, ...]


MIGRATIONS: tuple[Migration, ...] = (
    Migration(
        1,
        "watch registry and marks",
        (
            """CREATE TABLE watches (
                thread_id TEXT NOT NULL,
                host TEXT NOT NULL,
                owner TEXT NOT NULL,
                name TEXT NOT NULL,
                number INTEGER NOT NULL,
                tool TEXT NOT NULL,
                added_at TEXT NOT NULL,
                PRIMARY KEY (thread_id, host, owner, name, number, tool)
            )""",
            "CREATE INDEX watches_by_pr ON watches (host, owner, name, number)",
            """CREATE TABLE marks (
                host TEXT NOT NULL,
                owner TEXT NOT NULL,
                name TEXT NOT NULL,
                number INTEGER NOT NULL,
                listener TEXT NOT NULL,
                version INTEGER NOT NULL,
                blob BLOB NOT NULL,
                updated_at TEXT NOT NULL,
                PRIMARY KEY (host, owner, name, number, listener)
            )""",
        ),
    ),
    Migration(
        2,
        "outbox and its attempt log",
        (
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
        ),
    ),
    Migration(
        3,
        "daemon state",
        (
            """CREATE TABLE daemon_state (
                key TEXT PRIMARY KEY,
                value BLOB NOT NULL,
                updated_at TEXT NOT NULL
            )""",
        ),
    ),
    Migration(
        4,
        "acknowledgement reactions",
        (
            # One row per (comment, reaction content): written in the transaction that marks
            # its comment wake delivered, so a crash can neither lose nor repeat the wake
            # for it; retried on its own schedule, never holding an outbox entry.
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
        ),
    ),
    Migration(
        5,
        "application records",
        (
            # Generic rows the monitor never interprets: an application (comment-wake's
            # worker and orchestrator registry) keeps its records here, one namespace each,
            # so they can change in the same transaction as the watches they imply.
            """CREATE TABLE app_records (
                namespace TEXT NOT NULL,
                key TEXT NOT NULL,
                value BLOB NOT NULL,
                updated_at TEXT NOT NULL,
                PRIMARY KEY (namespace, key)
            )""",
        ),
    ),
)

_LEDGER = """CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    applied_at TEXT NOT NULL
)"""


def applied_versions(conn: sqlite3.Connection) -> list[int]:
    """The migration numbers recorded in the database, ascending."""
    conn.execute(_LEDGER)
    return [int(r[0]) for r in conn.execute("SELECT version FROM schema_migrations ORDER BY 1")]


def migrate(
    conn: sqlite3.Connection,
    now: datetime,
    *,
    target: int | None = None,
    migrations: tuple[Migration, ...] = MIGRATIONS,
) -> list[int]:
    """Apply every migration not yet recorded, up to ``target``; return the ones applied.

    Each migration runs in its own ``BEGIN IMMEDIATE`` transaction with its ledger row,
    so a crash leaves the schema at a recorded version.  A database that records a
    version this build does not know was written by a newer build: refuse it.
    """
    known = {m.version for m in migrations}
    done = applied_versions(conn)
    unknown = [v for v in done if v not in known]
    if unknown:
        raise StoreSchemaError(
            f"the state store has schema version {max(unknown)}, newer than this build "
            f"knows ({max(known)}); upgrade comment-wake or use another store"
        )
    applied: list[int] = []
    for m in sorted(migrations, key=lambda m: m.version):
        if m.version in done or (target is not None and m.version > target):
            continue
        conn.execute("BEGIN IMMEDIATE")
        try:
            # Another process may have applied it while we waited for the write lock.
            if conn.execute(
                "SELECT 1 FROM schema_migrations WHERE version = ?", (m.version,)
            ).fetchone():
                conn.execute("COMMIT")
                continue
            for statement in m.statements:
                conn.execute(statement)
            conn.execute(
                "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
                (m.version, m.name, now.isoformat()),
            )
            conn.execute("COMMIT")
        except sqlite3.Error as exc:
            conn.execute("ROLLBACK")
            raise StoreSchemaError(f"migration {m.version} ({m.name}) failed: {exc}") from exc
        applied.append(m.version)
    return applied
