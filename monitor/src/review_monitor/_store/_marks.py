"""Listener marks: each listener's opaque, versioned state for one PR."""

from __future__ import annotations

import msgspec

from review_monitor._model import PrRef

from ._db import Database, ReadTx, WriteTx
from ._schema import Migration, Tables

__all__ = ["MARKS", "Mark", "MarksPart", "put_mark"]

_V1 = (  # version 1: listener marks
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
)
# version 2: host, owner and name compare with an ASCII case fold (SQLite's NOCASE), as
# GitHub compares them; of a listener's marks of one PR in two spellings the one written
# last is kept (both followed the same comments).
_V2 = (
    """CREATE TABLE marks_v2 (
        host TEXT NOT NULL COLLATE NOCASE,
        owner TEXT NOT NULL COLLATE NOCASE,
        name TEXT NOT NULL COLLATE NOCASE,
        number INTEGER NOT NULL,
        listener TEXT NOT NULL,
        version INTEGER NOT NULL,
        blob BLOB NOT NULL,
        updated_at TEXT NOT NULL,
        PRIMARY KEY (host, owner, name, number, listener)
    )""",
    "INSERT OR IGNORE INTO marks_v2 SELECT host, owner, name, number, listener, version, "
    "blob, updated_at FROM marks ORDER BY updated_at DESC, rowid DESC",
    "DROP TABLE marks",
    "ALTER TABLE marks_v2 RENAME TO marks",
)
# version 3: a mark's PR is keyed by ``pr_key`` (``PrRef.key_text``, the folded
# ``host/owner/name#N``), so no collation decides which PR a row is, on any engine; host,
# owner and name stay as spelled, for display.  SQLite's lower() folds ASCII only, as
# ``PrRef.key`` does, and version 2 left one mark per listener and folded PR.
_V3 = (
    """CREATE TABLE marks_v3 (
        pr_key TEXT NOT NULL,
        listener TEXT NOT NULL,
        host TEXT NOT NULL,
        owner TEXT NOT NULL,
        name TEXT NOT NULL,
        number INTEGER NOT NULL,
        version INTEGER NOT NULL,
        blob BLOB NOT NULL,
        updated_at TEXT NOT NULL,
        PRIMARY KEY (pr_key, listener)
    )""",
    "INSERT INTO marks_v3 (pr_key, listener, host, owner, name, number, version, blob, "
    "updated_at) SELECT lower(host) || '/' || lower(owner) || '/' || lower(name) || '#' "
    "|| number, listener, host, owner, name, number, version, blob, updated_at FROM marks",
    "DROP TABLE marks",
    "ALTER TABLE marks_v3 RENAME TO marks",
)
# PostgreSQL: a database is created at the current schema, so versions 1 and 2 (the old
# shapes, rebuilt by SQLite alone) do nothing there and version 3 creates the marks table
# in its current shape.
_V3_POSTGRES = (
    """CREATE TABLE marks (
        pr_key TEXT COLLATE "C" NOT NULL,
        listener TEXT COLLATE "C" NOT NULL,
        host TEXT COLLATE "C" NOT NULL,
        owner TEXT COLLATE "C" NOT NULL,
        name TEXT COLLATE "C" NOT NULL,
        number BIGINT NOT NULL,
        version BIGINT NOT NULL,
        blob BYTEA NOT NULL,
        updated_at TEXT COLLATE "C" NOT NULL,
        PRIMARY KEY (pr_key, listener)
    )""",
)
MARKS = Tables(
    "review_monitor.marks",
    (
        Migration(1, "listener marks", _V1, postgres=()),
        Migration(2, "names compare case-insensitively", _V2, postgres=()),
        Migration(3, "PRs keyed by pr_key", _V3, postgres=_V3_POSTGRES),
    ),
    legacy=1,
)


class Mark(msgspec.Struct, frozen=True):
    """A listener's opaque state for one PR: the listener encodes and versions ``blob``."""

    version: int
    blob: bytes


def put_mark(tx: WriteTx, pr: PrRef, listener: str, mark: Mark) -> None:
    """Write ``listener``'s mark for ``pr`` inside ``tx``."""
    tx.execute(
        "INSERT INTO marks (pr_key, listener, host, owner, name, number, version, blob, "
        "updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) "
        "ON CONFLICT (pr_key, listener) DO UPDATE SET "
        "owner = excluded.owner, name = excluded.name, "
        "version = excluded.version, blob = excluded.blob, "
        "updated_at = excluded.updated_at",
        (
            pr.key_text,
            listener,
            pr.host,
            pr.owner,
            pr.name,
            pr.number,
            mark.version,
            mark.blob,
            tx.stamp,
        ),
    )


def load_mark(tx: ReadTx, pr: PrRef, listener: str) -> Mark | None:
    """``listener``'s mark for ``pr`` inside ``tx``; None when it has none."""
    row = tx.execute(
        "SELECT version, blob FROM marks WHERE pr_key = ? AND listener = ?",
        (pr.key_text, listener),
    ).fetchone()
    return None if row is None else Mark(int(row[0]), bytes(row[1]))


class MarksPart(Database):
    """``SyncStore``'s marks (written by ``SyncStore.commit``, with the notices)."""

    def load_mark(self, pr: PrRef, listener: str) -> Mark | None:
        with self.read() as tx:
            return load_mark(tx, pr, listener)

    def marked_prs(self, listener: str) -> tuple[PrRef, ...]:
        """Every PR that has a mark for ``listener``, watched or not, sorted (a listener
        that keeps work in its marks finds it again after a restart this way)."""
        with self.read() as tx:
            rows = tx.execute(
                "SELECT host, owner, name, number FROM marks WHERE listener = ?", (listener,)
            ).fetchall()
        return tuple(sorted(PrRef(host=r[0], owner=r[1], name=r[2], number=r[3]) for r in rows))
