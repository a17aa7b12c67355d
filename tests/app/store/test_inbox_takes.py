"""Fleet mode: the inbox deliveries a host records, their takes, and the untaken ones a
re-bind on another host queues again for the PR's new worker, on both engines."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from comment_wake.registry import InboxSpec, Registry
from comment_wake.store import (
    delivered_to_inbox,
    prune_inbox_deliveries,
    record_taken,
    requeue_untaken,
    untaken,
)
from review_monitor import NOTICE_VERSION, Notice, NoticeItem, NoticePr, PrRef, notice_key
from review_monitor.store import SyncStore, readdressed
from review_monitor.testing import FixedClock

T0 = datetime(2026, 12, 4, 9, 0, tzinfo=UTC)
PR = PrRef("octo", "repo", 7)


def _notice(worker: str, item: str = "IC_1", pr: PrRef = PR) -> Notice:
    return Notice(
        version=NOTICE_VERSION,
        kind="comment-wake",
        key=notice_key(worker, pr, "comment-wake", (item,)),
        worker=worker,
        pr=NoticePr(host=pr.host, repo=pr.repo, number=pr.number, url="u", title="t"),
        items=(NoticeItem(item, 1, "u", "alice", "comment"),),
        text=f"alice said {item}",
        created_at=T0,
    )


def _delivered(store: SyncStore, notice: Notice, host_id: str = "h1") -> int:
    """Enqueue ``notice`` and mark it delivered into the inbox on ``host_id``."""
    (seq,) = store.enqueue([notice], at=T0)
    record = delivered_to_inbox(seq, notice, host_id=host_id, root=f"/inbox/{host_id}")
    store.mark_delivered(seq, at=T0, also=record)
    return seq


def _requeue(store: SyncStore, host_id: str = "h2", worker: str = "w2") -> list[int]:
    with store.write(at=T0) as tx:
        return requeue_untaken(tx, PR, host_id=host_id, worker=worker)


def test_a_host_lists_only_its_own_untaken_inbox_notices(any_store: SyncStore) -> None:
    mine = _delivered(any_store, _notice("w1"))
    _delivered(any_store, _notice("w2", pr=PrRef("octo", "repo", 8)), host_id="h2")
    assert [mine] == [d.seq for d in untaken(any_store, "h1")]


def test_a_take_recorded_leaves_the_untaken_list_and_is_recorded_once(
    any_store: SyncStore,
) -> None:
    seq = _delivered(any_store, _notice("w1"))
    first = record_taken(any_store, [seq], at=T0)
    again = record_taken(any_store, [seq], at=T0 + timedelta(seconds=5))
    assert (1, 0, ()) == (first, again, untaken(any_store, "h1"))


def test_a_rebind_elsewhere_queues_an_untaken_notice_for_the_new_worker(
    any_store: SyncStore,
) -> None:
    original = _notice("w1")
    _delivered(any_store, original)
    queued = _requeue(any_store)
    entries = any_store.entries()
    assert ([e.seq for e in entries], [readdressed(original, "w2")]) == (
        queued,
        [e.notice for e in entries],
    )


def test_a_taken_notice_is_not_queued_again_by_a_rebind_elsewhere(any_store: SyncStore) -> None:
    seq = _delivered(any_store, _notice("w1"))
    record_taken(any_store, [seq], at=T0)
    assert ([], ()) == (_requeue(any_store), any_store.entries())


def test_a_notice_is_queued_again_once_however_often_the_pr_is_bound(
    any_store: SyncStore,
) -> None:
    _delivered(any_store, _notice("w1"))
    first = _requeue(any_store)
    again = _requeue(any_store)
    assert (1, [], 1) == (len(first), again, len(any_store.entries()))


def test_a_notice_queued_again_elsewhere_is_no_longer_its_hosts_to_sync(
    any_store: SyncStore,
) -> None:
    _delivered(any_store, _notice("w1"))
    _requeue(any_store)
    assert () == untaken(any_store, "h1")


def test_a_bind_on_the_host_that_delivered_queues_nothing_again(any_store: SyncStore) -> None:
    _delivered(any_store, _notice("w1"))
    assert [] == _requeue(any_store, host_id="h1")


def test_only_the_rebound_prs_notices_are_queued_again(any_store: SyncStore) -> None:
    _delivered(any_store, _notice("w9", pr=PrRef("octo", "repo", 8)))
    assert [] == _requeue(any_store)


def test_a_delivery_goes_with_its_pruned_outbox_entry(any_store: SyncStore) -> None:
    _delivered(any_store, _notice("w1"))
    any_store.prune(before=T0 + timedelta(days=1))
    assert (1, ()) == (prune_inbox_deliveries(any_store, at=T0), untaken(any_store, "h1"))


def test_binding_a_pr_on_another_host_queues_its_untaken_inbox_notices_for_the_new_worker(
    any_store: SyncStore, tmp_path: Path
) -> None:
    clock = FixedClock(T0)
    one = Registry(any_store, inbox_root=tmp_path / "h1", clock=clock, host_id="h1")
    two = Registry(any_store, inbox_root=tmp_path / "h2", clock=clock, host_id="h2")
    one.add_orchestrator("o1", InboxSpec())
    one.bind("w1", PR, orchestrator="o1", publisher=InboxSpec())
    _delivered(any_store, _notice("w1"))
    one.unbind("w1")
    two.bind("w2", PR, orchestrator="o1", publisher=InboxSpec())
    assert [("w2", "IC_1")] == [(e.worker, e.notice.items[0].id) for e in any_store.entries()]


def test_binding_a_pr_on_a_single_hosts_store_queues_nothing_again(
    any_store: SyncStore, tmp_path: Path
) -> None:
    registry = Registry(any_store, inbox_root=tmp_path, clock=FixedClock(T0))
    registry.add_orchestrator("o1", InboxSpec())
    registry.bind("w1", PR, orchestrator="o1", publisher=InboxSpec())
    _delivered(any_store, _notice("w1"), host_id="local")
    registry.unbind("w1")
    registry.bind("w2", PR, orchestrator="o1", publisher=InboxSpec())
    assert () == any_store.entries()


def test_binding_the_same_worker_on_another_host_queues_its_untaken_inbox_notices_there(
    any_store: SyncStore, tmp_path: Path
) -> None:
    clock = FixedClock(T0)
    one = Registry(any_store, inbox_root=tmp_path / "h1", clock=clock, host_id="h1")
    two = Registry(any_store, inbox_root=tmp_path / "h2", clock=clock, host_id="h2")
    one.add_orchestrator("o1", InboxSpec())
    one.bind("w1", PR, orchestrator="o1", publisher=InboxSpec())
    original = _notice("w1")
    _delivered(any_store, original)
    two.bind("w1", PR, orchestrator="o1", publisher=InboxSpec())
    assert [readdressed(original, "w1").key] == [e.notice.key for e in any_store.entries()]
