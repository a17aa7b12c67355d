"""Every registry write checks what it reads (one live worker per PR, ids, an
orchestrator's workers), so each takes the registry's lock before its first read: on
PostgreSQL, whose writers do not serialise, two binds of one PR cannot both see it free."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from comment_wake.registry import InboxSpec, Registry

REGISTRY_LOCK = ("lock", "registry")

WRITES: dict[str, Callable[[Registry], object]] = {
    "add_orchestrator": lambda r: r.add_orchestrator("o2", InboxSpec()),
    "remove_orchestrator": lambda r: r.remove_orchestrator("spare"),
    "bind": lambda r: r.bind("w2", "octo/repo#8", orchestrator="o1", publisher=InboxSpec()),
    "rebind": lambda r: r.bind("w1", "octo/repo#9", orchestrator="o1", publisher=InboxSpec()),
    "unbind": lambda r: r.unbind("w1"),
    "archive": lambda r: r.archive("w1"),
    "unwatch": lambda r: r.set_watching("w1", False),
    "update_session": lambda r: r.update_session("w1", "0f6c2b4e-9d35-4c1a-8a77-2d4f1e0b9c61"),
}


@pytest.mark.parametrize("write", list(WRITES.values()), ids=list(WRITES))
def test_a_registry_write_takes_the_registry_lock_before_its_first_read(
    registry: Registry, write_txs: list[list[tuple[str, str]]], write: Callable[[Registry], object]
) -> None:
    registry.add_orchestrator("spare", InboxSpec())
    registry.bind("w1", "octo/repo#7", orchestrator="o1", publisher=InboxSpec())
    write_txs.clear()
    write(registry)
    assert [REGISTRY_LOCK] == [events[0] for events in write_txs]
