"""Fleet mode's monitor roles: one reader per GitHub identity, every host an owner.

- The **reader** holds the lease ``reader:<github_host>:<login>``.  It runs today's
  poller (sweep, badges, prefetch, governor) over the watched PRs of the fleet's live
  hosts (``FleetWatches``), and its one listener, ``StreamShipper``, writes each item to
  the store's observation stream under the lease's term.
- Every host is an **owner**: ``StreamFollower`` reads the stream's items of the PRs it
  owns after its cursor (kept in the store), publishes them on the host's own
  observation source and hands them to its listeners (the monitor's notices, the comment
  wake), which then make only the reads their decisions need: the bodies of new items
  come in the observation, read by the reader in one query a batch.  A PR it owns that the
  reader cannot read (the reader's NOT_FOUND is the stream's last word on it) it polls
  itself, with its own token, as before fleet mode (``UnreadWatches``, ``Relay``).

So a fleet sends one sweep and one set of badge queries per identity, whatever the
number of hosts.  docs/fleet.md has the whole story.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

import anyio
import msgspec

from ._clock import Clock
from ._lease_keeper import LeaseNow
from ._listener import Watch
from ._model import ItemDetail, PrRef
from ._observations import Dispatcher, InMemoryObservations, Observation, Observed, RoundDone
from ._store._async import Store
from ._store._db import ReadTx, store_time
from ._store._faults import describe_fault
from ._store._leases import database_now
from ._store._permission_cache import put_permission, read_permission
from ._store._stream import follow_stream, ship, unread_watches
from ._store._sync import SyncStore
from ._wait import sleep_until_or

__all__ = [
    "FleetMode",
    "FleetWatches",
    "Relay",
    "StorePermissions",
    "StreamFollower",
    "StreamShipper",
    "UnreadWatches",
    "live_watches",
]

_log = logging.getLogger("review_monitor.fleet")

SHIPPER_NAME = "fleet-stream"


@dataclass(frozen=True)
class FleetMode:
    """What a monitor needs to run in a fleet."""

    host_id: str
    holder: str  # this process's instance id (its leases' holder)
    lease_store: Store  # the lease connection: a work transaction never delays a renewal
    lease_ttl: timedelta = timedelta(seconds=30)
    lease_renew: timedelta = timedelta(seconds=10)
    follow_every: timedelta = timedelta(seconds=1)
    lease_now: LeaseNow = database_now


def live_watches(tx: ReadTx, now: datetime) -> tuple[Watch, ...]:
    """Every watch of a PR whose owner's host holds a live lease, as of ``tx``: the PRs
    the reader polls (a stopped host's PRs stop being read)."""
    rows = tx.execute(
        "SELECT w.thread_id, w.host, w.owner, w.name, w.number FROM watches w "
        "JOIN pr_owners o ON o.pr_key = w.pr_key "
        "JOIN leases l ON l.name = 'host:' || o.host_id "
        "WHERE w.tool = 'pr_review_monitor' AND l.expires_at > ?",
        (store_time(now),),
    ).fetchall()
    out = [Watch(r[0], PrRef(host=r[1], owner=r[2], name=r[3], number=r[4])) for r in rows]
    return tuple(sorted(out, key=lambda w: (w.pr, w.thread_id)))


class UnreadWatches:
    """The owner's own watch list (``WatchSource``): its PRs the reader cannot read, as
    the last ``refresh`` found them (one store read an interval, whether or not a round
    follows)."""

    def __init__(self, store: Store, identity: str, host_id: str) -> None:
        self._store = store
        self._identity = identity
        self._host_id = host_id
        self._found: tuple[Watch, ...] = ()

    def _read(self, db: SyncStore) -> tuple[Watch, ...]:
        with db.read() as tx:
            return unread_watches(tx, self._identity, self._host_id)

    async def refresh(self) -> tuple[Watch, ...]:
        """Read the list again; what it holds now."""
        self._found = await self._store.call(self._read)
        return self._found

    async def watches(self) -> tuple[Watch, ...]:
        return self._found


class Relay:
    """The owner's own poller's one listener: at each of its round's ends, what it
    published is handed to the host's listeners by the host's dispatcher (the one the
    stream's follower uses, so every item reaches each listener once)."""

    name = "relay"

    def __init__(self, dispatcher: Dispatcher) -> None:
        self._dispatcher = dispatcher

    async def observe(self, item: Observed, now: datetime) -> None:
        if isinstance(item, RoundDone):
            await self._dispatcher.deliver()


class FleetWatches:
    """The reader's watch list (``WatchSource``): one store read a round, on the lease
    clock, so a host whose lease lapsed drops out at the next round."""

    def __init__(self, store: Store, host: str, now: LeaseNow) -> None:
        self._store = store
        self._host = host
        self._now = now

    def _read(self, db: SyncStore) -> tuple[Watch, ...]:
        with db.read() as tx:
            return live_watches(tx, self._now(tx))

    async def watches(self) -> tuple[Watch, ...]:
        found = await self._store.call(self._read)
        return tuple(w for w in found if w.pr.host == self._host)


class StorePermissions:
    """The store's permission cache as ``SharedPermissions``: one lookup per reviewer
    for the whole fleet."""

    def __init__(self, store: Store, clock: Clock) -> None:
        self._store = store
        self._clock = clock

    def _get(
        self, db: SyncStore, host: str, repo: str, login: str, since: datetime
    ) -> tuple[str, str | None, datetime] | None:
        with db.read() as tx:
            return read_permission(tx, host, repo, login, since=since)

    def _put(
        self,
        db: SyncStore,
        host: str,
        repo: str,
        login: str,
        permission: str,
        role_name: str | None,
        checked_at: datetime,
    ) -> None:
        with db.write(at=self._clock.now()) as tx:
            put_permission(tx, host, repo, login, permission, role_name, checked_at)

    async def get(
        self, host: str, repo: str, login: str, *, since: datetime
    ) -> tuple[str, str | None, datetime] | None:
        return await self._store.call(self._get, host, repo, login, since)

    async def put(
        self,
        host: str,
        repo: str,
        login: str,
        permission: str,
        role_name: str | None,
        checked_at: datetime,
    ) -> None:
        await self._store.call(self._put, host, repo, login, permission, role_name, checked_at)


class StreamShipper:
    """The reader's one listener: each item it is handed goes to the store's stream (an
    observation with the failing checks the reader read in its batch's one query, and
    the bodies of its new items the reader read in its batch's one detail query:
    ``bodies``), under the reader lease's term.  An owner then reads no body the reader
    read: one detail query a batch for the fleet, where owners reading their own would
    send one each.  A write the store refuses (another reader took the lease) sets
    ``deposed``."""

    name = SHIPPER_NAME
    # Repeats too (the safety net's reads that found nothing new): a reader that takes
    # over seeds its sweep book from the stream, and would read early every PR whose
    # last full badge it did not see.
    keeps_repeats = True

    def __init__(
        self,
        store: Store,
        identity: str,
        holder: str,
        term: Callable[[], int],
        bodies: Callable[[Observation], dict[str, ItemDetail] | None] | None = None,
    ) -> None:
        self._store = store
        self._identity = identity
        self._holder = holder
        self._term = term
        self._bodies = bodies
        self.deposed = anyio.Event()

    def _ship(self, db: SyncStore, item: Observed, now: datetime) -> bool:
        with db.write(at=now) as tx:
            return ship(tx, self._identity, self._holder, self._term(), [item])

    async def observe(self, item: Observed, now: datetime) -> None:
        if isinstance(item, Observation) and self._bodies is not None:
            found = self._bodies(item)
            if found:
                item = msgspec.structs.replace(item, bodies=found)
        if not await self._store.call(self._ship, item, now):
            self.deposed.set()


class StreamFollower:
    """An owner's side of the stream: the items of the PRs this host owns, after its
    cursor, published on ``observations`` and handed to its listeners."""

    def __init__(
        self,
        store: Store,
        identity: str,
        host_id: str,
        observations: InMemoryObservations,
        dispatcher: Dispatcher,
        clock: Clock,
        *,
        every: timedelta,
        offer_bodies: Callable[[dict[str, ItemDetail]], None] | None = None,
    ) -> None:
        self._store = store
        self._identity = identity
        self._host_id = host_id
        self._observations = observations
        self._dispatcher = dispatcher
        self._clock = clock
        self._every = every
        self._offer = offer_bodies
        self._cursor: int | None = None
        self.poked = anyio.Event()

    def _read(self, db: SyncStore, after: int | None) -> tuple[int, list[Observed]]:
        with db.read() as tx:
            cursor = read_cursor(tx, self._host_id, self._identity) if after is None else after
            return cursor, follow_stream(tx, self._identity, cursor, self._host_id)

    def _save(self, db: SyncStore, seq: int, now: datetime) -> None:
        with db.write(at=now) as tx:
            tx.execute(
                "INSERT INTO stream_cursors (host_id, identity, seq, updated_at) "
                "VALUES (?, ?, ?, ?) ON CONFLICT (host_id, identity) DO UPDATE SET "
                "seq = excluded.seq, updated_at = excluded.updated_at",
                (self._host_id, self._identity, seq, tx.stamp),
            )

    async def follow_once(self) -> int:
        """Hand out what the stream holds after the cursor; how many items."""
        cursor, items = await self._store.call(self._read, self._cursor)
        self._cursor = cursor
        if not items:
            return 0
        for item in items:
            if isinstance(item, Observation):
                # A repeat to this host only if this host's source holds the same: the
                # stream keeps each PR's latest item, so a repeat may have replaced the
                # observation this host missed (it was down), which it must be told.
                latest = self._observations.latest(item.pr)
                item = msgspec.structs.replace(item, repeat=item.repeats(latest))
                if item.bodies and self._offer is not None:
                    self._offer(item.bodies)  # the listeners' body reads find them
            self._observations.publish(item)
        await self._dispatcher.deliver()
        self._cursor = items[-1].seq
        await self._store.call(self._save, self._cursor, self._clock.now())
        return len(items)

    async def run(self) -> None:
        """Follow until cancelled: at every ``every``, or at once when poked."""
        while True:
            try:
                while await self.follow_once():
                    pass
            except Exception as exc:  # a store fault: the next tick tries again
                _log.warning("following the observation stream failed: %s", describe_fault(exc))
            self.poked = anyio.Event()
            await sleep_until_or(self._clock, self._clock.now() + self._every, self.poked)


def read_cursor(tx: ReadTx, host_id: str, identity: str) -> int:
    """The last stream seq ``host_id`` handed out for ``identity`` (0: none)."""
    row = tx.execute(
        "SELECT seq FROM stream_cursors WHERE host_id = ? AND identity = ?", (host_id, identity)
    ).fetchone()
    return 0 if row is None else int(row[0])
