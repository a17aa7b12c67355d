"""Fleet mode: a host records in the store which of its inbox notices were taken.

``comment-wake inbox take`` (a hook) never opens the store; it leaves a tombstone in the
inbox's ``taken/``.  ``TakeSync``, a side job of the delivery loop, looks once a scan at
the notices this host delivered into its recipients' inboxes and not yet recorded taken,
and records those whose tombstone is there (``record_taken``, one statement).  So the
store knows which notices were delivered but never taken, and a re-bind of the PR on
another host queues those again (``comment_wake.store.requeue_untaken``).
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from anyio.to_thread import run_sync

from comment_wake.store import InboxDelivery, record_taken, untaken
from review_monitor import Clock
from review_monitor.store import Store, SyncStore

from ._inbox import was_taken

__all__ = ["TakeSync", "TakesPass"]


@dataclass(frozen=True)
class TakesPass:
    """What one pass did: how many takes it recorded."""

    done: int = 0


def _taken(rows: Collection[InboxDelivery]) -> list[int]:
    out: list[int] = []
    for row in rows:
        try:
            if was_taken(Path(row.root), row.worker, row.key):
                out.append(row.seq)
        except (ValueError, OSError):
            continue  # an inbox that cannot be looked at is looked at again next pass
    return out


class TakeSync:
    """Records the takes of ``host_id``'s inbox notices every ``every`` (the delivery
    loop's scan); ``recipients``: whose inboxes (the workers bound on this host)."""

    def __init__(
        self,
        store: Store,
        *,
        host_id: str,
        clock: Clock,
        every: timedelta,
        recipients: Callable[[], Collection[str]] | None = None,
    ) -> None:
        self._store = store
        self._host_id = host_id
        self._clock = clock
        self._every = every
        self._recipients = recipients
        self._next = clock.now()

    def next_due(self, db: SyncStore, workers: Collection[str] | None) -> datetime | None:
        return self._next  # a pass every ``every``: nothing to read

    async def run_once(self) -> TakesPass:
        """Record the takes of the untaken notices' tombstones found now."""
        self._next = self._clock.now() + self._every
        workers = None if self._recipients is None else await run_sync(self._recipients)
        rows = await self._store.call(untaken, self._host_id, workers=workers)
        if not rows:
            return TakesPass()
        taken = await run_sync(_taken, rows)
        done = await self._store.call(record_taken, taken, at=self._clock.now())
        return TakesPass(done=done)
