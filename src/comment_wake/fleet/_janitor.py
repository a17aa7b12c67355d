"""The fleet's janitor: the notices of a host that is gone go to someone who can act.

One host per GitHub host holds ``janitor:<github_host>``.  A host whose lease has been
expired for more than three times the lease's life is lost; its recipients' pending
notices are then handed to the worker's orchestrator when that orchestrator's host is
live, or parked ``host-lost`` (``comment-wake unpark`` puts them back, addressed to
the PR's current worker: after a re-bind elsewhere, to the new worker).

The janitor judges only after it has renewed its own lease without a break for twice
the lease's life: a database outage or a laptop's sleep stalls every lease at once
(the janitor's too), and the hosts renew theirs within a renewal of the server's
return, long before the janitor may judge again.  So an outage hands off nothing.

A host that comes back (it takes its lease again at start) takes its ``host-lost``
notices back: those of the workers and orchestrators still bound on it, and those of the
PRs its workers have now (a re-bind there while the other host was lost).
"""

from __future__ import annotations

import logging
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Protocol

from comment_wake.delivery import handoff_notice
from review_monitor import Clock, StoreError
from review_monitor.store import (
    HeldLease,
    LeaseKeeper,
    LeaseLostError,
    LeaseNow,
    OutboxEntry,
    Store,
    SyncStore,
    database_now,
    read_leases,
)

from ._lease import host_lease_name

__all__ = ["HOST_LOST", "Janitor", "JanitorMove", "janitor_moves", "lost_hosts"]

_log = logging.getLogger("comment_wake.fleet")

HOST_LOST = "host-lost"
"""How a parked notice of a lost host begins its reason."""


def lost_hosts(
    expiries: Mapping[str, datetime], *, now: datetime, ttl: timedelta, held_since: datetime | None
) -> frozenset[str]:
    """The hosts whose lease expired more than ``3 x ttl`` ago, judged only by a janitor
    that has held its own lease without a break since ``held_since`` for ``2 x ttl``."""
    if held_since is None or now - held_since < 2 * ttl:
        return frozenset()
    return frozenset(h for h, expires in expiries.items() if expires + 3 * ttl <= now)


@dataclass(frozen=True)
class JanitorMove:
    """What becomes of one pending notice of a lost host: handed to ``orchestrator``, or
    parked (``orchestrator`` None)."""

    entry: OutboxEntry
    host_id: str
    orchestrator: str | None


def janitor_moves(
    pending: Collection[OutboxEntry],
    lost: Collection[str],
    *,
    host_of: Mapping[str, str | None],
    orchestrator_of: Mapping[str, str],
    live: Collection[str],
) -> list[JanitorMove]:
    """The moves for ``pending`` (the head of each recipient's queue and the rest): each
    entry whose recipient is bound on a lost host; handed to the worker's orchestrator
    when its host is live (never an orchestrator's own notice: it has nobody above)."""
    moves: list[JanitorMove] = []
    for entry in pending:
        host = host_of.get(entry.worker)
        if host is None or host not in lost:
            continue
        orchestrator = orchestrator_of.get(entry.worker)
        alive = orchestrator is not None and host_of.get(orchestrator) in live
        moves.append(JanitorMove(entry, host, orchestrator if alive else None))
    return moves


class Janitor:
    """Campaigns for ``janitor:<github_host>`` and, while it holds it, moves the notices
    of lost hosts at every renewal (``run``)."""

    def __init__(
        self,
        store: Store,
        leases: Store,
        registry: _Registry,
        *,
        github_host: str,
        holder: str,
        clock: Clock,
        ttl: timedelta,
        renew_every: timedelta,
        now: LeaseNow = database_now,
    ) -> None:
        self._store = store
        self._registry = registry
        self._clock = clock
        self._ttl = ttl
        self._renew = renew_every
        self._keeper = LeaseKeeper(
            leases,
            f"janitor:{github_host}",
            holder,
            clock=clock,
            claim=holder,
            ttl=ttl,
            renew_every=renew_every,
            now=now,
        )
        self._term: int | None = None
        self.held_since: datetime | None = None

    async def tick(self) -> list[JanitorMove]:
        """Take or renew the janitor's lease, and when it may judge, move what must move."""
        try:
            held = await self._hold()
        except (LeaseLostError, StoreError) as exc:
            self._term, self.held_since = None, None  # a break: judge again only later
            _log.warning("the janitor's lease: %s", exc)
            return []
        if held is None:
            return []
        expiries, pending = await self._store.call(_read, self._clock.now())
        now = self._clock.now()
        lost = lost_hosts(expiries, now=now, ttl=self._ttl, held_since=self.held_since)
        if not lost:
            return []
        live = [h for h, expires in expiries.items() if expires > now]
        host_of, orchestrator_of = self._registry.hosts_and_orchestrators()
        moves = janitor_moves(
            pending, lost, host_of=host_of, orchestrator_of=orchestrator_of, live=live
        )
        for move in moves:
            await self._store.call(_move, move, _why(move, expiries), now)
            _log.warning(
                "notice %s for %s on lost host %s: %s",
                move.entry.notice.key[:12],
                move.entry.worker,
                move.host_id,
                f"handed off to {move.orchestrator}" if move.orchestrator else "parked",
            )
        return moves

    async def _hold(self) -> HeldLease | None:
        if self._keeper.held is None:
            outcome = await self._keeper.acquire()
            held = outcome if isinstance(outcome, HeldLease) else None
        else:
            held = await self._keeper.renew()
        if held is not None and held.term != self._term:
            self._term, self.held_since = held.term, self._clock.now()
        return held

    async def run(self) -> None:
        """Tick at every renewal until cancelled; a store fault (the server away) is a
        break in the janitor's hold: it judges again only two lives after it is back."""
        while True:
            try:
                await self.tick()
            except StoreError as exc:
                self._term, self.held_since = None, None  # the next hold starts afresh
                _log.warning("the janitor's pass failed: %s", exc)
            await self._clock.sleep_until(self._clock.now() + self._renew)


def _why(move: JanitorMove, expiries: Mapping[str, datetime]) -> str:
    at = expiries[move.host_id].strftime("%Y-%m-%d %H:%M:%SZ")
    return f"{HOST_LOST}: host {move.host_id}'s lease lapsed at {at}"


def _read(db: SyncStore, now: datetime) -> tuple[dict[str, datetime], tuple[OutboxEntry, ...]]:
    """Every host lease's expiry, and the pending notices."""
    with db.read() as tx:
        leases = read_leases(tx)
    prefix = host_lease_name("")
    expiries = {x.name[len(prefix) :]: x.expires_at for x in leases if x.name.startswith(prefix)}
    return expiries, db.entries()


def _move(db: SyncStore, move: JanitorMove, why: str, now: datetime) -> None:
    if move.orchestrator is None:
        db.park(move.entry.seq, at=now, detail=why)
        return
    handoff = handoff_notice(move.entry.notice, move.orchestrator, why, at=now)
    db.hand_off(move.entry.seq, handoff, at=now, detail=why)


class _Registry(Protocol):
    def hosts_and_orchestrators(self) -> tuple[dict[str, str | None], dict[str, str]]:
        """Each worker's and orchestrator's host, and each worker's orchestrator."""
        ...
