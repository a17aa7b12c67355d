"""Worker ids and re-binding (issue 25, item 14): a new id may not start with ``-`` (a
command line reads it as an option), an old one stays usable; moving a worker to another
PR says the old one is no longer watched."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import msgspec
import pytest

from comment_wake.cli import main
from comment_wake.registry import WORKERS, InboxSpec, Registry, WorkerRecord
from comment_wake.store import open_sync_store, put_record
from review_monitor import PrRef
from review_monitor.store import add_watch

T0 = datetime(2026, 12, 1, tzinfo=UTC)


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def state(state_dir: Path, capsys: pytest.CaptureFixture[str]) -> list[str]:
    where = ["--state-dir", str(state_dir)]
    assert 0 == _run(capsys, "orchestrator", "add", "o1", "--inbox", *where)[0]
    return where


def test_a_new_worker_id_starting_with_a_dash_is_refused(
    capsys: pytest.CaptureFixture[str], state: list[str]
) -> None:
    code, _, err = _run(
        capsys, "bind", *state, "--orchestrator", "o1", "--inbox", "--", "-w", "octo/repo#1"
    )
    assert (2, 1, True) == (code, len(err.splitlines()), "starts with '-'" in err)


def test_a_new_orchestrator_id_starting_with_a_dash_is_refused(
    capsys: pytest.CaptureFixture[str], state: list[str]
) -> None:
    code, _, err = _run(capsys, "orchestrator", "add", "--inbox", *state, "--", "-o")
    assert (2, True) == (code, "starts with '-'" in err)


def test_a_worker_id_starting_with_a_dash_from_before_stays_usable(
    capsys: pytest.CaptureFixture[str], state: list[str], state_dir: Path
) -> None:
    pr = PrRef("octo", "repo", 1)
    record = WorkerRecord(worker="-w", pr=pr, orchestrator="o1", publisher=InboxSpec())
    with open_sync_store(state_dir / "state.db") as db, db.write(at=T0) as tx:
        put_record(tx, WORKERS, "-w", msgspec.json.encode(record))
        add_watch(tx, "-w", pr)
    code, out, _ = _run(capsys, "unbind", *state, "--", "-w")
    assert (0, True) == (code, "unbound -w" in out)


def test_rebinding_a_worker_to_another_pr_says_the_old_one_is_no_longer_watched(
    capsys: pytest.CaptureFixture[str], state: list[str]
) -> None:
    bind = ("bind", "w1", "--orchestrator", "o1", "--inbox", *state)
    assert 0 == _run(capsys, *bind, "octo/repo#1")[0]
    code, out, _ = _run(capsys, *bind, "octo/repo#2")
    assert (0, True) == (
        code,
        "octo/repo#1 is no longer watched: w1 moved to octo/repo#2" in out,
    )


def test_rebinding_a_worker_to_the_same_pr_says_nothing_of_a_move(
    capsys: pytest.CaptureFixture[str], state: list[str]
) -> None:
    bind = ("bind", "w1", "octo/repo#1", "--orchestrator", "o1", "--inbox", *state)
    assert 0 == _run(capsys, *bind)[0]
    code, out, _ = _run(capsys, *bind)
    assert (0, False) == (code, "no longer watched" in out)


def test_the_registry_refuses_a_new_dash_id_too(state_dir: Path) -> None:
    from comment_wake.registry import RegistryError

    with Registry.open(state_dir) as registry:
        registry.add_orchestrator("o1", InboxSpec())
        with pytest.raises(RegistryError, match="starts with '-'"):
            registry.bind("-x", "octo/repo#3", orchestrator="o1", publisher=InboxSpec())
