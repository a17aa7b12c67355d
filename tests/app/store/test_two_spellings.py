"""A store an earlier build left with one pull request in two letter cases: two live
workers (``bind w1 octo/repo#1`` then ``bind w2 Octo/Repo#1``), their watches, two marks
and two decision namespaces.  It opens migrated, with the marks and records folded, but
refuses every command but the fix until one worker is let go."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import msgspec
import pytest

from comment_wake.cli import main
from comment_wake.registry import InboxSpec, WorkerRecord
from comment_wake.store import TwoSpellingsError, open_sync_store, records_under
from review_monitor import PrRef

OLD = Path(__file__).resolve().parents[3] / "fixtures" / "stores" / "v5.sql"
LOWER = PrRef("octo", "repo", 1)
UPPER = PrRef("Octo", "Repo", 1)
REFUSAL = (
    "the state store binds one pull request under two spellings: worker w1 to octo/repo#1 "
    "and worker w2 to Octo/Repo#1; GitHub's names are case-insensitive, so keep one: run "
    "`comment-wake unbind w2` (or `comment-wake archive w2`)"
)


def _worker(worker: str, pr: PrRef) -> bytes:
    return msgspec.json.encode(
        WorkerRecord(worker=worker, pr=pr, orchestrator="o1", publisher=InboxSpec())
    )


@pytest.fixture
def split_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``STATE/state.db`` in the schema before the fold (the v5 fixture), holding what
    that build wrote for ``w1`` on ``octo/repo#1`` and ``w2`` on ``Octo/Repo#1``."""
    for name in ("COMMENT_WAKE_STATE_DIR", "COMMENT_WAKE_CONFIG", "XDG_STATE_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config-home"))
    path = tmp_path / "state" / "state.db"
    path.parent.mkdir()
    at, later = "2026-03-01T12:00:00.000000Z", "2026-03-01T12:05:00.000000Z"
    with sqlite3.connect(path) as conn:
        conn.executescript(OLD.read_text(encoding="utf-8"))
        conn.execute("DELETE FROM watches")
        conn.execute("DELETE FROM marks")
        conn.execute("DELETE FROM app_records WHERE namespace = 'comment-wake/workers'")
        for worker, pr, stamp in (("w1", LOWER, at), ("w2", UPPER, later)):
            conn.execute(
                "INSERT INTO watches VALUES (?, 'github.com', ?, ?, 1, 'pr_review_monitor', ?)",
                (worker, pr.owner, pr.name, stamp),
            )
            conn.execute(
                "INSERT INTO marks VALUES ('github.com', ?, ?, 1, 'comment-wake', 1, ?, ?)",
                (pr.owner, pr.name, f"mark of {worker}".encode(), stamp),
            )
            conn.execute(
                "INSERT INTO app_records VALUES ('comment-wake/workers', ?, ?, ?)",
                (worker, _worker(worker, pr), stamp),
            )
            conn.execute(
                "INSERT INTO app_records VALUES (?, ?, ?, ?)",
                (f"comment-wake/decisions/github.com/{pr}", f"IC_{worker}/t/wake", b"{}", stamp),
            )
    conn.close()
    return path


def test_a_store_holding_one_pr_in_two_spellings_refuses_to_open_naming_both(
    split_store: Path,
) -> None:
    with pytest.raises(TwoSpellingsError) as caught:
        open_sync_store(split_store)
    assert REFUSAL == str(caught.value)


def test_its_marks_fold_into_the_one_written_last(split_store: Path) -> None:
    with open_sync_store(split_store, check_spellings=False) as db:
        assert ((UPPER,), b"mark of w2") == (
            db.marked_prs("comment-wake"),
            getattr(db.load_mark(LOWER, "comment-wake"), "blob", None),
        )


def test_its_decision_records_move_to_the_folded_namespace(split_store: Path) -> None:
    with open_sync_store(split_store, check_spellings=False) as db:
        found = [(ns, key) for ns, key, _ in records_under(db, "comment-wake/decisions/")]
    assert [
        ("comment-wake/decisions/github.com/octo/repo#1", "IC_w1/t/wake"),
        ("comment-wake/decisions/github.com/octo/repo#1", "IC_w2/t/wake"),
    ] == found


def test_a_command_on_such_a_store_prints_the_one_line_and_exits_1(
    split_store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["status", "--state-dir", str(split_store.parent)])
    assert (1, f"comment-wake status: {REFUSAL}\n") == (code, capsys.readouterr().err)


def test_the_command_the_refusal_names_fixes_the_store(
    split_store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    where = ["--state-dir", str(split_store.parent)]
    codes = (main(["list", *where]), main(["unbind", "w2", *where]), main(["status", *where]))
    capsys.readouterr()
    assert (0, 0, 0) == codes
