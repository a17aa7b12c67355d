"""The watch registry: which threads watch which PRs (``pr_review_monitor`` watches)."""

from __future__ import annotations

from datetime import UTC, datetime

from review_monitor._listener import WATCH_TOOL, Watch
from review_monitor._model import PrRef

from ._db import Database, WriteTx, parse_store_time
from ._schema import Migration, Tables

__all__ = ["WATCHES", "WatchesPart", "add_watch", "remove_watch"]

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
WATCHES = Tables("review_monitor.watches", (Migration(1, "watch registry", _V1),), legacy=1)


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
