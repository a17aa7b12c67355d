"""Everyday failures through ``cli.main``: one line on stderr that says what to fix, exit 1
or 2, never a traceback; the store is never created by a command that only reads, and
never silently replaced."""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from comment_wake.cli import main
from comment_wake.cli._errors import failure_line
from comment_wake.registry import InboxSpec, Registry
from review_monitor import StoreLockedError

TOKEN = "ghp_FailureSentinel0123456789abcdefghijk"


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _bound(state: Path) -> None:
    with Registry.open(state) as registry:
        registry.add_orchestrator("o1", InboxSpec())
        registry.bind("w1", "octo/repo#7", orchestrator="o1", publisher=InboxSpec())


@pytest.fixture
def quiet_root_logger() -> Iterator[None]:
    """``run`` configures the root logger; put it back afterwards."""
    root = logging.getLogger()
    handlers, filters, level = list(root.handlers), list(root.filters), root.level
    yield
    root.handlers[:], root.filters[:] = handlers, filters
    root.setLevel(level)


@pytest.fixture
def token(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("GH_TOKEN", TOKEN)
    return TOKEN


@pytest.fixture
def unreachable_api(tmp_path: Path) -> Path:
    """A configuration whose API is a loopback port nothing listens on: a ``run`` that
    fails before its first request never notices."""
    config = tmp_path / "unreachable.toml"
    config.write_text('[github]\napi_url = "http://127.0.0.1:9"\ntimeout = "1s"\n')
    return config


# -- the boundary ---------------------------------------------------------------------------


def test_version_prints_each_package_on_its_own_line(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    out = capsys.readouterr().out
    names = [line.split()[0] for line in out.splitlines()]
    assert (0, ["comment-wake", "pr-review-monitor", "untrusted-fence"]) == (
        stop.value.code,
        names,
    )


def test_an_expected_error_inside_nested_exception_groups_is_its_own_line() -> None:
    locked = StoreLockedError("another comment-wake daemon (process 42) owns the state store")
    group = ExceptionGroup("outer", [ExceptionGroup("inner", [locked])])
    assert (str(locked), 1) == failure_line(group)


def test_a_group_that_also_holds_a_bug_is_not_an_expected_failure() -> None:
    group = ExceptionGroup("g", [StoreLockedError("locked"), RuntimeError("a bug")])
    assert None is failure_line(group)


def test_a_bug_keeps_its_traceback(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(_args: Any) -> int:
        raise ExceptionGroup("tasks", [ZeroDivisionError("a bug")])

    monkeypatch.setattr("comment_wake.cli._transcripts._scan", broken)
    with pytest.raises(ExceptionGroup):
        main(["transcripts", "scan", "x"])


def test_ctrl_c_in_a_command_is_exit_130_without_a_traceback(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def interrupted(_args: Any) -> int:
        raise KeyboardInterrupt

    monkeypatch.setattr("comment_wake.cli._transcripts._scan", interrupted)
    assert (130, "") == (main(["transcripts", "scan", "x"]), capsys.readouterr().err)


# -- a store that is missing, empty or damaged ----------------------------------------------

READ_ONLY_COMMANDS = [
    ["list"],
    ["status"],
    ["explain", "octo/repo#7", "IC_1"],
    ["unpark", "w1"],
    ["unbind", "w1"],
    ["archive", "w1"],
    ["orchestrator", "remove", "o1"],
    ["inbox", "take", "w1"],
]


@pytest.mark.parametrize("argv", READ_ONLY_COMMANDS, ids=lambda a: " ".join(a[:2]))
def test_a_command_that_only_reads_never_creates_a_store(
    capsys: pytest.CaptureFixture[str], state_dir: Path, argv: list[str]
) -> None:
    code, _, err = _run(capsys, *argv, "--state-dir", str(state_dir))
    assert (1, 1, True, False) == (
        code,
        len(err.splitlines()),
        f"no state store at {state_dir / 'state.db'}" in err,
        state_dir.exists(),
    )


def test_an_empty_state_db_is_refused_with_a_recovery_hint_and_left_alone(
    capsys: pytest.CaptureFixture[str], state_dir: Path
) -> None:
    state_dir.mkdir()
    (state_dir / "state.db").write_bytes(b"")
    code, _, err = _run(capsys, "list", "--state-dir", str(state_dir))
    assert (1, 1, True, True, 0) == (
        code,
        len(err.splitlines()),
        "is empty (0 bytes)" in err,
        "restore state.db from a backup, or move it aside" in err,
        (state_dir / "state.db").stat().st_size,
    )


def test_bind_on_an_empty_state_db_refuses_too(
    capsys: pytest.CaptureFixture[str], state_dir: Path
) -> None:
    state_dir.mkdir()
    (state_dir / "state.db").write_bytes(b"")
    code, _, err = _run(
        capsys, "orchestrator", "add", "o1", "--inbox", "--state-dir", str(state_dir)
    )
    assert (1, True) == (code, "is empty (0 bytes)" in err)


@pytest.mark.parametrize(
    "argv",
    [["status"], ["explain", "octo/repo#7", "IC_1"], ["list"]],
    ids=lambda a: a[0],
)
def test_a_damaged_store_is_one_line_naming_it_with_a_recovery_hint(
    capsys: pytest.CaptureFixture[str], state_dir: Path, argv: list[str]
) -> None:
    state_dir.mkdir()
    (state_dir / "state.db").write_bytes(b"this is not a database\n" * 200)
    code, _, err = _run(capsys, *argv, "--state-dir", str(state_dir))
    assert (1, 1, True, True) == (
        code,
        len(err.splitlines()),
        f"the state store {state_dir / 'state.db'} is damaged or not a SQLite database" in err,
        "move it aside" in err,
    )


def test_run_on_a_damaged_store_is_one_line_and_exit_1(
    capsys: pytest.CaptureFixture[str],
    state_dir: Path,
    token: str,
    unreachable_api: Path,
    quiet_root_logger: None,
) -> None:
    state_dir.mkdir()
    (state_dir / "state.db").write_bytes(b"this is not a database\n" * 200)
    code, _, err = _run(
        capsys, "run", "--config", str(unreachable_api), "--state-dir", str(state_dir)
    )
    lines = [line for line in err.splitlines() if line.startswith("comment-wake run:")]
    assert (1, 1, "Traceback" in err) == (code, len(lines), False)


# -- a read-only store, a full disk (SQLite's own result codes, from the wrapper) ----------


def test_status_on_a_read_only_store_says_so_in_one_line(
    capsys: pytest.CaptureFixture[str], state_dir: Path, store_fault: Any
) -> None:
    _bound(state_dir)
    store_fault.code = sqlite3.SQLITE_READONLY
    code, _, err = _run(capsys, "status", "--state-dir", str(state_dir))
    assert (1, 1, True) == (
        code,
        len(err.splitlines()),
        "the state store is read-only" in err and "(SQLITE_READONLY)" in err,
    )


def test_bind_on_a_read_only_store_says_so_in_one_line(
    capsys: pytest.CaptureFixture[str], state_dir: Path, store_fault: Any
) -> None:
    _bound(state_dir)
    store_fault.code = sqlite3.SQLITE_READONLY
    code, _, err = _run(
        capsys, "orchestrator", "add", "o2", "--inbox", "--state-dir", str(state_dir)
    )
    assert (1, 1, True) == (code, len(err.splitlines()), "is read-only" in err)


def test_run_on_a_read_only_store_says_so_in_one_line(
    capsys: pytest.CaptureFixture[str],
    state_dir: Path,
    store_fault: Any,
    token: str,
    unreachable_api: Path,
    quiet_root_logger: None,
) -> None:
    _bound(state_dir)
    store_fault.code = sqlite3.SQLITE_READONLY
    code, _, err = _run(
        capsys, "run", "--config", str(unreachable_api), "--state-dir", str(state_dir)
    )
    lines = [line for line in err.splitlines() if line.startswith("comment-wake run:")]
    assert (1, 1, True) == (code, len(lines), "is read-only" in lines[0])


def test_run_on_a_state_db_sqlite_opens_read_only_stops_in_one_line(
    capsys: pytest.CaptureFixture[str],
    state_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
    token: str,
    unreachable_api: Path,
    quiet_root_logger: None,
) -> None:
    # A state.db the user cannot write, in a directory they can: SQLite opens it
    # read-only without a word (root cannot chmod one here: the connection is opened
    # read-only instead).  The daemon used to stay up, failing every round's writes.
    _bound(state_dir)
    real_connect = sqlite3.connect

    def read_only(path: Any, *args: Any, **kwargs: Any) -> sqlite3.Connection:
        conn: sqlite3.Connection = real_connect(f"file:{path}?mode=ro", *args, uri=True, **kwargs)
        return conn

    monkeypatch.setattr(sqlite3, "connect", read_only)
    code, _, err = _run(
        capsys, "run", "--config", str(unreachable_api), "--state-dir", str(state_dir)
    )
    lines = [line for line in err.splitlines() if line.startswith("comment-wake run:")]
    assert (1, 1, True) == (code, len(lines), "(SQLITE_READONLY)" in lines[0])


def test_a_write_on_a_full_disk_says_the_disk_is_full_and_loses_nothing(
    capsys: pytest.CaptureFixture[str], state_dir: Path, store_fault: Any
) -> None:
    _bound(state_dir)
    store_fault.code = sqlite3.SQLITE_FULL
    code, _, err = _run(capsys, "archive", "w1", "--state-dir", str(state_dir))
    store_fault.code = None
    with Registry.open(state_dir) as registry:
        record = registry.worker("w1")
    assert (1, 1, True, False) == (
        code,
        len(err.splitlines()),
        "the disk is full" in err and "nothing was lost" in err,
        record is not None and record.archived,
    )


# -- configuration and the state directory --------------------------------------------------


def test_an_invalid_api_url_is_one_line_naming_the_key_exit_2(
    capsys: pytest.CaptureFixture[str], state_dir: Path, tmp_path: Path, token: str
) -> None:
    config = tmp_path / "c.toml"
    config.write_text('[github]\napi_url = "localhost:8080"\n')
    code, _, err = _run(capsys, "run", "--config", str(config), "--state-dir", str(state_dir))
    assert (2, True, False) == (code, "`api_url` in [github]" in err, "Traceback" in err)


def test_a_directory_given_as_the_config_file_says_so(
    capsys: pytest.CaptureFixture[str], state_dir: Path, tmp_path: Path
) -> None:
    code, _, err = _run(capsys, "list", "--config", str(tmp_path), "--state-dir", str(state_dir))
    assert (2, True) == (code, "is a directory, not a file" in err)


def test_a_file_given_as_the_state_directory_says_so(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, state_dir: Path
) -> None:
    where = tmp_path / "a-file"
    where.write_text("x")
    code, _, err = _run(capsys, "bind", "w1", "octo/repo#7", "--orchestrator", "o1", "--inbox",
                        "--state-dir", str(where))  # fmt: skip
    assert (2, 1, True) == (code, len(err.splitlines()), "is a file, not a directory" in err)


@pytest.mark.parametrize(
    ("table", "line", "key"),
    [
        ("monitor", 'batch_size = "74"', "batch_size"),
        ("monitor", 'budget_share = "0.5"', "budget_share"),
        ("webhook", 'enabled = "true"', "enabled"),
        ("wake", "wakes_per_hour = 6.0", "wakes_per_hour"),
    ],
)
def test_a_value_of_the_wrong_type_is_an_error_naming_the_key(
    capsys: pytest.CaptureFixture[str],
    state_dir: Path,
    tmp_path: Path,
    table: str,
    line: str,
    key: str,
) -> None:
    config = tmp_path / "c.toml"
    config.write_text(f"[{table}]\n{line}\n")
    code, _, err = _run(capsys, "status", "--config", str(config), "--state-dir", str(state_dir))
    assert (2, True) == (code, f"`{key}` in [{table}]: must be" in err)


def test_durations_stay_strings(
    capsys: pytest.CaptureFixture[str], state_dir: Path, tmp_path: Path
) -> None:
    _bound(state_dir)
    config = tmp_path / "c.toml"
    config.write_text('[monitor]\npoll_interval = "90s"\nbatch_size = 50\nbudget_share = 1\n')
    code, _, _ = _run(capsys, "status", "--config", str(config), "--state-dir", str(state_dir))
    assert 0 == code


# -- unpark ------------------------------------------------------------------------------


def test_unpark_of_an_unknown_id_exits_2(
    capsys: pytest.CaptureFixture[str], state_dir: Path
) -> None:
    _bound(state_dir)
    code, out, err = _run(capsys, "unpark", "nobody", "--state-dir", str(state_dir))
    assert (2, "", True) == (code, out, "no worker or orchestrator 'nobody'" in err)


def test_unpark_of_a_registered_worker_exits_0(
    capsys: pytest.CaptureFixture[str], state_dir: Path
) -> None:
    _bound(state_dir)
    code, out, _ = _run(capsys, "unpark", "w1", "--state-dir", str(state_dir))
    assert (0, "0 parked notice(s) of w1 are queued again\n") == (code, out)
