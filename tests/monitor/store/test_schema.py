"""The store's file: WAL, numbered migrations recorded in the database, the watch registry."""

from __future__ import annotations

import sqlite3
from datetime import datetime
from pathlib import Path

import pytest

from review_monitor import PrRef
from review_monitor._errors import StoreSchemaError
from review_monitor._listener import Watch
from review_monitor._migrations import MIGRATIONS, applied_versions, migrate
from review_monitor._store import Mark, SyncStore


def test_the_store_runs_in_wal_mode(store: SyncStore, db_path: Path) -> None:
    with sqlite3.connect(db_path) as conn:
        assert "wal" == conn.execute("PRAGMA journal_mode").fetchone()[0]


def test_a_new_store_records_every_migration(store: SyncStore, db_path: Path) -> None:
    with sqlite3.connect(db_path) as conn:
        assert [m.version for m in MIGRATIONS] == applied_versions(conn)


def test_opening_an_older_store_applies_the_missing_migrations_and_keeps_its_data(
    db_path: Path, pr: PrRef, t0: datetime
) -> None:
    db_path.parent.mkdir(parents=True)
    conn = sqlite3.connect(db_path, isolation_level=None)
    migrate(conn, t0, target=1)
    conn.execute(
        "INSERT INTO marks VALUES (?, ?, ?, ?, 'notices', 1, ?, ?)",
        (pr.host, pr.owner, pr.name, pr.number, b"kept", "2026-03-01T12:00:00.000000Z"),
    )
    conn.close()
    store = SyncStore.open(db_path)
    try:
        store.set_state("k", b"v", at=t0)  # a table from a later migration
        assert (Mark(1, b"kept"), b"v") == (store.load_mark(pr, "notices"), store.get_state("k"))
    finally:
        store.close()


def test_a_store_from_a_newer_build_is_refused_with_a_clear_message(
    store: SyncStore, db_path: Path
) -> None:
    with sqlite3.connect(db_path) as conn:
        conn.execute("INSERT INTO schema_migrations VALUES (999, 'future', 'x')")
    with pytest.raises(StoreSchemaError, match="newer than this build"):
        SyncStore.open(db_path)


def test_migrating_twice_applies_nothing_the_second_time(tmp_path: Path, t0: datetime) -> None:
    conn = sqlite3.connect(tmp_path / "s.db", isolation_level=None)
    migrate(conn, t0)
    assert [] == migrate(conn, t0)


def test_watches_are_listed_by_pr_then_thread(store: SyncStore, t0: datetime) -> None:
    a = PrRef(owner="o", name="r", number=2)
    b = PrRef(owner="o", name="r", number=1)
    store.add_watch("w2", a, at=t0)
    store.add_watch("w1", a, at=t0)
    store.add_watch("w3", b, at=t0)
    assert (Watch("w3", b), Watch("w1", a), Watch("w2", a)) == store.watches()


def test_adding_a_watch_twice_keeps_one(store: SyncStore, pr: PrRef, t0: datetime) -> None:
    assert (True, False, 1) == (
        store.add_watch("w1", pr, at=t0),
        store.add_watch("w1", pr, at=t0),
        len(store.watches()),
    )


def test_a_removed_watch_is_no_longer_listed(store: SyncStore, pr: PrRef, t0: datetime) -> None:
    store.add_watch("w1", pr, at=t0)
    assert (True, ()) == (store.remove_watch("w1", pr), store.watches())
