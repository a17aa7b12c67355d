"""The observation stream in the store, on both engines: the reader writes under its
lease's term (a deposed reader writes nothing), an owner follows its own PRs' items in
seq order, and the reader's housekeeping drops old bodies and unread PRs' rows."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from review_monitor import ItemDetail, Observation, PrGone, PrReadable, PrRef, PrStatus, RoundDone
from review_monitor._store._stream import (
    follow_stream,
    latest_observations,
    prune_bodies,
    prune_stream,
    reader_lease_name,
    ship,
    unread_watches,
)
from review_monitor.store import HeldLease, SyncStore, acquire_lease, add_watch, claim_pr

T0 = datetime(2026, 12, 4, 9, 0, tzinfo=UTC)
ID = "github.com:octo-worker"
A, B = PrRef("octo", "app", 1), PrRef("octo", "app", 2)


def _badge(pr: PrRef) -> PrStatus:
    return PrStatus(
        pr=pr,
        title="t",
        url="u",
        state="OPEN",
        merged=False,
        is_draft=False,
        head_ref_oid="abc",
        review_decision=None,
        check_state=None,
        comments=(),
        reviews=(),
        person_comments_from=None,
    )


def _seen(pr: PrRef, at: datetime = T0, bodies: dict[str, ItemDetail] | None = None) -> Observation:
    return Observation(
        pr=pr,
        read_at=at,
        badge=_badge(pr),
        watches=(),
        interval=timedelta(minutes=1),
        bodies=bodies,
    )


def _reader(store: SyncStore, holder: str, now: datetime = T0) -> HeldLease:
    with store.write(at=now) as tx:
        held = acquire_lease(tx, reader_lease_name(ID), holder, now=now, ttl=timedelta(seconds=30))
    assert isinstance(held, HeldLease)
    return held


def _ship(
    store: SyncStore, lease: HeldLease, *items: Observation | PrGone | PrReadable | RoundDone
) -> bool:
    with store.write(at=T0) as tx:
        return ship(tx, ID, lease.holder, lease.term, list(items))


def _owned(store: SyncStore) -> None:
    with store.write(at=T0) as tx:
        claim_pr(tx, A, "h1", "w1")
        claim_pr(tx, B, "h2", "w2")


def test_an_owner_follows_its_own_prs_and_every_rounds_end_in_seq_order(store: SyncStore) -> None:
    _owned(store)
    lease = _reader(store, "r1")
    _ship(store, lease, _seen(A), _seen(B), RoundDone(at=T0))
    with store.read() as tx:
        items = follow_stream(tx, ID, 0, "h1")
    assert ([1, 3], [Observation, RoundDone]) == ([i.seq for i in items], [type(i) for i in items])


def test_a_later_observation_of_a_pr_replaces_its_earlier_one(store: SyncStore) -> None:
    _owned(store)
    lease = _reader(store, "r1")
    _ship(store, lease, _seen(A))
    _ship(store, lease, _seen(A, T0 + timedelta(minutes=1)))
    with store.read() as tx:
        items = follow_stream(tx, ID, 0, None)
    assert [(2, T0 + timedelta(minutes=1))] == [
        (i.seq, i.read_at) for i in items if isinstance(i, Observation)
    ]


def test_a_deposed_reader_writes_nothing(store: SyncStore) -> None:
    old = _reader(store, "r1")
    _reader(store, "r2", T0 + timedelta(seconds=31))  # r1's lease lapsed: r2 took it
    refused = _ship(store, old, _seen(A))
    with store.read() as tx:
        items = follow_stream(tx, ID, 0, None)
    assert (False, []) == (refused, items)


def test_old_bodies_are_dropped_and_the_observation_kept(store: SyncStore) -> None:
    lease = _reader(store, "r1")
    body = ItemDetail(id="IC_1", kind="comment", body="hello", url="u")
    _ship(store, lease, _seen(A, T0, {"IC_1": body}))
    with store.write(at=T0) as tx:
        dropped = prune_bodies(tx, ID, T0 + timedelta(minutes=10))
    with store.read() as tx:
        kept = latest_observations(tx, ID)
    assert (1, [None]) == (dropped, [o.bodies for o in kept])


def test_rows_of_prs_no_longer_read_are_deleted(store: SyncStore) -> None:
    lease = _reader(store, "r1")
    _ship(store, lease, _seen(A), _seen(B, T0 + timedelta(days=1)))
    with store.write(at=T0) as tx:
        deleted = prune_stream(tx, ID, T0 + timedelta(hours=12))
    with store.read() as tx:
        kept = [o.pr for o in latest_observations(tx, ID)]
    assert (1, [B]) == (deleted, kept)


def test_a_pass_reads_only_the_rows_written_since_the_previous_one(store: SyncStore) -> None:
    lease = _reader(store, "r1")
    body = ItemDetail(id="IC_1", kind="comment", body="hello", url="u")
    _ship(store, lease, _seen(A, T0, {"IC_1": body}))
    with store.write(at=T0) as tx:
        dropped = prune_bodies(tx, ID, T0 + timedelta(minutes=40), since=T0 + timedelta(minutes=10))
    assert 0 == dropped


def _unread(store: SyncStore, host_id: str) -> list[int]:
    with store.read() as tx:
        return [w.pr.number for w in unread_watches(tx, ID, host_id)]


def _watched(store: SyncStore) -> None:
    _owned(store)
    with store.write(at=T0) as tx:
        add_watch(tx, "w1", A)
        add_watch(tx, "w2", B)


def test_a_pr_the_reader_answered_not_found_is_unread_for_its_owner_only(
    store: SyncStore,
) -> None:
    _watched(store)
    lease = _reader(store, "r1")
    _ship(store, lease, _seen(A), PrGone(pr=A, at=T0), _seen(B))
    assert ([1], []) == (_unread(store, "h1"), _unread(store, "h2"))


def test_a_pr_the_reader_reads_again_is_no_longer_unread(store: SyncStore) -> None:
    _watched(store)
    lease = _reader(store, "r1")
    _ship(store, lease, PrGone(pr=A, at=T0), PrReadable(pr=A, at=T0), _seen(A))
    assert [] == _unread(store, "h1")


def test_the_readers_state_is_read_back_as_the_last_reader_saved_it(store: SyncStore) -> None:
    from review_monitor._missing import Missing
    from review_monitor._store._stream import ReaderState, read_reader_state, save_reader_state

    first = ReaderState(
        missing={A: Missing(since=T0, misses=2, retry_at=T0 + timedelta(minutes=2))},
        alone={B: "undefinedField"},
    )
    second = ReaderState(missing={}, alone={A: "MAX_NODE_LIMIT_EXCEEDED"})
    with store.write(at=T0) as tx:
        save_reader_state(tx, ID, first)
    with store.read() as tx:
        kept = read_reader_state(tx, ID)
    with store.write(at=T0) as tx:
        save_reader_state(tx, ID, second)
    with store.read() as tx:
        replaced = read_reader_state(tx, ID)
    assert (first, second) == (kept, replaced)
