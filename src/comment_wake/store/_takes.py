"""Inbox deliveries and their takes: comment-wake's ``inbox_deliveries`` table (fleet mode).

A fleet host's delivery loop records each notice it writes into a worker's inbox, in the
transaction that marks it delivered (``delivered_to_inbox(...)`` as ``mark_delivered``'s
``also``): its host, the inbox root there, the worker, the notice's key and its PR.  The
hook's ``inbox take`` never opens the store; it leaves a tombstone in the inbox's
``taken/``, and the host's delivery loop records the take from it (``untaken`` then
``record_taken``, every scan).

So the store knows which notices were delivered but never taken.  When the PR is bound on
another host (the old host lost, or its worker unbound there), ``requeue_untaken``
queues those notices again for the PR's new worker, in the bind's transaction.  A take
made on the old host in the moments before it died, not synced yet, is delivered again:
at least once, never lost.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from datetime import datetime

import msgspec

from review_monitor import Notice, PrRef
from review_monitor.store import (
    Migration,
    SyncStore,
    Tables,
    WriteTx,
    enqueue_notices,
    readdressed,
)

from ._hosts import of_workers

__all__ = [
    "INBOX_DELIVERIES",
    "InboxDelivery",
    "delivered_to_inbox",
    "prune_inbox_deliveries",
    "record_taken",
    "requeue_untaken",
    "untaken",
]

_V1 = (  # version 1: inbox deliveries and their takes
    """CREATE TABLE inbox_deliveries (
        seq INTEGER PRIMARY KEY,
        host_id TEXT NOT NULL,
        root TEXT NOT NULL,
        worker TEXT NOT NULL,
        key TEXT NOT NULL,
        pr_key TEXT NOT NULL,
        delivered_at TEXT NOT NULL,
        taken_at TEXT,
        requeued_as INTEGER
    )""",
    "CREATE INDEX inbox_deliveries_untaken ON inbox_deliveries (host_id, taken_at)",
    "CREATE INDEX inbox_deliveries_by_pr ON inbox_deliveries (pr_key)",
)
INBOX_DELIVERIES = Tables(
    "comment_wake.inbox_deliveries", (Migration(1, "inbox deliveries and their takes", _V1),)
)
"""The notices a fleet host wrote into its workers' inboxes, and whether each was taken."""


class InboxDelivery(msgspec.Struct, frozen=True):
    """A notice in ``root``/``worker`` on ``host_id``, delivered as outbox entry ``seq``."""

    seq: int
    host_id: str
    root: str
    worker: str
    key: str


def _pr_key(notice: Notice) -> str:
    owner, _, name = notice.pr.repo.partition("/")
    return PrRef(owner=owner, name=name, number=notice.pr.number, host=notice.pr.host).key_text


def delivered_to_inbox(
    seq: int, notice: Notice, *, host_id: str, root: str
) -> Callable[[WriteTx], None]:
    """The write that records the outbox entry ``seq`` (``notice``) as written into the
    inbox under ``root`` on ``host_id``, inside the caller's transaction (one
    conditional insert: a repeat is a no-op)."""

    def record(tx: WriteTx) -> None:
        tx.execute(
            "INSERT INTO inbox_deliveries (seq, host_id, root, worker, key, pr_key, "
            "delivered_at) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (seq) DO NOTHING",
            (seq, host_id, root, notice.worker, notice.key, _pr_key(notice), tx.stamp),
        )

    return record


def untaken(
    db: SyncStore, host_id: str, *, workers: Collection[str] | None = None
) -> tuple[InboxDelivery, ...]:
    """The notices delivered into inboxes on ``host_id`` that are not recorded taken (nor
    queued again elsewhere), oldest first; ``workers``: only theirs."""
    mine, args = of_workers(workers, "worker")
    with db.read() as tx:
        rows = tx.execute(
            "SELECT seq, host_id, root, worker, key FROM inbox_deliveries "
            f"WHERE host_id = ? AND taken_at IS NULL AND requeued_as IS NULL{mine} "
            "ORDER BY seq",
            (host_id, *args),
        ).fetchall()
    return tuple(InboxDelivery(int(r[0]), str(r[1]), str(r[2]), str(r[3]), str(r[4])) for r in rows)


def record_taken(db: SyncStore, seqs: Sequence[int], *, at: datetime) -> int:
    """Record the deliveries ``seqs`` as taken at ``at`` (one conditional statement: a
    take recorded already keeps its time); how many were newly recorded."""
    if not seqs:
        return 0
    with db.write(at=at) as tx:
        cur = tx.execute(
            "UPDATE inbox_deliveries SET taken_at = ? WHERE taken_at IS NULL "
            f"AND seq IN ({', '.join('?' for _ in seqs)})",
            (tx.stamp, *seqs),
        )
        return cur.rowcount


def requeue_untaken(tx: WriteTx, pr: PrRef, *, host_id: str, worker: str) -> list[int]:
    """Inside ``tx`` (a bind of ``pr`` to ``worker`` on ``host_id``, holding the PR's
    lock): queue again, for ``worker``, every notice of ``pr`` delivered into an inbox on
    another host and never recorded taken; the seqs of the entries queued (each
    ``readdressed``, so a repeat enqueues nothing new).  Each delivery is queued again
    once: it is marked with the entry it became."""
    rows = tx.execute(
        "SELECT d.seq, o.notice FROM inbox_deliveries d JOIN outbox o ON o.seq = d.seq "
        "WHERE d.pr_key = ? AND d.host_id != ? AND d.taken_at IS NULL "
        "AND d.requeued_as IS NULL ORDER BY d.seq",
        (pr.key_text, host_id),
    ).fetchall()
    queued: list[int] = []
    for seq, blob in rows:
        again = readdressed(msgspec.json.decode(bytes(blob), type=Notice), worker)
        new = enqueue_notices(tx, [again])
        if new:
            queued += new
            into = new[0]
        else:
            row = tx.execute("SELECT seq FROM outbox WHERE key = ?", (again.key,)).fetchone()
            into = int(row[0])
        tx.execute(
            "UPDATE inbox_deliveries SET requeued_as = ? WHERE seq = ? AND requeued_as IS NULL",
            (into, seq),
        )
    return queued


def prune_inbox_deliveries(db: SyncStore, *, at: datetime) -> int:
    """Delete the deliveries whose outbox entry was pruned; how many went."""
    with db.write(at=at) as tx:
        cur = tx.execute(
            "DELETE FROM inbox_deliveries WHERE NOT EXISTS "
            "(SELECT 1 FROM outbox o WHERE o.seq = inbox_deliveries.seq)"
        )
        return cur.rowcount
