"""Delivered comments' outcomes are keyed by their PR's ``pr_key`` (``PrRef.key_text``), the
same text on every engine; a store written before the key keeps its rows under it."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from comment_wake.store import OUTCOMES, open_sync_store, outcomes
from review_monitor import PrRef
from review_monitor.store import SyncStore, Tables

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)

# A comment delivered before the key, on a PR spelled as GitHub spells it.
_V1_ROW = (
    "INSERT INTO comment_outcomes (subject_id, worker, host, repo, number, database_id, url, "
    "author, item_kind, seq, delivered_at, outcome, note, updated_at) VALUES ('IC_1', 'w1', "
    "'GitHub.com', 'Octo-Org/Octo-Repo', 12, 1, 'https://github.com/o/r/pull/12#c1', "
    "'alice', 'comment', 1, '2026-03-01T12:00:00.000000Z', 'done', '', "
    "'2026-03-01T12:00:00.000000Z')"
)


def _store_before_the_key(path: Path) -> None:
    """A store whose outcomes are at version 1, with one row."""
    first = Tables(OUTCOMES.part, OUTCOMES.migrations[:1])
    with SyncStore.open(path, tables=(first,)) as db, db.write(at=T0) as tx:
        tx.execute(_V1_ROW)


def test_an_old_stores_outcomes_are_found_by_their_pr_in_any_spelling(tmp_path: Path) -> None:
    path = tmp_path / "state.db"
    _store_before_the_key(path)
    with open_sync_store(path) as db:
        found = outcomes(db, pr=PrRef("octo-org", "OCTO-REPO", 12, host="github.com"))
    assert [("IC_1", "done", "Octo-Org/Octo-Repo")] == [
        (r.subject_id, r.outcome, r.repo) for r in found
    ]
