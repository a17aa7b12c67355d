"""Leases (fleet mode's roles), on both engines: taken when free, expired, ours, or the
same claim's; renewed only under the holder's term; released with the term kept."""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from review_monitor.store import (
    HeldLease,
    LeaseHeld,
    SyncStore,
    acquire_lease,
    read_lease,
    release_lease,
    renew_lease,
)

T0 = datetime(2026, 12, 4, 9, 0, tzinfo=UTC)
TTL = timedelta(seconds=30)


def _acquire(
    store: SyncStore, holder: str, now: datetime, claim: str = ""
) -> HeldLease | LeaseHeld:
    with store.write(at=now) as tx:
        return acquire_lease(tx, "host:h1", holder, now=now, ttl=TTL, claim=claim)


def _held(outcome: HeldLease | LeaseHeld) -> HeldLease:
    assert isinstance(outcome, HeldLease), outcome
    return outcome


def test_a_free_lease_is_taken_at_term_one(any_store: SyncStore) -> None:
    lease = _held(_acquire(any_store, "a", T0))
    assert (1, T0 + TTL, False) == (lease.term, lease.expires_at, lease.took_over)


def test_a_live_lease_of_another_holder_is_refused_with_its_holder(any_store: SyncStore) -> None:
    _held(_acquire(any_store, "a", T0))
    outcome = _acquire(any_store, "b", T0 + timedelta(seconds=29))
    assert isinstance(outcome, LeaseHeld)
    assert ("a", T0 + TTL) == (outcome.row.holder, outcome.row.expires_at)


def test_an_expired_lease_is_taken_with_the_next_term(any_store: SyncStore) -> None:
    _held(_acquire(any_store, "a", T0))
    lease = _held(_acquire(any_store, "b", T0 + TTL))
    assert ("b", 2, False) == (lease.holder, lease.term, lease.took_over)


def test_the_same_claim_takes_a_live_lease_over_at_once(any_store: SyncStore) -> None:
    _held(_acquire(any_store, "a", T0, claim="dir-1"))
    lease = _held(_acquire(any_store, "a-restarted", T0 + timedelta(seconds=1), claim="dir-1"))
    assert (2, True) == (lease.term, lease.took_over)


def test_another_claim_does_not_take_a_live_lease(any_store: SyncStore) -> None:
    _held(_acquire(any_store, "a", T0, claim="dir-1"))
    assert isinstance(_acquire(any_store, "b", T0, claim="dir-2"), LeaseHeld)


def test_renewing_extends_the_lease_under_the_same_term(any_store: SyncStore) -> None:
    lease = _held(_acquire(any_store, "a", T0))
    later = T0 + timedelta(seconds=10)
    with any_store.write(at=later) as tx:
        renewed = renew_lease(tx, lease, now=later, ttl=TTL)
    assert renewed is not None
    assert (1, later + TTL) == (renewed.term, renewed.expires_at)


def test_a_deposed_holder_cannot_renew(any_store: SyncStore) -> None:
    old = _held(_acquire(any_store, "a", T0))
    _held(_acquire(any_store, "b", T0 + TTL))
    at = T0 + TTL + timedelta(seconds=1)
    with any_store.write(at=at) as tx:
        assert renew_lease(tx, old, now=at, ttl=TTL) is None
    with any_store.read() as tx:
        row = read_lease(tx, "host:h1")
    assert row is not None
    assert ("b", 2) == (row.holder, row.term)


def test_an_expired_lease_is_not_renewed_even_if_nobody_took_it(any_store: SyncStore) -> None:
    lease = _held(_acquire(any_store, "a", T0))
    with any_store.write(at=T0 + TTL) as tx:
        assert renew_lease(tx, lease, now=T0 + TTL, ttl=TTL) is None


def test_a_released_lease_is_taken_at_once_with_a_higher_term(any_store: SyncStore) -> None:
    lease = _held(_acquire(any_store, "a", T0))
    with any_store.write(at=T0) as tx:
        assert release_lease(tx, lease, now=T0)
    assert 2 == _held(_acquire(any_store, "b", T0)).term


def test_holders_racing_for_a_free_lease_give_it_to_one(
    any_store_opener: Callable[[], SyncStore],
) -> None:
    holders = 8
    stores = [any_store_opener() for _ in range(holders)]
    won: list[str] = []
    start = threading.Barrier(holders)

    def campaign(n: int) -> None:
        start.wait()
        if isinstance(_acquire(stores[n], f"h{n}", T0), HeldLease):
            won.append(f"h{n}")

    threads = [threading.Thread(target=campaign, args=(n,)) for n in range(holders)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert 1 == len(won)
