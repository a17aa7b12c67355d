"""The registry version and the daemon's snapshot of the registry (issue 26, item 1)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import pytest

from comment_wake.registry import InboxSpec, RefusedInputError, Registry, RegistryBook
from comment_wake.wake import Binding
from review_monitor import PrRef
from review_monitor.store import SyncStore
from review_monitor.testing import FixedClock

PR = PrRef("octo", "repo", 7)
OTHER = PrRef("octo", "repo", 8)
SID = "3f2a9c4e-1b2c-4d5e-8f90-0123456789ab"


def _bound(registry: Registry) -> Registry:
    registry.bind("w1", PR, orchestrator="o1", publisher=InboxSpec())
    return registry


WRITES: dict[str, Callable[[Registry], object]] = {
    "bind": lambda r: r.bind("w2", OTHER, orchestrator="o1", publisher=InboxSpec()),
    "re-bind": lambda r: r.bind("w1", OTHER, orchestrator="o1", publisher=InboxSpec()),
    "unbind": lambda r: r.unbind("w1"),
    "archive": lambda r: r.archive("w1"),
    "unwatch": lambda r: r.set_watching("w1", False),
    "session": lambda r: r.update_session("w1", SID),
    "add orchestrator": lambda r: r.add_orchestrator("o2", InboxSpec()),
}


@pytest.mark.parametrize("write", WRITES.values(), ids=WRITES.keys())
def test_every_registry_write_moves_the_registry_version(
    registry: Registry, write: Callable[[Registry], object]
) -> None:
    before = _bound(registry).version()
    write(registry)
    assert registry.version() > before


def test_a_refused_write_leaves_the_registry_version(registry: Registry) -> None:
    before = _bound(registry).version()
    with pytest.raises(RefusedInputError):
        registry.bind("w2", PR, orchestrator="o1", publisher=InboxSpec())
    assert before == registry.version()


def test_a_watch_added_by_hand_moves_the_registry_version(store: SyncStore) -> None:
    before = store.registry_version()
    store.add_watch("someone", PR, at=FixedClock().now())
    assert store.registry_version() == before + 1


def test_a_watch_added_twice_moves_the_registry_version_once(store: SyncStore) -> None:
    at = FixedClock().now()
    store.add_watch("someone", PR, at=at)
    before = store.registry_version()
    store.add_watch("someone", PR, at=at)
    assert before == store.registry_version()


def test_the_book_answers_as_the_registry_does(registry: Registry, clock: FixedClock) -> None:
    book = RegistryBook(_bound(registry))
    expected = Binding(pr=PR, worker="w1", spawned_by="o1", watched_since=clock.now())
    assert expected == book.binding(PR)


def test_the_book_keeps_its_snapshot_until_it_is_refreshed(registry: Registry) -> None:
    book = RegistryBook(_bound(registry))
    registry.archive("w1")
    assert book.binding(PR).is_bound


def test_a_refresh_names_the_prs_whose_binding_moved(registry: Registry) -> None:
    book = RegistryBook(_bound(registry))
    registry.bind("w2", OTHER, orchestrator="o1", publisher=InboxSpec())
    registry.archive("w1")
    assert frozenset({PR, OTHER}) == book.refresh()
    assert not book.binding(PR).is_bound


def test_a_session_change_moves_no_binding(registry: Registry) -> None:
    book = RegistryBook(_bound(registry))
    registry.update_session("w1", SID)
    assert frozenset() == book.refresh()
    assert registry.version() == book.version()


def test_a_refresh_with_nothing_moved_reads_no_record(
    registry: Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    book = RegistryBook(_bound(registry))
    snapshots: list[int] = []
    real = registry.snapshot
    monkeypatch.setattr(registry, "snapshot", lambda: snapshots.append(1) or real())
    book.refresh()
    book.refresh()
    assert [] == snapshots


def test_a_live_worker_owns_its_pr_over_an_archived_one(
    registry: Registry, clock: FixedClock
) -> None:
    _bound(registry).archive("w1")
    clock.advance(timedelta(minutes=1))
    registry.bind("w2", PR, orchestrator="o1", publisher=InboxSpec())
    assert "w2" == RegistryBook(registry).binding(PR).worker


def test_the_last_archived_worker_owns_its_pr(registry: Registry, clock: FixedClock) -> None:
    _bound(registry).archive("w1")
    clock.advance(timedelta(minutes=1))
    registry.bind("w0", PR, orchestrator="o1", publisher=InboxSpec())
    clock.advance(timedelta(minutes=1))
    registry.archive("w0")
    assert "w0" == RegistryBook(registry).binding(PR).worker


def test_the_book_answers_in_the_spelling_asked(registry: Registry) -> None:
    registry.bind("w1", PrRef("Octo", "Repo", 7), orchestrator="o1", publisher=InboxSpec())
    assert "octo/repo#7" == str(RegistryBook(registry).binding(PR).pr)
