"""The registry keeps each PR's owner: a bind claims it for the registry's host, an
unbind, an archive or a move to another PR unbinds it there at the next epoch, and a
bind from another host moves the epoch on."""

from __future__ import annotations

from pathlib import Path

from comment_wake.registry import InboxSpec, Registry
from review_monitor import PrRef
from review_monitor.store import LOCAL_HOST, PrOwner, SyncStore, read_owner

PR = PrRef("octo", "repo", 7)


def _owner(store: SyncStore, pr: PrRef = PR) -> PrOwner | None:
    with store.read() as tx:
        return read_owner(tx, pr)


def test_a_bind_on_a_single_hosts_store_claims_the_pr_for_the_local_host(
    registry: Registry, store: SyncStore
) -> None:
    registry.bind("w1", PR, orchestrator="o1", publisher=InboxSpec())
    assert PrOwner(LOCAL_HOST, "w1", 1) == _owner(store)


def test_a_fleet_hosts_bind_records_its_host_in_the_owner_and_the_record(
    store: SyncStore, tmp_path: Path
) -> None:
    registry = Registry(store, inbox_root=tmp_path / "inbox", host_id="h1")
    registry.add_orchestrator("o1", InboxSpec())
    record = registry.bind("w1", PR, orchestrator="o1", publisher=InboxSpec())
    assert (PrOwner("h1", "w1", 1), "h1") == (_owner(store), record.host_id)


def test_binding_the_same_worker_again_keeps_the_epoch(
    registry: Registry, store: SyncStore
) -> None:
    registry.bind("w1", PR, orchestrator="o1", publisher=InboxSpec())
    registry.bind("w1", PR, orchestrator="o1", publisher=InboxSpec())
    assert PrOwner(LOCAL_HOST, "w1", 1) == _owner(store)


def test_moving_a_worker_to_another_pr_unbinds_the_old_one(
    registry: Registry, store: SyncStore
) -> None:
    registry.bind("w1", PR, orchestrator="o1", publisher=InboxSpec())
    registry.bind("w1", "octo/repo#8", orchestrator="o1", publisher=InboxSpec())
    assert PrOwner(LOCAL_HOST, "", 2) == _owner(store)


def test_unbinding_keeps_the_host_at_the_next_epoch(registry: Registry, store: SyncStore) -> None:
    registry.bind("w1", PR, orchestrator="o1", publisher=InboxSpec())
    registry.unbind("w1")
    assert PrOwner(LOCAL_HOST, "", 2) == _owner(store)


def test_archiving_keeps_the_host_at_the_next_epoch(registry: Registry, store: SyncStore) -> None:
    registry.bind("w1", PR, orchestrator="o1", publisher=InboxSpec())
    registry.archive("w1")
    assert PrOwner(LOCAL_HOST, "", 2) == _owner(store)


def test_a_rebind_on_another_host_moves_the_epoch_on(store: SyncStore, tmp_path: Path) -> None:
    first = Registry(store, inbox_root=tmp_path / "inbox", host_id="h1")
    first.add_orchestrator("o1", InboxSpec())
    first.bind("w1", PR, orchestrator="o1", publisher=InboxSpec())
    first.archive("w1")
    second = Registry(store, inbox_root=tmp_path / "inbox", host_id="h2")
    second.bind("w2", PR, orchestrator="o1", publisher=InboxSpec())
    assert PrOwner("h2", "w2", 3) == _owner(store)


def test_a_hosts_recipients_are_its_workers_and_orchestrators(
    store: SyncStore, tmp_path: Path
) -> None:
    here = Registry(store, inbox_root=tmp_path / "inbox", host_id="h1")
    there = Registry(store, inbox_root=tmp_path / "inbox", host_id="h2")
    here.add_orchestrator("o1", InboxSpec())
    there.add_orchestrator("o2", InboxSpec())
    here.bind("w1", PR, orchestrator="o1", publisher=InboxSpec())
    there.bind("w2", "octo/repo#8", orchestrator="o1", publisher=InboxSpec())
    here.bind("w3", "octo/repo#9", orchestrator="o2", publisher=InboxSpec())
    here.archive("w3")
    assert (frozenset({"o1", "w1", "w3"}), frozenset({"o2", "w2"})) == (
        here.recipients(),
        there.recipients(),
    )


def test_a_hosts_recipients_follow_a_binding_made_by_another_process_on_it(
    store: SyncStore, tmp_path: Path
) -> None:
    daemon = Registry(store, inbox_root=tmp_path / "inbox", host_id="h1")
    command = Registry(store, inbox_root=tmp_path / "inbox", host_id="h1")
    daemon.add_orchestrator("o1", InboxSpec())
    before = daemon.recipients()
    command.bind("w1", PR, orchestrator="o1", publisher=InboxSpec())
    assert (frozenset({"o1"}), frozenset({"o1", "w1"})) == (before, daemon.recipients())
