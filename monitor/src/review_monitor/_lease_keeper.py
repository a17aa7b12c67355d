"""``LeaseKeeper``: hold one lease of the store for as long as a task runs (fleet mode).

It takes the lease once (``acquire``), then renews it every ``renew_every`` with an
expiry of ``ttl`` (10 s and 30 s by default: three renewals may fail before another
host may take it).  A renewal the store refuses (the term moved on) means the lease was
lost: the keeper tries once to take it again, under a new term, and stops with
``LeaseLostError`` when another holder has it.  A renewal that cannot reach the store
is retried at the next tick: while the database is away every host stalls and no lease
moves, since nobody can write one.

Its store is its own connection (the lease's), so a long work transaction never delays
a renewal; every wait goes through the injected clock, and "now" comes from the
``now`` seam: the database's clock in production, the app's in tests.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime, timedelta

from ._clock import Clock
from ._errors import StoreError
from ._store._async import Store
from ._store._db import ReadTx
from ._store._leases import (
    HeldLease,
    LeaseHeld,
    acquire_lease,
    database_now,
    release_lease,
    renew_lease,
)
from ._store._sync import SyncStore

__all__ = ["LeaseKeeper", "LeaseLostError", "LeaseNow"]

_log = logging.getLogger("review_monitor.lease")

LeaseNow = Callable[[ReadTx], datetime]
"""Where a lease's "now" comes from, read inside the lease's transaction."""


class LeaseLostError(StoreError):
    """Another holder took the lease this task held; the task must stop."""


class LeaseKeeper:
    """One lease, held by ``holder`` (this process) under ``claim``."""

    def __init__(
        self,
        store: Store,
        name: str,
        holder: str,
        *,
        clock: Clock,
        claim: str = "",
        ttl: timedelta = timedelta(seconds=30),
        renew_every: timedelta = timedelta(seconds=10),
        now: LeaseNow = database_now,
    ) -> None:
        if not timedelta(0) < renew_every < ttl:
            raise ValueError("a lease must be renewed more often than it expires")
        self._store = store
        self.name = name
        self.holder = holder
        self.claim = claim
        self.ttl = ttl
        self.renew_every = renew_every
        self._clock = clock
        self._now = now
        self.held: HeldLease | None = None

    def _acquire(self, db: SyncStore) -> HeldLease | LeaseHeld:
        with db.write(at=self._clock.now()) as tx:
            return acquire_lease(
                tx, self.name, self.holder, now=self._now(tx), ttl=self.ttl, claim=self.claim
            )

    def _renew(self, db: SyncStore, lease: HeldLease) -> HeldLease | None:
        with db.write(at=self._clock.now()) as tx:
            return renew_lease(tx, lease, now=self._now(tx), ttl=self.ttl)

    async def acquire(self) -> HeldLease | LeaseHeld:
        """Take the lease now, or say who holds it."""
        outcome = await self._store.call(self._acquire)
        if isinstance(outcome, HeldLease):
            self.held = outcome
        return outcome

    async def renew(self) -> HeldLease:
        """Renew the held lease once; take it again under a new term when it was lost
        but is free; ``LeaseLostError`` when another holder has it."""
        if self.held is None:
            raise RuntimeError("renew() before acquire()")
        renewed = await self._store.call(self._renew, self.held)
        if renewed is not None:
            self.held = renewed
            return renewed
        again = await self.acquire()
        if isinstance(again, LeaseHeld):
            self.held = None
            raise LeaseLostError(
                f"the lease {self.name} was taken by {again.row.holder} (term "
                f"{again.row.term}); this process stops holding it"
            )
        _log.warning("the lease %s lapsed and was taken again (term %d)", self.name, again.term)
        return again

    def _release(self, db: SyncStore, lease: HeldLease) -> bool:
        with db.write(at=self._clock.now()) as tx:
            return release_lease(tx, lease, now=self._now(tx))

    async def release(self) -> bool:
        """Let the held lease lapse now (a clean exit), so the next holder takes it without
        waiting for its expiry; False when it was not held (or no longer ours)."""
        held, self.held = self.held, None
        if held is None:
            return False
        return await self._store.call(self._release, held)

    async def keep(self) -> None:
        """Renew every ``renew_every`` until cancelled; raises ``LeaseLostError``."""
        while True:
            await self._clock.sleep_until(self._clock.now() + self.renew_every)
            try:
                await self.renew()
            except LeaseLostError:
                raise
            except StoreError as exc:
                _log.warning("the lease %s was not renewed: %s", self.name, exc)
