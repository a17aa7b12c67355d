"""A state store written before the split into parts opens with all its data."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import msgspec
import pytest

from comment_wake.store import (
    APP_TABLES,
    delivered_to_inbox,
    open_sync_store,
    reactions,
    read_record,
    release_requests,
    request_release,
    untaken,
)
from review_monitor import PrRef, Watch
from review_monitor.store import Mark, SyncStore

OLD = Path(__file__).resolve().parents[3] / "fixtures" / "stores" / "v5.sql"
PR = PrRef(owner="octo-org", name="octo-repo", number=12)
T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


@pytest.fixture
def old_store(tmp_path: Path) -> Path:
    path = tmp_path / "state.db"
    with sqlite3.connect(path) as conn:
        conn.executescript(OLD.read_text(encoding="utf-8"))
    conn.close()
    return path


def _schema(path: Path) -> set[tuple[str, str]]:
    """Every table and index but the ledgers, with its SQL."""
    with sqlite3.connect(path) as conn:
        rows = conn.execute(
            "SELECT name, sql FROM sqlite_master WHERE sql IS NOT NULL "
            "AND name NOT LIKE 'schema_%' AND name != 'sqlite_sequence'"
        ).fetchall()
    conn.close()
    return {(str(r[0]), " ".join(str(r[1]).split())) for r in rows}


def test_an_old_store_keeps_its_watches_marks_outbox_state_reactions_and_records(
    old_store: Path,
) -> None:
    with open_sync_store(old_store) as db:
        entries = db.entries(statuses=("pending", "delivered"))
        found = (
            db.watches(),
            db.load_mark(PR, "comment-wake"),
            [(e.seq, e.status, e.attempts) for e in entries],
            [a.outcome for e in entries for a in db.attempts(e.seq)],
            db.get_state("daemon/status"),
            [(r.subject_id, r.content, r.status) for r in reactions(db)],
            read_record(db, "comment-wake/workers", "w1"),
        )
    assert (
        (Watch("w1", PR),),
        Mark(2, b"mark-blob"),
        [(1, "delivered", 1), (2, "pending", 1)],
        ["delivered", "busy"],
        b"state-blob",
        [("IC_1", "EYES", "pending")],
        b'{"worker":"w1"}',
    ) == found


def test_an_old_store_keeps_numbering_its_outbox_where_it_left_off(old_store: Path) -> None:
    with open_sync_store(old_store) as db:
        old = db.entries()[0].notice
        new = db.enqueue([msgspec.structs.replace(old, key="another key")], at=T0)
        again = db.enqueue([old], at=T0)  # its key is in the outbox: a no-op
    assert ([3], []) == (new, again)


def test_an_old_store_without_the_later_tables_gets_them(old_store: Path) -> None:
    with sqlite3.connect(old_store) as conn:
        conn.executescript(
            "DROP TABLE reactions; DROP TABLE app_records; "
            "DELETE FROM schema_migrations WHERE version IN (4, 5);"
        )
    conn.close()
    with open_sync_store(old_store) as db:
        found = (db.load_mark(PR, "comment-wake"), reactions(db), read_record(db, "x", "y"))
    assert (Mark(2, b"mark-blob"), (), None) == found


def test_an_old_store_opened_first_without_the_apps_parts_still_opens_with_them(
    old_store: Path,
) -> None:
    SyncStore.open(old_store).close()
    with open_sync_store(old_store) as db:
        assert 1 == len(reactions(db))


def test_a_new_store_has_the_same_tables_as_a_migrated_old_one(
    old_store: Path, tmp_path: Path
) -> None:
    new = tmp_path / "new" / "state.db"
    open_sync_store(new).close()
    open_sync_store(old_store).close()
    assert _schema(old_store) == _schema(new)


def test_every_part_of_an_old_store_is_adopted_at_version_one_from_the_old_ledger(
    old_store: Path,
) -> None:
    open_sync_store(old_store).close()
    with sqlite3.connect(old_store) as conn:
        parts = conn.execute(
            "SELECT part FROM schema_versions WHERE version = 1 AND applied_at = "
            "(SELECT applied_at FROM schema_migrations WHERE version = 1) ORDER BY 1"
        ).fetchall()
    conn.close()
    expected = sorted(
        (p,)
        for p in (
            "review_monitor.watches",
            "review_monitor.marks",
            "review_monitor.outbox",
            "review_monitor.state",
            # A part newer than the old ledger (no ``legacy``) is created, not adopted.
            *(t.part for t in APP_TABLES if t.legacy is not None),
        )
    )
    assert expected == parts


def test_an_old_store_takes_a_release_request_without_a_new_table(old_store: Path) -> None:
    with open_sync_store(old_store) as db:
        request_release(db, PR, at=T0)
        assert [PR] == [r.pr for r in release_requests(db)]


def test_an_old_store_gets_the_inbox_deliveries_table_and_records_one(old_store: Path) -> None:
    with open_sync_store(old_store) as db:
        entry = db.entries()[0]
        with db.write(at=T0) as tx:
            delivered_to_inbox(entry.seq, entry.notice, host_id="h1", root="/inbox")(tx)
        assert [entry.seq] == [d.seq for d in untaken(db, "h1")]
