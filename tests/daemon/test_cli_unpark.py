"""``comment-wake unpark``: a refused (parked) notice goes back into its worker's queue."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from comment_wake.cli import main
from comment_wake.registry import InboxSpec, Registry
from comment_wake.store import open_sync_store
from review_monitor import Notice, NoticePr, PrRef, notice_key

PR = PrRef.parse("octo-org/octo-repo#12")
T0 = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)


def _parked_notice(state_dir: Path) -> int:
    with Registry.open(state_dir) as registry:
        registry.add_orchestrator("o-1", InboxSpec())
        registry.bind("w-1", PR, orchestrator="o-1", publisher=InboxSpec())
    store = open_sync_store(state_dir / "state.db")
    try:
        notice = Notice(
            version=1,
            kind="comment-wake",
            key=notice_key("w-1", PR, "comment-wake", ["IC_1"]),
            worker="w-1",
            pr=NoticePr(host=PR.host, repo=PR.repo, number=PR.number, url="u", title="t"),
            items=(),
            text="Comment from @alice.",
            created_at=T0,
        )
        (seq,) = store.enqueue([notice], at=T0)
        store.park(seq, at=T0, detail="refused: no such command")
        return seq
    finally:
        store.close()


def _empty(tmp_path: Path) -> str:
    config = tmp_path / "config.toml"
    config.write_text("")
    return str(config)


def _status_of(state_dir: Path, seq: int) -> str:
    store = open_sync_store(state_dir / "state.db")
    try:
        entry = store.entry(seq)
        assert entry is not None
        return str(entry.status)
    finally:
        store.close()


def test_unpark_puts_a_workers_parked_notice_back_in_its_queue(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    seq = _parked_notice(tmp_path)
    code = main(["unpark", "w-1", "--state-dir", str(tmp_path), "--config", _empty(tmp_path)])
    assert (0, "pending", "1 parked notice(s) of w-1 are queued again\n") == (
        code,
        _status_of(tmp_path, seq),
        capsys.readouterr().out,
    )


def test_unpark_without_a_store_says_where_it_looked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["unpark", "w-1", "--state-dir", str(tmp_path), "--config", _empty(tmp_path)])
    assert (1, True) == (code, "no state store at" in capsys.readouterr().err)
