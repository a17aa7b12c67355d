"""Stores on both engines: ``any_store`` is an open ``SyncStore`` with the app's parts,
once on SQLite and once on the test PostgreSQL server (``postgres_url``: a migrated store
from the session's pool), so a store test that takes it pins the same behaviour on both;
``any_store_opener`` opens more connections to the same store (concurrency tests).
``any_new_store_target`` is where no store is yet, on each engine, for a test of what
creating a store does."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from comment_wake.store import open_sync_store
from review_monitor.store import SyncStore

ENGINES = ("sqlite", "postgresql")


@pytest.fixture(params=ENGINES)
def any_store_target(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Where a fresh store is: a SQLite file not yet created, or a PostgreSQL URL with a
    schema of its own holding an empty store already migrated with the app's parts
    (``postgres_url``; opening it with fewer parts leaves the others as they are)."""
    if request.param == "sqlite":
        return str(tmp_path / "state.db")
    return str(request.getfixturevalue("postgres_url"))


@pytest.fixture(params=ENGINES)
def any_new_store_target(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Where no store is yet: a SQLite file not yet created, or a PostgreSQL URL with an
    empty schema of its own (``empty_postgres_url``)."""
    if request.param == "sqlite":
        return str(tmp_path / "state.db")
    return str(request.getfixturevalue("empty_postgres_url"))


@pytest.fixture
def any_store_opener(any_store_target: str) -> Iterator[Callable[[], SyncStore]]:
    """Opens the store at ``any_store_target`` (each call a connection of its own); every
    store it opened is closed at the end."""
    opened: list[SyncStore] = []

    def opener() -> SyncStore:
        store = open_sync_store(any_store_target)
        opened.append(store)
        return store

    yield opener
    for store in opened:
        store.close()


@pytest.fixture
def any_store(any_store_opener: Callable[[], SyncStore]) -> SyncStore:
    """An empty store with the app's parts, on each engine."""
    return any_store_opener()
