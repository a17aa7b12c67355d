"""The watch registry: which threads watch which PRs (``pr_review_monitor`` watches)."""

from __future__ import annotations

from datetime import UTC, datetime

from review_monitor._listener import WATCH_TOOL, Watch
from review_monitor._model import PrRef

from ._db import Database, WriteTx, parse_store_time
from ._schema import Migration, Tables

__all__ = ["WATCHES", "WatchesPart", "add_watch", "remove_watch", "respell_watches"]

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
WATCHES = Tables(
    "review_monitor.watches",
    (Migration(1, "watch registry", _V1), Migration(2, "names compare case-insensitively", _V2)),
    legacy=1,
)


def add_watch(tx: WriteTx, thread_id: str, pr: PrRef) -> bool:
    """Register ``thread_id`` as watching ``pr`` inside ``tx``; False when it already was."""
    cur = tx.execute(
        "INSERT OR IGNORE INTO watches (thread_id, host, owner, name, number, tool, "
        "added_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
        (thread_id, pr.host, pr.owner, pr.name, pr.number, WATCH_TOOL, tx.stamp),
    )
    return cur.rowcount == 1


def remove_watch(tx: WriteTx, thread_id: str, pr: PrRef) -> bool:
    """Stop ``thread_id`` watching ``pr`` inside ``tx``; False when it did not."""
    cur = tx.execute(
        "DELETE FROM watches WHERE thread_id = ? AND host = ? AND owner = ? "
        "AND name = ? AND number = ? AND tool = ?",
        (thread_id, pr.host, pr.owner, pr.name, pr.number, WATCH_TOOL),
    )
    return cur.rowcount > 0


def respell_watches(tx: WriteTx, pr: PrRef) -> int:
    """Spell every watch of ``pr`` (whatever its letter case) as ``pr`` is spelled, inside
    ``tx``; how many changed."""
    cur = tx.execute(
        "UPDATE watches SET owner = ?, name = ? WHERE host = ? AND owner = ? AND name = ? "
        "AND number = ? AND (owner != ? COLLATE BINARY OR name != ? COLLATE BINARY)",
        (pr.owner, pr.name, pr.host, pr.owner, pr.name, pr.number, pr.owner, pr.name),
    )
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
            row = tx.execute(
                "SELECT added_at FROM watches WHERE thread_id = ? AND host = ? AND owner = ? "
                "AND name = ? AND number = ? AND tool = ?",
                (thread_id, pr.host, pr.owner, pr.name, pr.number, WATCH_TOOL),
            ).fetchone()
        return None if row is None else parse_store_time(row[0])

    def respell(self, pr: PrRef, *, at: datetime) -> int:
        """Spell ``pr``'s watches as ``pr`` does (GitHub's ``nameWithOwner``); how many
        changed."""
        with self.write(at=at) as tx:
            return respell_watches(tx, pr)

    def watches(self) -> tuple[Watch, ...]:
        """Every watch, sorted by PR then thread id."""
        with self.read() as tx:
            rows = tx.execute(
                "SELECT thread_id, host, owner, name, number FROM watches WHERE tool = ?",
                (WATCH_TOOL,),
            ).fetchall()
        out = [Watch(r[0], PrRef(host=r[1], owner=r[2], name=r[3], number=r[4])) for r in rows]
        return tuple(sorted(out, key=lambda w: (w.pr, w.thread_id)))


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
