"""Fixtures for the monitor's notices: a real store file, and the fence until it lands."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from review_monitor.store import Store


@pytest.fixture
def store_path(tmp_path: Path) -> Path:
    return tmp_path / "state.db"


@pytest.fixture
def store(store_path: Path) -> Iterator[Store]:
    s = Store.open(store_path)
    yield s
    s.close()
