"""The outbox: the transactional commit and what the delivery loop needs."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from datetime import datetime, timedelta

import msgspec
import pytest

from review_monitor import Notice, PrRef
from review_monitor._errors import StoreError
from review_monitor.store import Mark, SyncStore, WriteTx

MakeNotice = Callable[..., Notice]
S = timedelta(seconds=1)


def test_commit_writes_the_mark_and_enqueues_the_notices_together(
    store: SyncStore, make_notice: MakeNotice, pr: PrRef, t0: datetime
) -> None:
    n = make_notice()
    seqs = store.commit(pr, "notices", mark=(1, b"m1"), notices=[n], at=t0)
    assert (Mark(1, b"m1"), [n]) == (
        store.load_mark(pr, "notices"),
        [e.notice for e in store.entries() if e.seq in seqs],
    )


def test_a_failing_commit_moves_neither_the_mark_nor_the_outbox(
    store: SyncStore, make_notice: MakeNotice, pr: PrRef, t0: datetime
) -> None:
    store.commit(pr, "notices", mark=(1, b"old"), at=t0)
    good = make_notice(item="IC_1")
    base = make_notice(item="IC_2")
    bad = msgspec.structs.replace(base, pr=msgspec.structs.replace(base.pr, repo="no-slash"))
    with pytest.raises(ValueError, match="owner/name"):
        store.commit(pr, "notices", mark=(2, b"new"), notices=[good, bad], at=t0)
    assert (Mark(1, b"old"), ()) == (store.load_mark(pr, "notices"), store.entries())


def _note(key: str) -> Callable[[WriteTx], object]:
    """An application's write: a row in the test's own ``notes`` part."""
    return lambda tx: tx.execute("INSERT INTO notes VALUES (?, ?)", (key, tx.stamp))


def _notes(store: SyncStore) -> list[str]:
    with store.read() as tx:
        return [r[0] for r in tx.execute("SELECT k FROM notes ORDER BY k")]


def test_a_commit_writes_the_applications_rows_with_the_mark(
    app_store: SyncStore, pr: PrRef, t0: datetime
) -> None:
    app_store.commit(pr, "l", mark=(1, b"m"), also=_note("k"), at=t0)
    assert (Mark(1, b"m"), ["k"]) == (app_store.load_mark(pr, "l"), _notes(app_store))


def test_a_failing_commit_writes_none_of_the_applications_rows(
    app_store: SyncStore, make_notice: MakeNotice, pr: PrRef, t0: datetime
) -> None:
    base = make_notice()
    bad = msgspec.structs.replace(base, pr=msgspec.structs.replace(base.pr, repo="no-slash"))
    with pytest.raises(ValueError, match="owner/name"):
        app_store.commit(pr, "l", mark=(1, b"m"), notices=[bad], also=_note("k"), at=t0)
    assert (None, []) == (app_store.load_mark(pr, "l"), _notes(app_store))


def test_marking_delivered_writes_the_applications_rows_with_it(
    app_store: SyncStore, make_notice: MakeNotice, t0: datetime
) -> None:
    [seq] = app_store.enqueue([make_notice()], at=t0)
    app_store.mark_delivered(seq, at=t0, also=_note("k"))
    entry = app_store.entry(seq)
    assert ("delivered", ["k"]) == (entry.status if entry else None, _notes(app_store))


def test_a_failing_application_write_leaves_the_entry_pending(
    app_store: SyncStore, make_notice: MakeNotice, t0: datetime
) -> None:
    [seq] = app_store.enqueue([make_notice()], at=t0)
    app_store.mark_delivered(seq, at=t0, also=_note("k"))
    [other] = app_store.enqueue([make_notice(item="IC_2")], at=t0)
    with pytest.raises(sqlite3.IntegrityError):
        app_store.mark_delivered(other, at=t0, also=_note("k"))  # the key is taken
    entry = app_store.entry(other)
    assert (("pending", 0), ["k"]) == (
        (entry.status, entry.attempts) if entry else None,
        _notes(app_store),
    )


def test_enqueueing_a_key_already_in_the_outbox_is_a_no_op(
    store: SyncStore, make_notice: MakeNotice, pr: PrRef, t0: datetime
) -> None:
    store.commit(pr, "l", mark=None, notices=[make_notice()], at=t0)
    again = store.commit(pr, "l", mark=None, notices=[make_notice(text="other")], at=t0)
    assert ([], ["hello"]) == (again, [e.notice.text for e in store.entries()])


def test_marks_are_kept_per_pr_and_listener(store: SyncStore, pr: PrRef, t0: datetime) -> None:
    other = PrRef(owner="octo-org", name="octo-repo", number=13)
    store.commit(pr, "a", mark=(1, b"a12"), at=t0)
    store.commit(pr, "b", mark=(3, b"b12"), at=t0)
    store.commit(other, "a", mark=(1, b"a13"), at=t0)
    store.commit(pr, "a", mark=(2, b"a12v2"), at=t0)
    assert [Mark(2, b"a12v2"), Mark(3, b"b12"), Mark(1, b"a13"), None] == [
        store.load_mark(pr, "a"),
        store.load_mark(pr, "b"),
        store.load_mark(other, "a"),
        store.load_mark(other, "b"),
    ]


def test_due_gives_the_head_of_each_workers_queue_in_order(
    store: SyncStore, make_notice: MakeNotice, t0: datetime
) -> None:
    store.enqueue([make_notice("w1", "a"), make_notice("w2", "b")], at=t0)
    store.enqueue([make_notice("w1", "c")], at=t0)
    assert [("w1", "a"), ("w2", "b")] == [(e.worker, e.notice.items[0].id) for e in store.due(t0)]


def test_a_head_waiting_for_its_retry_holds_its_workers_queue(
    store: SyncStore, make_notice: MakeNotice, t0: datetime
) -> None:
    head, _ = store.enqueue([make_notice("w1", "a"), make_notice("w1", "b")], at=t0)
    store.record_attempt(head, at=t0, outcome="busy", detail="mid-turn", retry_at=t0 + 30 * S)
    assert ((), t0 + 30 * S, [head]) == (
        store.due(t0 + 29 * S),
        store.next_due_at(),
        [e.seq for e in store.due(t0 + 30 * S)],
    )


def test_an_attempt_is_logged_with_its_outcome_and_counted(
    store: SyncStore, make_notice: MakeNotice, t0: datetime
) -> None:
    (seq,) = store.enqueue([make_notice()], at=t0)
    store.record_attempt(seq, at=t0, outcome="busy", detail="mid-turn", retry_at=t0 + S)
    store.record_attempt(seq, at=t0 + S, outcome="error", detail="exit 3", retry_at=t0 + 3 * S)
    entry = store.entry(seq)
    assert entry is not None
    assert (2, "error", "exit 3", ["busy", "error"]) == (
        entry.attempts,
        entry.last_outcome,
        entry.last_detail,
        [a.outcome for a in store.attempts(seq)],
    )


def test_a_delivered_entry_records_its_session_and_leaves_the_queue(
    store: SyncStore, make_notice: MakeNotice, t0: datetime
) -> None:
    first, second = store.enqueue([make_notice("w1", "a"), make_notice("w1", "b")], at=t0)
    store.mark_delivered(first, at=t0 + S, session_id="sess-2")
    entry = store.entry(first)
    assert entry is not None
    assert ("delivered", t0 + S, "sess-2", [second]) == (
        entry.status,
        entry.delivered_at,
        entry.session_id,
        [e.seq for e in store.due(t0 + S)],
    )


def test_a_refused_entry_is_parked_until_unparked(
    store: SyncStore, make_notice: MakeNotice, t0: datetime
) -> None:
    first, second = store.enqueue([make_notice("w1", "a"), make_notice("w1", "b")], at=t0)
    store.park(first, at=t0, detail="no such command")
    parked = [e.seq for e in store.entries(statuses=("parked",))]
    heads_while_parked = [e.seq for e in store.due(t0)]
    assert 1 == store.unpark("w1", at=t0 + S)
    assert ([first], [second], [first]) == (
        parked,
        heads_while_parked,
        [e.seq for e in store.due(t0 + S)],
    )


def test_a_gone_worker_hands_its_notice_to_the_orchestrator_in_one_step(
    store: SyncStore, make_notice: MakeNotice, t0: datetime
) -> None:
    (seq,) = store.enqueue([make_notice("w1", "a")], at=t0)
    handoff = make_notice("orchestrator", "a", kind="handoff")
    new = store.hand_off(seq, handoff, at=t0, detail="session ended")
    old, routed = store.entry(seq), store.entry(new)
    assert old is not None
    assert routed is not None
    assert ("handed-off", new, "gone", "orchestrator", "handoff") == (
        old.status,
        old.routed_to,
        old.last_outcome,
        routed.worker,
        routed.notice.kind,
    )


def test_a_hand_off_whose_key_is_already_enqueued_routes_to_that_entry(
    store: SyncStore, make_notice: MakeNotice, t0: datetime
) -> None:
    first, second = store.enqueue([make_notice("w1", "a"), make_notice("w2", "a")], at=t0)
    handoff = make_notice("orchestrator", "a", kind="handoff")
    new = store.hand_off(first, handoff, at=t0, detail="session ended")
    again = store.hand_off(second, handoff, at=t0, detail="session ended")
    routed = store.entry(second)
    assert routed is not None
    assert (new, new, 1) == (
        again,
        routed.routed_to,
        len(store.entries(worker="orchestrator")),
    )


def test_merging_replaces_the_heads_notice_and_absorbs_the_later_ones(
    store: SyncStore, make_notice: MakeNotice, t0: datetime
) -> None:
    head, later = store.enqueue([make_notice("w1", "a"), make_notice("w1", "b")], at=t0)
    merged = make_notice("w1", items=("a", "b"), text="both")
    store.merge_into(head, merged, absorbed=[later], at=t0 + S)
    absorbed = store.entry(later)
    assert absorbed is not None
    assert ([(head, merged)], ("merged", head)) == (
        [(e.seq, e.notice) for e in store.entries()],
        (absorbed.status, absorbed.routed_to),
    )


def test_a_merged_notices_key_still_cannot_be_enqueued_again(
    store: SyncStore, make_notice: MakeNotice, t0: datetime
) -> None:
    head, later = store.enqueue([make_notice("w1", "a"), make_notice("w1", "b")], at=t0)
    store.merge_into(head, make_notice("w1", items=("a", "b")), absorbed=[later], at=t0)
    assert [] == store.enqueue([make_notice("w1", "a"), make_notice("w1", "b")], at=t0)


def test_merging_across_workers_is_refused(
    store: SyncStore, make_notice: MakeNotice, t0: datetime
) -> None:
    head, other = store.enqueue([make_notice("w1", "a"), make_notice("w2", "b")], at=t0)
    with pytest.raises(StoreError, match="cannot be merged"):
        store.merge_into(head, make_notice("w1", "a"), absorbed=[other], at=t0)


def test_merging_into_another_workers_head_is_refused(
    store: SyncStore, make_notice: MakeNotice, t0: datetime
) -> None:
    (head,) = store.enqueue([make_notice("w1", "a")], at=t0)
    with pytest.raises(StoreError, match="belongs to another worker"):
        store.merge_into(head, make_notice("w2", "a"), at=t0)


def test_merging_into_a_finished_head_is_refused(
    store: SyncStore, make_notice: MakeNotice, t0: datetime
) -> None:
    (head,) = store.enqueue([make_notice("w1", "a")], at=t0)
    store.mark_delivered(head, at=t0)
    with pytest.raises(StoreError, match="is not pending"):
        store.merge_into(head, make_notice("w1", "a"), at=t0)


def test_a_refused_merge_changes_no_entry(
    store: SyncStore, make_notice: MakeNotice, t0: datetime
) -> None:
    head, later, other = store.enqueue(
        [make_notice("w1", "a"), make_notice("w1", "b"), make_notice("w2", "c")], at=t0
    )
    before = store.entries(statuses=("pending", "merged"))
    with pytest.raises(StoreError, match=f"entry {other} cannot be merged"):
        store.merge_into(
            head, make_notice("w1", items=("a", "b"), text="both"), absorbed=[later, other], at=t0
        )
    assert before == store.entries(statuses=("pending", "merged"))


def test_an_entry_cannot_be_merged_into_itself(
    store: SyncStore, make_notice: MakeNotice, t0: datetime
) -> None:
    (head,) = store.enqueue([make_notice("w1", "a")], at=t0)
    with pytest.raises(StoreError, match=f"entry {head} cannot be merged into {head}"):
        store.merge_into(head, make_notice("w1", "a"), absorbed=[head], at=t0)


def test_recording_an_attempt_on_a_finished_entry_is_an_error(
    store: SyncStore, make_notice: MakeNotice, t0: datetime
) -> None:
    (seq,) = store.enqueue([make_notice()], at=t0)
    store.mark_delivered(seq, at=t0)
    with pytest.raises(StoreError, match="delivered, not pending"):
        store.mark_delivered(seq, at=t0)


def test_entries_lists_what_waits_for_one_worker(
    store: SyncStore, make_notice: MakeNotice, t0: datetime
) -> None:
    store.enqueue([make_notice("w1", "a"), make_notice("w2", "b"), make_notice("w1", "c")], at=t0)
    assert ["a", "c"] == [e.notice.items[0].id for e in store.entries(worker="w1")]


def test_prune_deletes_only_finished_entries_older_than_the_cutoff(
    store: SyncStore, make_notice: MakeNotice, t0: datetime
) -> None:
    old, recent, waiting = store.enqueue(
        [make_notice("w1", "a"), make_notice("w2", "b"), make_notice("w3", "c")], at=t0
    )
    store.mark_delivered(old, at=t0)
    store.mark_delivered(recent, at=t0 + 10 * S)
    assert 1 == store.prune(before=t0 + 5 * S)
    assert [recent, waiting] == [
        e.seq for e in store.entries(statuses=("pending", "delivered", "parked"))
    ]


def test_daemon_state_is_a_small_key_value_table(store: SyncStore, t0: datetime) -> None:
    store.set_state("last_poll", b"1", at=t0)
    store.set_state("last_poll", b"2", at=t0)
    assert (b"2", None) == (store.get_state("last_poll"), store.get_state("budget"))


def test_due_can_be_limited_to_some_workers(
    store: SyncStore, t0: datetime, make_notice: MakeNotice
) -> None:
    store.enqueue([make_notice("w1"), make_notice("w2", "IC_2")], at=t0)
    assert (["w2"], [], t0) == (
        [e.worker for e in store.due(t0, workers={"w2", "w9"})],
        [e.worker for e in store.due(t0, workers=())],
        store.next_due_at(workers={"w2"}),
    )


def test_nothing_is_due_for_no_workers(
    store: SyncStore, t0: datetime, make_notice: MakeNotice
) -> None:
    store.enqueue([make_notice("w1")], at=t0)
    assert None is store.next_due_at(workers=())
