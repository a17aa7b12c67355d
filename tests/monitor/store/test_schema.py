"""The store's file: WAL, parts each with its own numbered migrations, the watch registry."""

from __future__ import annotations

import sqlite3
from datetime import datetime
from pathlib import Path

import pytest

from review_monitor import PrRef
from review_monitor._errors import StoreSchemaError
from review_monitor._listener import Watch
from review_monitor._store._schema import LEDGER_MOVED, migrate
from review_monitor._store._sync import MONITOR_TABLES
from review_monitor.store import Migration, SyncStore, Tables

_T0 = datetime.fromisoformat("2026-03-01T12:00:00+00:00")
NOTES_V1 = Migration(1, "notes", ("CREATE TABLE notes (k TEXT PRIMARY KEY, v TEXT NOT NULL)",))
NOTES = Tables("test.notes", (NOTES_V1,))
NOTES_V2 = Tables(
    "test.notes",
    (NOTES_V1, Migration(2, "notes get a rank", ("ALTER TABLE notes ADD COLUMN rank INTEGER",))),
)


def _ledger(db_path: Path) -> list[tuple[str, int]]:
    with sqlite3.connect(db_path) as conn:
        rows = conn.execute("SELECT part, version FROM schema_versions ORDER BY 1, 2")
        return [(str(r[0]), int(r[1])) for r in rows]


def test_the_store_runs_in_wal_mode(sqlite_store: SyncStore, db_path: Path) -> None:
    with sqlite3.connect(db_path) as conn:
        assert "wal" == conn.execute("PRAGMA journal_mode").fetchone()[0]


def test_a_new_store_records_each_monitor_part_at_its_latest_version(
    any_new_store_target: str,
) -> None:
    expected = sorted((p.part, m.version) for p in MONITOR_TABLES for m in p.migrations)
    with SyncStore.open(any_new_store_target) as store, store.read() as tx:
        rows = tx.execute("SELECT part, version FROM schema_versions ORDER BY 1, 2").fetchall()
    assert expected == [(str(r[0]), int(r[1])) for r in rows]


def test_an_applications_part_is_created_and_recorded_when_the_store_opens(
    db_path: Path,
) -> None:
    with SyncStore.open(db_path, tables=[NOTES]) as store, store.write(at=_T0) as tx:
        tx.execute("INSERT INTO notes VALUES ('k', 'v')")
    assert ("test.notes", 1) in _ledger(db_path)


def test_a_parts_new_migration_runs_at_the_next_open_and_keeps_its_rows(db_path: Path) -> None:
    with SyncStore.open(db_path, tables=[NOTES]) as store, store.write(at=_T0) as tx:
        tx.execute("INSERT INTO notes VALUES ('k', 'v')")
    with SyncStore.open(db_path, tables=[NOTES_V2]) as store, store.read() as tx:
        row = tx.execute("SELECT k, v, rank FROM notes").fetchone()
    assert (("k", "v", None), 2) == (row, max(v for p, v in _ledger(db_path) if p == "test.notes"))


def test_opening_without_a_part_leaves_that_part_as_it_is(db_path: Path) -> None:
    with SyncStore.open(db_path, tables=[NOTES_V2]) as store, store.write(at=_T0) as tx:
        tx.execute("INSERT INTO notes VALUES ('k', 'v', 3)")
    SyncStore.open(db_path).close()  # a short command that knows nothing of notes
    with SyncStore.open(db_path, tables=[NOTES_V2]) as store, store.read() as tx:
        assert ("k", "v", 3) == tx.execute("SELECT k, v, rank FROM notes").fetchone()


def test_a_part_from_a_newer_build_is_refused_with_a_clear_message(db_path: Path) -> None:
    SyncStore.open(db_path, tables=[NOTES_V2]).close()
    with pytest.raises(StoreSchemaError, match=r"test\.notes tables have schema version 2, newer"):
        SyncStore.open(db_path, tables=[NOTES])


def test_a_store_from_a_newer_build_of_the_old_ledger_is_refused(
    sqlite_store: SyncStore, db_path: Path
) -> None:
    with sqlite3.connect(db_path) as conn:
        conn.execute("INSERT INTO schema_migrations VALUES (999, 'future', 'x')")
    with pytest.raises(StoreSchemaError, match="newer than this build"):
        SyncStore.open(db_path)


def test_a_new_store_tells_builds_from_before_the_split_that_it_is_newer(
    sqlite_store: SyncStore, db_path: Path
) -> None:
    # A build from before the split knows versions 1 to 5 and refuses any other.
    with sqlite3.connect(db_path) as conn:
        versions = [r[0] for r in conn.execute("SELECT version FROM schema_migrations")]
    assert [LEDGER_MOVED] == versions


def test_migrating_twice_applies_nothing_the_second_time(tmp_path: Path) -> None:
    conn = sqlite3.connect(tmp_path / "s.db", isolation_level=None)
    first = migrate(conn, [*MONITOR_TABLES, NOTES], _T0)
    count = sum(len(p.migrations) for p in (*MONITOR_TABLES, NOTES))
    assert (count, []) == (len(first), migrate(conn, [*MONITOR_TABLES, NOTES], _T0))


def test_a_part_registered_twice_is_refused(db_path: Path) -> None:
    with pytest.raises(ValueError, match="registered twice"):
        SyncStore.open(db_path, tables=[NOTES, NOTES_V2])


def test_migrations_must_be_numbered_from_one_without_gaps() -> None:
    with pytest.raises(ValueError, match="numbered 1, 2"):
        Tables("test.gap", (Migration(2, "two", ()),))


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
