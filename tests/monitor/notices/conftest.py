"""Fixtures for the monitor's notices: a real store file, and the fence until it lands."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest

import untrusted_fence
from review_monitor._store import Store


@pytest.fixture
def store_path(tmp_path: Path) -> Path:
    return tmp_path / "state.db"


@pytest.fixture
def store(store_path: Path) -> Iterator[Store]:
    s = Store.open(store_path)
    yield s
    s.close()


@pytest.fixture(autouse=True)
def fence_available(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fence library is written in parallel; until ``fence`` exists, stand in with
    an obviously fake one so these tests check the notice shape, not fence internals."""
    if hasattr(untrusted_fence, "fence"):
        return

    def fence(text: str, *, kind: str, source: str) -> SimpleNamespace:
        return SimpleNamespace(text=f"<<{kind} from {source}>>\n{text}\n<<end>>")

    monkeypatch.setattr(untrusted_fence, "fence", fence, raising=False)
