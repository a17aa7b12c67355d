"""The watch registry: which threads watch which PRs (``pr_review_monitor`` watches).

Beside it, the registry version: one counter that every change of the watches moves in
the same transaction, and that an application moves with its own registry's writes
(``bump_registry``: the comment wake's workers and orchestrators).  A reader that keeps
a snapshot of the registry reads the counter alone and reloads only when it moved, so a
quiet poll round costs one store read whatever the number of watches.
"""

from __future__ import annotations

from datetime import UTC, datetime

from review_monitor._listener import WATCH_TOOL, Watch
from review_monitor._model import PrRef

from ._db import Database, ReadTx, WriteTx, parse_store_time
from ._schema import Migration, Tables

__all__ = [
    "WATCHES",
    "WatchesPart",
    "add_watch",
    "bump_registry",
    "read_registry_version",
    "read_watch_starts",
    "read_watches",
    "remove_watch",
    "respell_watches",
    "watch_start",
]

_V1 = (  # version 1: watch registry
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
)
# version 2: GitHub's names are case-insensitive, so host, owner and name compare with an
# ASCII case fold (SQLite's NOCASE); a thread's watches of one PR in two spellings become
# one, its oldest.
_V2 = (
    """CREATE TABLE watches_v2 (
        thread_id TEXT NOT NULL,
        host TEXT NOT NULL COLLATE NOCASE,
        owner TEXT NOT NULL COLLATE NOCASE,
        name TEXT NOT NULL COLLATE NOCASE,
        number INTEGER NOT NULL,
        tool TEXT NOT NULL,
        added_at TEXT NOT NULL,
        PRIMARY KEY (thread_id, host, owner, name, number, tool)
    )""",
    "INSERT OR IGNORE INTO watches_v2 SELECT thread_id, host, owner, name, number, tool, "
    "added_at FROM watches ORDER BY added_at, rowid",
    "DROP TABLE watches",
    "ALTER TABLE watches_v2 RENAME TO watches",
    "CREATE INDEX watches_by_pr ON watches (host, owner, name, number)",
)
# version 3: the registry version (one row, id 0).
_V3 = (
    "CREATE TABLE registry_version (id INTEGER PRIMARY KEY CHECK (id = 0), n INTEGER NOT NULL)",
    "INSERT INTO registry_version (id, n) VALUES (0, 0)",
)
# version 4: a watch's PR is keyed by ``pr_key`` (``PrRef.key_text``, the folded
# ``host/owner/name#N``), so no collation decides which PR a row is, on any engine; host,
# owner and name stay as spelled, for display.  SQLite's lower() folds ASCII only, as
# ``PrRef.key`` does, and version 2 left one row per folded PR: the keys are unique.
_V4 = (
    """CREATE TABLE watches_v4 (
        thread_id TEXT NOT NULL,
        pr_key TEXT NOT NULL,
        host TEXT NOT NULL,
        owner TEXT NOT NULL,
        name TEXT NOT NULL,
        number INTEGER NOT NULL,
        tool TEXT NOT NULL,
        added_at TEXT NOT NULL,
        PRIMARY KEY (thread_id, pr_key, tool)
    )""",
    "INSERT INTO watches_v4 (thread_id, pr_key, host, owner, name, number, tool, added_at) "
    "SELECT thread_id, lower(host) || '/' || lower(owner) || '/' || lower(name) || '#' "
    "|| number, host, owner, name, number, tool, added_at FROM watches",
    "DROP TABLE watches",
    "ALTER TABLE watches_v4 RENAME TO watches",
    "CREATE INDEX watches_by_pr ON watches (pr_key)",
)
# PostgreSQL: a database is created at the current schema, so versions 1 and 2 (the old
# shapes, rebuilt by SQLite alone) do nothing there, version 3 runs as SQLite's (its
# types translated) and version 4 creates the watches table in its current shape.
_V4_POSTGRES = (
    """CREATE TABLE watches (
        thread_id TEXT COLLATE "C" NOT NULL,
        pr_key TEXT COLLATE "C" NOT NULL,
        host TEXT COLLATE "C" NOT NULL,
        owner TEXT COLLATE "C" NOT NULL,
        name TEXT COLLATE "C" NOT NULL,
        number BIGINT NOT NULL,
        tool TEXT COLLATE "C" NOT NULL,
        added_at TEXT COLLATE "C" NOT NULL,
        PRIMARY KEY (thread_id, pr_key, tool)
    )""",
    "CREATE INDEX watches_by_pr ON watches (pr_key)",
)
WATCHES = Tables(
    "review_monitor.watches",
    (
        Migration(1, "watch registry", _V1, postgres=()),
        Migration(2, "names compare case-insensitively", _V2, postgres=()),
        Migration(3, "registry version", _V3),
        Migration(4, "PRs keyed by pr_key", _V4, postgres=_V4_POSTGRES),
    ),
    legacy=1,
)


def bump_registry(tx: WriteTx) -> None:
    """Move the registry version inside ``tx``: call it in every transaction that changes
    what a registry snapshot holds (the watches move it themselves)."""
    tx.execute("UPDATE registry_version SET n = n + 1 WHERE id = 0")


