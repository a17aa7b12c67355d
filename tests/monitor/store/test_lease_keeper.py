"""``LeaseKeeper.release``: a holder that stops cleanly lets its lease lapse at once, so
the next holder takes it without waiting for the expiry, under a higher term."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from review_monitor.store import HeldLease, LeaseKeeper, ReadTx, Store, SyncStore
from review_monitor.testing import FixedClock

pytestmark = pytest.mark.anyio

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def _keeper(store: SyncStore, holder: str, clock: FixedClock) -> LeaseKeeper:
    def now(_tx: ReadTx) -> datetime:
        return clock.now()

    return LeaseKeeper(Store(store), "host:x", holder, clock=clock, now=now)


async def test_a_released_lease_is_taken_by_the_next_holder_at_once(any_store: SyncStore) -> None:
    clock = FixedClock(T0)
    first = _keeper(any_store, "first", clock)
    await first.acquire()
    released = await first.release()
    taken = await _keeper(any_store, "second", clock).acquire()
    assert (True, None, 2) == (
        released,
        first.held,
        taken.term if isinstance(taken, HeldLease) else None,
    )


async def test_releasing_a_lease_never_taken_says_so(any_store: SyncStore) -> None:
    assert False is await _keeper(any_store, "first", FixedClock(T0)).release()
