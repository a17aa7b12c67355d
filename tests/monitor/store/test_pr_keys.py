"""Watches and marks keyed by ``pr_key`` (``PrRef.key_text``): a store from before the
key opens with its rows, each keyed by its folded PR and spelled as it was."""

from __future__ import annotations

import sqlite3
from datetime import datetime
from pathlib import Path

from review_monitor import WATCH_TOOL, PrRef
from review_monitor._store._marks import MARKS
from review_monitor._store._schema import migrate
from review_monitor._store._sync import MONITOR_TABLES
from review_monitor._store._watches import WATCHES
from review_monitor.store import Mark, SyncStore, Tables, store_time

SPELLED = PrRef("Octo", "Repo", 7, host="GitHub.com")
TYPED = PrRef("octo", "REPO", 7)
ODD = PrRef("\u00d6rg", "K\u212ael", 3)  # letters beyond ASCII: GitHub's fold leaves them


def _before_pr_keys(path: Path, t0: datetime) -> None:
    """A store whose watches and marks are at the version before ``pr_key``."""
    older = {
        WATCHES.part: Tables(WATCHES.part, WATCHES.migrations[:3], legacy=WATCHES.legacy),
        MARKS.part: Tables(MARKS.part, MARKS.migrations[:2], legacy=MARKS.legacy),
    }
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        migrate(conn, [older.get(p.part, p) for p in MONITOR_TABLES], t0)
        for pr in (SPELLED, ODD):
            conn.execute(
                "INSERT INTO watches VALUES ('w1', ?, ?, ?, ?, ?, ?)",
                (pr.host, pr.owner, pr.name, pr.number, WATCH_TOOL, store_time(t0)),
            )
            conn.execute(
                "INSERT INTO marks VALUES (?, ?, ?, ?, 'l', 2, ?, ?)",
                (pr.host, pr.owner, pr.name, pr.number, f"mark of {pr}".encode(), store_time(t0)),
            )
    finally:
        conn.close()


def _rows(store: SyncStore, table: str) -> list[tuple[object, ...]]:
    with store.read() as tx:
        rows = tx.execute(
            f"SELECT pr_key, host, owner, name, number FROM {table} ORDER BY pr_key"
        ).fetchall()
    return [tuple(r) for r in rows]


def test_an_old_stores_watches_get_their_folded_key_and_keep_their_spelling(
    db_path: Path, t0: datetime
) -> None:
    db_path.parent.mkdir()
    _before_pr_keys(db_path, t0)
    with SyncStore.open(db_path) as store:
        assert [
            ("github.com/octo/repo#7", "GitHub.com", "Octo", "Repo", 7),
            (ODD.key_text, ODD.host, ODD.owner, ODD.name, ODD.number),
        ] == _rows(store, "watches")


def test_an_old_stores_marks_get_their_folded_key_and_keep_their_spelling(
    db_path: Path, t0: datetime
) -> None:
    db_path.parent.mkdir()
    _before_pr_keys(db_path, t0)
    with SyncStore.open(db_path) as store:
        assert [
            ("github.com/octo/repo#7", "GitHub.com", "Octo", "Repo", 7),
            (ODD.key_text, ODD.host, ODD.owner, ODD.name, ODD.number),
        ] == _rows(store, "marks")


def test_an_old_stores_rows_are_found_under_any_spelling_of_their_pr(
    db_path: Path, t0: datetime
) -> None:
    db_path.parent.mkdir()
    _before_pr_keys(db_path, t0)
    with SyncStore.open(db_path) as store:
        found = (
            store.watched_since("w1", TYPED),
            store.load_mark(TYPED, "l"),
            store.watched_since("w1", ODD),
            store.load_mark(ODD, "l"),
        )
    assert (t0, Mark(2, b"mark of Octo/Repo#7"), t0, Mark(2, f"mark of {ODD}".encode())) == found


def test_a_watch_is_added_once_whatever_its_spelling(store: SyncStore, t0: datetime) -> None:
    assert (True, False, ["Octo/Repo#7"]) == (
        store.add_watch("w1", SPELLED, at=t0),
        store.add_watch("w1", TYPED, at=t0),
        [str(w.pr) for w in store.watches()],
    )


def test_respelling_changes_the_spelling_of_each_watch_of_the_pr_once(
    store: SyncStore, t0: datetime
) -> None:
    store.add_watch("w1", TYPED, at=t0)
    store.add_watch("w2", SPELLED, at=t0)
    first = store.respell(SPELLED, at=t0)
    assert (1, 0, ["Octo/Repo#7", "Octo/Repo#7"]) == (
        first,
        store.respell(SPELLED, at=t0),
        [str(w.pr) for w in store.watches()],
    )


def test_a_mark_written_under_another_spelling_replaces_it_and_takes_that_spelling(
    store: SyncStore, t0: datetime
) -> None:
    store.commit(TYPED, "l", mark=Mark(1, b"one"), at=t0)
    store.commit(SPELLED, "l", mark=Mark(2, b"two"), at=t0)
    assert ((SPELLED,), "Octo/Repo#7", Mark(2, b"two")) == (
        store.marked_prs("l"),
        str(store.marked_prs("l")[0]),
        store.load_mark(TYPED, "l"),
    )
