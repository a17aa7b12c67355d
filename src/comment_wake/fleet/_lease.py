"""``HostLease``: a fleet daemon's hold on its host, ``host:<host_id>``, in the store.

A daemon in fleet mode keeps today's local ``flock`` on its state directory and also
holds its host's lease row, on a connection of its own (a long work transaction never
delays a renewal).  ``open_host_lease`` takes it once: a lease held live by another
state directory (another claim) refuses the start with ``StoreLockedError``; one held
under this directory's claim is a restart of this host (the caller holds the local lock,
so the old process is gone) and is taken over at once with ``term + 1``.  ``keep`` renews
it until cancelled and raises ``LeaseLostError`` when another daemon took it;
``release`` lets it lapse at a clean exit.  Each daemon start is a new instance (a fresh
UUID): the lease's holder.
"""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass, field
from datetime import datetime

from review_monitor import Clock, StoreError, StoreLockedError
from review_monitor.store import (
    HeldLease,
    LeaseHeld,
    LeaseKeeper,
    LeaseLostError,
    LeaseNow,
    Store,
    database_now,
)

from ._config import FleetConfig
from ._host import HostIdentity

__all__ = ["HostLease", "host_lease_name", "open_host_lease"]

_log = logging.getLogger("comment_wake.fleet")


def host_lease_name(host_id: str) -> str:
    """The lease a host's daemon holds: ``host:<host_id>``."""
    return f"host:{host_id}"


@dataclass
class HostLease:
    """This daemon's host lease: who it is (``identity``, ``instance``) and the term it
    holds (``held``; None once lost or released)."""

    identity: HostIdentity
    instance: str  # this daemon start's UUID: the lease's holder
    keeper: LeaseKeeper = field(repr=False)

    @property
    def host_id(self) -> str:
        return self.identity.host_id

    @property
    def name(self) -> str:
        return self.keeper.name

    @property
    def held(self) -> HeldLease | None:
        """The lease as last taken or renewed: its ``term`` is this daemon's fencing
        token."""
        return self.keeper.held

    @property
    def term(self) -> int | None:
        held = self.keeper.held
        return None if held is None else held.term

    async def keep(self) -> None:
        """Renew until cancelled; ``LeaseLostError`` (naming the host id) when another
        daemon took the lease."""
        try:
            await self.keeper.keep()
        except LeaseLostError as exc:
            raise LeaseLostError(
                f"this daemon lost host_id {self.host_id}'s lease ({exc}): another daemon "
                "runs as this host; stopping (give each daemon its own [fleet] host_id)"
            ) from None

    async def release(self) -> None:
        """Let the lease lapse now (a clean exit): the next daemon of this host takes it
        without waiting.  A store that cannot be reached leaves it to expire."""
        try:
            await self.keeper.release()
        except StoreError as exc:
            _log.warning("the host lease %s was not released: %s", self.name, exc)


async def open_host_lease(
    store: Store,
    identity: HostIdentity,
    config: FleetConfig,
    *,
    clock: Clock,
    now: LeaseNow = database_now,
) -> HostLease:
    """Take ``identity``'s host lease on ``store`` (the lease's own connection), or raise
    ``StoreLockedError`` naming who holds it until when."""
    instance = str(uuid.uuid4())
    keeper = LeaseKeeper(
        store,
        host_lease_name(identity.host_id),
        instance,
        clock=clock,
        claim=identity.claim,
        ttl=config.lease_ttl,
        renew_every=config.lease_renew,
        now=now,
    )
    outcome = await keeper.acquire()
    if isinstance(outcome, LeaseHeld):
        row = outcome.row
        raise StoreLockedError(
            f"another daemon holds host_id {identity.host_id} (instance {row.holder}) until "
            f"{_when(row.expires_at)}; give this daemon its own [fleet] host_id"
        )
    if outcome.took_over:
        _log.info(
            "took over host_id %s's lease from this host's previous run (term %d)",
            identity.host_id,
            outcome.term,
        )
    return HostLease(identity, instance, keeper)


def _when(at: datetime) -> str:
    return at.isoformat(timespec="seconds")
