"""PR owners: which host decides and delivers each PR, with an epoch that fences its writes.

A PR is decided and delivered by the host where its worker is bound (that host reads the
worker's transcripts).  ``claim_pr`` records it, in the transaction that binds the worker:
a new owner (another host or worker) moves the epoch on.  ``release_pr`` unbinds the
worker, also moving the epoch; the host stays, since it finishes what the PR's mark
still holds (its held comments are decided ``unbound`` there).  The row is never deleted:
an epoch never goes back, so a host that held the PR long ago can never pass for its
owner again.

Every commit of a mark names the owner and epoch its look read (``Fence``);
``check_fence`` takes the PR's lock (which also serialises the PR's writers) and says
whether they still hold.  A host cut off while its PR was re-bound elsewhere therefore
can neither move the mark nor queue a notice: its commit writes nothing.
"""

from __future__ import annotations

import msgspec

from review_monitor._model import PrRef

from ._db import ReadTx, WriteTx
from ._schema import Migration, Tables

__all__ = [
    "LOCAL_HOST",
    "OWNERS",
    "Fence",
    "PrOwner",
    "check_fence",
    "claim_pr",
    "pr_lock",
    "read_owner",
    "release_pr",
]

_V1 = (
    """CREATE TABLE pr_owners (
        pr_key TEXT PRIMARY KEY,
        host_id TEXT NOT NULL,
        worker TEXT NOT NULL,
        epoch INTEGER NOT NULL,
        updated_at TEXT NOT NULL
    )""",
    "CREATE INDEX pr_owners_by_host ON pr_owners (host_id)",
)
LOCAL_HOST = "local"
"""The host id a single host's store records its PRs under (``store copy`` stamps the
fleet host id over it)."""

OWNERS = Tables("review_monitor.owners", (Migration(1, "PR owners", _V1),))


class PrOwner(msgspec.Struct, frozen=True):
    """A PR's owner: its host and worker (the worker empty once unbound), and the epoch."""

    host_id: str
    worker: str
    epoch: int


class Fence(msgspec.Struct, frozen=True):
    """What a look read of its PR's owner: its commit holds only while both still hold."""

    host_id: str
    epoch: int


def pr_lock(pr: PrRef) -> str:
    """The name of ``pr``'s lock (``WriteTx.lock``)."""
    return f"pr:{pr.key_text}"


def read_owner(tx: ReadTx, pr: PrRef) -> PrOwner | None:
    """``pr``'s owner as of ``tx``; None when it never had one."""
    row = tx.execute(
        "SELECT host_id, worker, epoch FROM pr_owners WHERE pr_key = ?", (pr.key_text,)
    ).fetchone()
    return None if row is None else PrOwner(str(row[0]), str(row[1]), int(row[2]))


def claim_pr(tx: WriteTx, pr: PrRef, host_id: str, worker: str) -> int:
    """Make ``host_id``'s ``worker`` the owner of ``pr`` inside ``tx``; the epoch it owns
    it at (unchanged when it already did)."""
    tx.lock(pr_lock(pr))
    before = read_owner(tx, pr)
    if before is not None and (before.host_id, before.worker) == (host_id, worker):
        return before.epoch
    epoch = 1 if before is None else before.epoch + 1
    _put(tx, pr, host_id, worker, epoch)
    return epoch


def release_pr(tx: WriteTx, pr: PrRef, worker: str) -> None:
    """``worker`` gives ``pr`` up inside ``tx`` (an unbind, an archive): no worker owns it,
    at the next epoch, and its host keeps it to finish its mark.  Nothing changes when
    another worker owns it by now."""
    tx.lock(pr_lock(pr))
    before = read_owner(tx, pr)
    if before is None or before.worker != worker:
        return
    _put(tx, pr, before.host_id, "", before.epoch + 1)


def check_fence(tx: WriteTx, pr: PrRef, fence: Fence) -> bool:
    """Whether ``fence``'s host still owns ``pr`` at its epoch, inside ``tx``, holding the
    PR's lock to the end of ``tx``."""
    tx.lock(pr_lock(pr))
    owner = read_owner(tx, pr)
    return owner is not None and (owner.host_id, owner.epoch) == (fence.host_id, fence.epoch)


def _put(tx: WriteTx, pr: PrRef, host_id: str, worker: str, epoch: int) -> None:
    tx.execute(
        "INSERT INTO pr_owners (pr_key, host_id, worker, epoch, updated_at) "
        "VALUES (?, ?, ?, ?, ?) ON CONFLICT (pr_key) DO UPDATE SET "
        "host_id = excluded.host_id, worker = excluded.worker, epoch = excluded.epoch, "
        "updated_at = excluded.updated_at",
        (pr.key_text, host_id, worker, epoch, tx.stamp),
    )
