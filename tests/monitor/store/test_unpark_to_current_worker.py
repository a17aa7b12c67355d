"""``unpark(..., to_current_worker=True)``: a parked notice goes to its PR's current worker
(``pr_owners``), on both engines; a worker's own notices come back to it as before."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta

from review_monitor import Notice, PrRef
from review_monitor.store import SyncStore, claim_pr, readdressed, release_pr

MakeNotice = Callable[..., Notice]
S = timedelta(seconds=1)


def _parked(store: SyncStore, notice: Notice, t0: datetime, why: str = "host-lost: h1") -> int:
    (seq,) = store.enqueue([notice], at=t0)
    store.park(seq, at=t0, detail=why)
    return seq


def _bound(store: SyncStore, pr: PrRef, host_id: str, worker: str, t0: datetime) -> None:
    with store.write(at=t0) as tx:
        claim_pr(tx, pr, host_id, worker)


def _pending(store: SyncStore) -> list[tuple[str, str]]:
    return [(e.worker, e.notice.key) for e in store.entries()]


def test_a_notice_parked_for_a_worker_whose_pr_moved_goes_to_the_prs_worker_now(
    store: SyncStore, make_notice: MakeNotice, pr: PrRef, t0: datetime
) -> None:
    notice = make_notice("w1")
    _parked(store, notice, t0)
    _bound(store, pr, "h2", "w2", t0)
    count = store.unpark("w1", at=t0 + S, to_current_worker=True)
    assert (1, [("w2", readdressed(notice, "w2").key)]) == (count, _pending(store))


def test_the_prs_worker_now_takes_the_notices_parked_for_an_earlier_worker(
    store: SyncStore, make_notice: MakeNotice, pr: PrRef, t0: datetime
) -> None:
    notice = make_notice("w1")
    _parked(store, notice, t0)
    _bound(store, pr, "h2", "w2", t0)
    count = store.unpark("w2", at=t0 + S, to_current_worker=True)
    assert (1, [("w2", readdressed(notice, "w2").key)]) == (count, _pending(store))


def test_a_notice_readdressed_leaves_its_parked_entry_handed_off_to_the_new_one(
    store: SyncStore, make_notice: MakeNotice, pr: PrRef, t0: datetime
) -> None:
    seq = _parked(store, make_notice("w1"), t0)
    _bound(store, pr, "h2", "w2", t0)
    store.unpark("w1", at=t0 + S, to_current_worker=True)
    old = store.entry(seq)
    assert old is not None
    assert ("handed-off", [e.seq for e in store.entries()]) == (old.status, [old.routed_to])


def test_a_workers_own_parked_notice_comes_back_to_it_while_its_pr_is_its_own(
    store: SyncStore, make_notice: MakeNotice, pr: PrRef, t0: datetime
) -> None:
    notice = make_notice("w1")
    _parked(store, notice, t0)
    _bound(store, pr, "h1", "w1", t0)
    count = store.unpark("w1", at=t0 + S, to_current_worker=True)
    assert (1, [("w1", notice.key)]) == (count, _pending(store))


def test_a_notice_of_a_pr_nobody_has_now_comes_back_to_its_own_worker(
    store: SyncStore, make_notice: MakeNotice, pr: PrRef, t0: datetime
) -> None:
    notice = make_notice("w1")
    _parked(store, notice, t0)
    _bound(store, pr, "h1", "w1", t0)
    with store.write(at=t0) as tx:
        release_pr(tx, pr, "w1")
    store.unpark("w1", at=t0 + S, to_current_worker=True)
    assert [("w1", notice.key)] == _pending(store)


def test_a_staying_kind_stays_with_whom_it_was_for(
    store: SyncStore, make_notice: MakeNotice, pr: PrRef, t0: datetime
) -> None:
    handoff = make_notice("o1", kind="handoff")
    _parked(store, handoff, t0)
    _bound(store, pr, "h2", "w2", t0)
    store.unpark("o1", at=t0 + S, to_current_worker=True, staying={"handoff"})
    store.unpark("w2", at=t0 + S, to_current_worker=True, staying={"handoff"})
    assert [("o1", handoff.key)] == _pending(store)


def test_another_workers_notice_of_another_pr_stays_parked(
    store: SyncStore, make_notice: MakeNotice, pr: PrRef, t0: datetime
) -> None:
    _parked(store, make_notice("w9", pr=PrRef("octo-org", "other", 3)), t0)
    _bound(store, pr, "h2", "w2", t0)
    assert (0, []) == (store.unpark("w2", at=t0 + S, to_current_worker=True), _pending(store))


def test_a_host_back_takes_only_its_host_lost_notices_to_the_prs_worker(
    store: SyncStore, make_notice: MakeNotice, pr: PrRef, t0: datetime
) -> None:
    lost = make_notice("w1", "a")
    _parked(store, lost, t0)
    _parked(store, make_notice("w1", "b"), t0, why="refused: bad command")
    _bound(store, pr, "h2", "w2", t0)
    store.unpark("w2", at=t0 + S, reason="host-lost", to_current_worker=True)
    assert [("w2", readdressed(lost, "w2").key)] == _pending(store)
