"""Fixtures: a real store in ``tmp_path``, agent homes there too, a fixed clock."""

from __future__ import annotations

from pathlib import Path

import pytest

from comment_wake.registry import AgentHomes, InboxSpec, Registry
from review_monitor.store import SyncStore
from review_monitor.testing import FixedClock


@pytest.fixture
def homes(tmp_path: Path) -> AgentHomes:
    return AgentHomes(claude=tmp_path / "claude-home", codex=tmp_path / "codex-home")


@pytest.fixture
def clock() -> FixedClock:
    return FixedClock()


@pytest.fixture
def store(any_store: SyncStore) -> SyncStore:
    """The app's store, once on each engine."""
    return any_store


@pytest.fixture
def registry(store: SyncStore, homes: AgentHomes, clock: FixedClock, tmp_path: Path) -> Registry:
    """A registry with orchestrator ``o1`` (inbox publisher) already added."""
    reg = Registry(
        store,
        inbox_root=tmp_path / "state" / "inbox",
        clock=clock,
        homes=homes,
        environ={"HOOK_SECRET": "s3cret-value"},
    )
    reg.add_orchestrator("o1", InboxSpec())
    return reg


@pytest.fixture
def transcript(tmp_path: Path) -> Path:
    path = tmp_path / "t" / "worker.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text('{"type":"user"}\n')
    return path
