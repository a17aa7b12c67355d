"""Fleet mode: a host owes only the reactions of its own workers' deliveries, on both
engines."""

from __future__ import annotations

from datetime import UTC, datetime

from comment_wake.store import due_reactions, next_reaction_at, owing
from review_monitor import NOTICE_VERSION, Notice, NoticeItem, NoticePr, PrRef, notice_key
from review_monitor.store import SyncStore

T0 = datetime(2026, 12, 4, 9, 0, tzinfo=UTC)
PR = PrRef("octo", "repo", 7)


def _delivered_to(store: SyncStore, worker: str) -> None:
    notice = Notice(
        version=NOTICE_VERSION,
        kind="comment-wake",
        key=notice_key(worker, PR, "comment-wake", ("IC_1",)),
        worker=worker,
        pr=NoticePr(host=PR.host, repo=PR.repo, number=PR.number, url="u", title="t"),
        items=(NoticeItem("IC_1", 1, "u", "alice", "comment"),),
        text="hello",
        created_at=T0,
    )
    (seq,) = store.enqueue([notice], at=T0)
    with store.write(at=T0) as tx:
        owing(seq, ["IC_1"], "EYES", PR.host)(tx)


def test_a_host_owes_only_its_own_workers_reactions(any_store: SyncStore) -> None:
    _delivered_to(any_store, "w1")
    assert (1, 0, T0, None) == (
        len(due_reactions(any_store, T0, workers={"w1"})),
        len(due_reactions(any_store, T0, workers={"w2"})),
        next_reaction_at(any_store, workers={"w1"}),
        next_reaction_at(any_store, workers=()),
    )
