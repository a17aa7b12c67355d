"""Every check-then-write invariant holds under a race, on both engines: N threads, each
with a connection of its own, released together by a barrier, try the conflicting
operation through the public API at once.  On PostgreSQL (READ COMMITTED) only the named
lock each path takes before its first read keeps them apart; on SQLite BEGIN IMMEDIATE
does."""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, TypeVar

import pytest

from comment_wake.registry import InboxSpec, RefusedInputError, Registry
from comment_wake.store import (
    ContentLimits,
    GapLimits,
    delivering,
    posts,
    spend_content,
    spend_gap,
)
from comment_wake.tools import ToolLimits, ToolRefused, WorkerTools
from comment_wake.wake import WakeConfig
from review_monitor import NOTICE_VERSION, Notice, NoticeItem, NoticePr, PrRef
from review_monitor.store import HeldLease, LeaseHeld, SyncStore, acquire_lease
from review_monitor.testing import FixedClock

RACERS = 8
SLOW_READ = 0.01  # seconds
CAP = 3
T0 = datetime(2026, 12, 4, 9, 0, tzinfo=UTC)
PR = PrRef("octo", "repo", 7)
COMMENT = NoticeItem(
    "IC_kwDOAlice02",
    1002,
    "https://github.com/octo/repo/pull/7#issuecomment-1002",
    "alice",
    "comment",
)

A = TypeVar("A")
R = TypeVar("R")
Opener = Callable[[], SyncStore]