def read_registry_version(tx: ReadTx) -> int:
    """The registry version as of ``tx``."""
    row = tx.execute("SELECT n FROM registry_version WHERE id = 0").fetchone()
    return 0 if row is None else int(row[0])


def add_watch(tx: WriteTx, thread_id: str, pr: PrRef) -> bool:
    """Register ``thread_id`` as watching ``pr`` inside ``tx``; False when it already was."""
    cur = tx.execute(
        "INSERT INTO watches (thread_id, pr_key, host, owner, name, number, tool, added_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (thread_id, pr_key, tool) DO NOTHING",
        (thread_id, pr.key_text, pr.host, pr.owner, pr.name, pr.number, WATCH_TOOL, tx.stamp),
    )
    if cur.rowcount != 1:
        return False
    bump_registry(tx)
    return True


def remove_watch(tx: WriteTx, thread_id: str, pr: PrRef) -> bool:
    """Stop ``thread_id`` watching ``pr`` inside ``tx``; False when it did not."""
    cur = tx.execute(
        "DELETE FROM watches WHERE thread_id = ? AND pr_key = ? AND tool = ?",
        (thread_id, pr.key_text, WATCH_TOOL),
    )
    if cur.rowcount == 0:
        return False
    bump_registry(tx)
    return True


def respell_watches(tx: WriteTx, pr: PrRef) -> int:
    """Spell every watch of ``pr`` (whatever its letter case) as ``pr`` is spelled, inside
    ``tx``; how many changed."""
    cur = tx.execute(
        "UPDATE watches SET owner = ?, name = ? WHERE pr_key = ? AND (owner != ? OR name != ?)",
        (pr.owner, pr.name, pr.key_text, pr.owner, pr.name),
    )
    if cur.rowcount:
        bump_registry(tx)
    return cur.rowcount


class WatchesPart(Database):
    """``SyncStore``'s watch registry, each call its own transaction."""

    def add_watch(self, thread_id: str, pr: PrRef, *, at: datetime) -> bool:
        """Register ``thread_id`` as watching ``pr``; False when it already was."""
        with self.write(at=at) as tx:
            return add_watch(tx, thread_id, pr)

    def remove_watch(self, thread_id: str, pr: PrRef) -> bool:
        # Deleting stamps nothing: any time will do for the transaction.
        with self.write(at=_EPOCH) as tx:
            return remove_watch(tx, thread_id, pr)

    def watched_since(self, thread_id: str, pr: PrRef) -> datetime | None:
        """When ``thread_id`` started watching ``pr``; None when it does not."""
        with self.read() as tx:
            return watch_start(tx, thread_id, pr)

    def respell(self, pr: PrRef, *, at: datetime) -> int:
        """Spell ``pr``'s watches as ``pr`` does (GitHub's ``nameWithOwner``); how many
        changed."""
        with self.write(at=at) as tx:
            return respell_watches(tx, pr)

    def watches(self) -> tuple[Watch, ...]:
        """Every watch, sorted by PR then thread id."""
        with self.read() as tx:
            return read_watches(tx)

    def registry_version(self) -> int:
        """The registry version: it moves with every change of the watches and with every
        application write that calls ``bump_registry``."""
        with self.read() as tx:
            return read_registry_version(tx)

    def versioned_watches(self) -> tuple[int, tuple[Watch, ...]]:
        """The registry version and every watch, read in one transaction."""
        with self.read() as tx:
            return read_registry_version(tx), read_watches(tx)


def watch_start(tx: ReadTx, thread_id: str, pr: PrRef) -> datetime | None:
    """When ``thread_id`` started watching ``pr``, as of ``tx``; None when it does not."""
    row = tx.execute(
        "SELECT added_at FROM watches WHERE thread_id = ? AND pr_key = ? AND tool = ?",
        (thread_id, pr.key_text, WATCH_TOOL),
    ).fetchone()
    return None if row is None else parse_store_time(row[0])


def read_watch_starts(tx: ReadTx) -> dict[Watch, datetime]:
    """Every watch as of ``tx``, with when it began."""
    rows = tx.execute(
        "SELECT thread_id, host, owner, name, number, added_at FROM watches WHERE tool = ?",
        (WATCH_TOOL,),
    ).fetchall()
    return {
        Watch(r[0], PrRef(host=r[1], owner=r[2], name=r[3], number=r[4])): parse_store_time(r[5])
        for r in rows
    }


def read_watches(tx: ReadTx) -> tuple[Watch, ...]:
    """Every watch as of ``tx``, sorted by PR then thread id."""
    rows = tx.execute(
        "SELECT thread_id, host, owner, name, number FROM watches WHERE tool = ?",
        (WATCH_TOOL,),
    ).fetchall()
    out = [Watch(r[0], PrRef(host=r[1], owner=r[2], name=r[3], number=r[4])) for r in rows]
    return tuple(sorted(out, key=lambda w: (w.pr, w.thread_id)))


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
