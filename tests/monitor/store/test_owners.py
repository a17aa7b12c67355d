"""PR owners and the fence on a mark's commit, on both engines: a new owner moves the
epoch on, an epoch never goes back, and a commit under a stale owner or epoch writes
nothing."""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import datetime

import pytest

from review_monitor import NotOwnerError, PrRef
from review_monitor.store import (
    Fence,
    PrOwner,
    SyncStore,
    claim_pr,
    read_owner,
    release_pr,
)

from .conftest import MakeNotice


def _claim(store: SyncStore, pr: PrRef, t0: datetime, host: str, worker: str) -> int:
    with store.write(at=t0) as tx:
        return claim_pr(tx, pr, host, worker)


def _owner(store: SyncStore, pr: PrRef) -> PrOwner | None:
    with store.read() as tx:
        return read_owner(tx, pr)


def test_a_first_claim_owns_the_pr_at_epoch_one(store: SyncStore, pr: PrRef, t0: datetime) -> None:
    _claim(store, pr, t0, "h1", "w1")
    assert PrOwner("h1", "w1", 1) == _owner(store, pr)


def test_claiming_again_keeps_the_epoch(store: SyncStore, pr: PrRef, t0: datetime) -> None:
    _claim(store, pr, t0, "h1", "w1")
    assert 1 == _claim(store, pr, t0, "h1", "w1")


def test_a_claim_under_another_spelling_is_the_same_pr(
    store: SyncStore, pr: PrRef, t0: datetime
) -> None:
    _claim(store, pr, t0, "h1", "w1")
    loud = PrRef(pr.owner.upper(), pr.name.upper(), pr.number, pr.host.upper())
    assert 1 == _claim(store, loud, t0, "h1", "w1")


def test_a_rebind_on_another_host_moves_the_epoch_on(
    store: SyncStore, pr: PrRef, t0: datetime
) -> None:
    _claim(store, pr, t0, "h1", "w1")
    assert 2 == _claim(store, pr, t0, "h2", "w2")


def test_a_released_pr_stays_with_its_host_at_a_higher_epoch(
    store: SyncStore, pr: PrRef, t0: datetime
) -> None:
    _claim(store, pr, t0, "h1", "w1")
    with store.write(at=t0) as tx:
        release_pr(tx, pr, "w1")
    assert (PrOwner("h1", "", 2), 3) == (_owner(store, pr), _claim(store, pr, t0, "h1", "w1"))


def test_another_workers_release_changes_nothing(store: SyncStore, pr: PrRef, t0: datetime) -> None:
    _claim(store, pr, t0, "h1", "w1")
    with store.write(at=t0) as tx:
        release_pr(tx, pr, "w9")
    assert PrOwner("h1", "w1", 1) == _owner(store, pr)


def test_a_commit_by_the_owner_at_its_epoch_writes_its_mark(
    store: SyncStore, pr: PrRef, t0: datetime, make_notice: MakeNotice
) -> None:
    _claim(store, pr, t0, "h1", "w1")
    seqs = store.commit(
        pr, "wake", mark=(1, b"m"), notices=[make_notice()], at=t0, fence=Fence("h1", 1)
    )
    assert (1, b"m") == (len(seqs), store.load_mark(pr, "wake").blob)  # type: ignore[union-attr]


@pytest.mark.parametrize("fence", [Fence("h1", 1), Fence("h2", 1)])
def test_a_commit_after_a_rebind_elsewhere_writes_nothing(
    store: SyncStore, pr: PrRef, t0: datetime, make_notice: MakeNotice, fence: Fence
) -> None:
    _claim(store, pr, t0, "h1", "w1")
    _claim(store, pr, t0, "h2", "w2")  # epoch 2 on h2
    with pytest.raises(NotOwnerError, match="nothing was written"):
        store.commit(pr, "wake", mark=(1, b"m"), notices=[make_notice()], at=t0, fence=fence)
    assert (None, ()) == (store.load_mark(pr, "wake"), store.entries())


def test_hosts_claiming_one_pr_at_once_end_with_one_owner_per_epoch(
    any_store_opener: Callable[[], SyncStore], pr: PrRef, t0: datetime
) -> None:
    hosts = 6
    stores = [any_store_opener() for _ in range(hosts)]
    start = threading.Barrier(hosts)
    epochs: list[int] = []

    def claim(n: int) -> None:
        start.wait()
        epochs.append(_claim(stores[n], pr, t0, f"h{n}", f"w{n}"))

    threads = [threading.Thread(target=claim, args=(n,)) for n in range(hosts)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    owner = _owner(stores[0], pr)
    assert owner is not None
    assert (list(range(1, hosts + 1)), hosts) == (sorted(epochs), owner.epoch)