def race(racers: list[A], attempt: Callable[[int, A], R]) -> list[R | Exception]:
    """What ``attempt(n, racers[n])`` gave (or raised) in each of ``len(racers)`` threads
    released together, in thread order.  Each racer (a store, or a registry or tools over
    one) is made before the barrier, so the threads start their transactions at once."""
    start = threading.Barrier(len(racers))
    results: list[R | Exception] = [RuntimeError("not run")] * len(racers)

    def run(n: int) -> None:
        start.wait()
        try:
            results[n] = attempt(n, racers[n])
        except Exception as exc:  # kept to be counted, never lost in a thread
            results[n] = exc

    threads = [threading.Thread(target=run, args=(n,)) for n in range(len(racers))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


def outcomes(
    results: Sequence[object], ok: str, refused: type[Exception], words: str
) -> Counter[str]:
    """``ok`` for a result, ``refused`` for the expected refusal, else the error's repr."""

    def name(result: object) -> str:
        if not isinstance(result, Exception):
            return ok
        if isinstance(result, refused) and words in str(result):
            return "refused"
        return repr(result)

    return Counter(name(r) for r in results)


@pytest.fixture(autouse=True)
def slow_checks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every read inside a write transaction answers ``SLOW_READ`` late, as a distant
    server's does: the racers' checks overlap, so a path that reads before it takes its
    lock (or takes none) lets two of them act on the same stale read."""
    from review_monitor._store import _db

    execute = _db.ReadTx.execute

    def slow_execute(self: _db.ReadTx, sql: str, args: Iterable[Any] = ()) -> Any:
        cursor = execute(self, sql, args)
        if isinstance(self, _db.WriteTx) and sql.lstrip().upper().startswith("SELECT"):
            time.sleep(SLOW_READ)
        return cursor

    monkeypatch.setattr(_db.ReadTx, "execute", slow_execute)


def registry(store: SyncStore, tmp_path: Path, clock: FixedClock | None = None) -> Registry:
    return Registry(store, inbox_root=tmp_path / "inbox", clock=clock or FixedClock(T0))


def stores(opener: Opener) -> list[SyncStore]:
    """One store per racer, each a connection of its own."""
    return [opener() for _ in range(RACERS)]


def registries(opener: Opener, tmp_path: Path) -> list[Registry]:
    return [registry(store, tmp_path) for store in stores(opener)]


@pytest.fixture
def bound(any_store: SyncStore, tmp_path: Path) -> SyncStore:
    """A store where worker w1 has PR, its posting tools on, and one comment delivered."""
    reg = registry(any_store, tmp_path)
    reg.add_orchestrator("lead", InboxSpec())
    reg.bind("w1", PR, orchestrator="lead", publisher=InboxSpec(), post_tools=True)
    notice = Notice(
        version=NOTICE_VERSION,
        kind="comment-wake",
        key=f"k-{COMMENT.id}",
        worker="w1",
        pr=NoticePr(PR.host, PR.repo, PR.number, "https://github.com/octo/repo/pull/7", "t"),
        items=(COMMENT,),
        text="...",
        created_at=T0,
    )
    with any_store.write(at=T0) as tx:
        delivering(1, notice)(tx)
    return any_store


def tools(store: SyncStore, tmp_path: Path, **limits: int) -> WorkerTools:
    return WorkerTools(
        "w1",
        store=store,
        registry=registry(store, tmp_path),
        clock=FixedClock(T0),
        wake=WakeConfig(),
        limits=ToolLimits(**limits),  # type: ignore[arg-type]
    )


# -- the registry: one live worker per PR, one binding per worker, one kind per id -------


def test_workers_binding_one_pr_at_once_leave_it_to_one(
    any_store: SyncStore, any_store_opener: Opener, tmp_path: Path
) -> None:
    registry(any_store, tmp_path).add_orchestrator("lead", InboxSpec())
    results = race(
        registries(any_store_opener, tmp_path),
        lambda n, reg: reg.bind(f"w{n}", PR, orchestrator="lead", publisher=InboxSpec()),
    )
    expected = {"bound": 1, "refused": RACERS - 1}
    assert expected == outcomes(results, "bound", RefusedInputError, "is already bound to worker")


def test_one_worker_bound_to_many_prs_at_once_watches_only_the_pr_it_ends_with(
    any_store: SyncStore, any_store_opener: Opener, tmp_path: Path
) -> None:
    reg = registry(any_store, tmp_path)
    reg.add_orchestrator("lead", InboxSpec())
    race(
        registries(any_store_opener, tmp_path),
        lambda n, reg: reg.bind(
            "w1", PrRef("octo", "repo", n + 1), orchestrator="lead", publisher=InboxSpec()
        ),
    )
    record = reg.worker("w1")
    assert record is not None
    assert [record.pr] == [w.pr for w in any_store.watches() if w.thread_id == "w1"]


def test_one_orchestrator_added_from_many_threads_is_added_once(
    any_store_opener: Opener, tmp_path: Path
) -> None:
    # Each thread its own clock: the one that adds gives the record its time, the others
    # update it and keep that time.
    clocks = [FixedClock(T0 + timedelta(seconds=n)) for n in range(RACERS)]
    regs = [
        registry(s, tmp_path, clock)
        for s, clock in zip(stores(any_store_opener), clocks, strict=True)
    ]
    results = race(regs, lambda n, reg: reg.add_orchestrator("lead", InboxSpec()))
    added = [
        n
        for n, r in enumerate(results)
        if not isinstance(r, Exception) and r.added_at == clocks[n].now()
    ]
    assert (1, []) == (len(added), [r for r in results if isinstance(r, Exception)])


def test_an_id_added_as_orchestrator_and_bound_as_worker_at_once_is_one_kind(
    any_store: SyncStore, any_store_opener: Opener, tmp_path: Path
) -> None:
    registry(any_store, tmp_path).add_orchestrator("lead", InboxSpec())

    def claim(n: int, reg: Registry) -> object:
        if n % 2:
            return reg.add_orchestrator("x", InboxSpec())
        return reg.bind(
            "x", PrRef("octo", "repo", n + 1), orchestrator="lead", publisher=InboxSpec()
        )

    race(registries(any_store_opener, tmp_path), claim)
    reg = registry(any_store, tmp_path)
    assert 1 == (reg.orchestrator("x") is not None) + (reg.worker("x") is not None)


# -- the worker tools: the hourly post cap, one progress comment, the message cap --------


def test_posts_queued_at_once_over_the_hourly_cap_let_exactly_the_cap_through(
    bound: SyncStore, any_store_opener: Opener, tmp_path: Path
) -> None:
    workers = [tools(s, tmp_path, posts_per_hour=CAP) for s in stores(any_store_opener)]
    results = race(workers, lambda n, worker: worker.reply(COMMENT.id, f"r{n}"))
    expected = ({"queued": CAP, "refused": RACERS - CAP}, CAP)
    counted = outcomes(results, "queued", ToolRefused, f"{CAP} posts in the last hour")
    assert expected == (counted, len(posts(bound)))


def test_progress_calls_at_once_make_one_progress_comment_that_each_edits(
    bound: SyncStore, any_store_opener: Opener, tmp_path: Path
) -> None:
    workers = [tools(s, tmp_path) for s in stores(any_store_opener)]
    results = race(workers, lambda n, worker: worker.progress(f"step {n}"))
    (row,) = posts(bound)
    assert {row.key} == {r["key"] if isinstance(r, dict) else repr(r) for r in results}


def test_messages_sent_at_once_over_the_hourly_cap_let_exactly_the_cap_through(
    bound: SyncStore, any_store_opener: Opener, tmp_path: Path
) -> None:
    workers = [tools(s, tmp_path, messages_per_hour=CAP) for s in stores(any_store_opener)]
    results = race(workers, lambda n, worker: worker.message_orchestrator(f"note {n}"))
    expected = {"queued": CAP, "refused": RACERS - CAP}
    words = f"{CAP} messages and reports in the last hour"
    assert expected == outcomes(results, "queued", ToolRefused, words)


# -- the content bucket ----------------------------------------------------------------


def test_takers_of_a_content_bucket_at_once_get_exactly_what_it_holds(
    any_store_opener: Opener,
) -> None:
    limits = ContentLimits(per_minute=CAP, per_hour=150)
    results = race(
        stores(any_store_opener),
        lambda n, store: spend_content(store, "github.com/octocat", limits, T0),
    )
    granted = sum(1 for r in results if r is None)
    waits = sum(1 for r in results if isinstance(r, datetime))
    assert (CAP, RACERS - CAP) == (granted, waits)


def test_takers_of_a_gap_bucket_at_once_get_exactly_what_it_holds(
    any_store_opener: Opener,
) -> None:
    limits = GapLimits(per_hour=CAP * 3)  # CAP pages a minute
    results = race(
        stores(any_store_opener),
        lambda n, store: spend_gap(store, "github.com", None, limits, T0),
    )
    assert (CAP, RACERS - CAP) == (results.count(True), results.count(False))


# -- the fleet's leases ------------------------------------------------------------------


def test_holders_taking_one_free_lease_at_once_leave_it_to_one_and_are_told_who(
    any_store_opener: Opener,
) -> None:
    def take(n: int, store: SyncStore) -> HeldLease | LeaseHeld:
        with store.write(at=T0) as tx:
            return acquire_lease(tx, "host:h1", f"h{n}", now=T0, ttl=timedelta(seconds=30))

    results = race(stores(any_store_opener), take)
    kinds = Counter(type(r).__name__ if not isinstance(r, Exception) else repr(r) for r in results)
    assert {"HeldLease": 1, "LeaseHeld": RACERS - 1} == kinds
