"""A short command against a PostgreSQL server that does not answer fails fast with its
one line (``COMMAND_CONNECT_TIMEOUT``), and nothing else reaches stderr: the pool's own
retry warnings stay quiet.  The daemon keeps the store's longer wait.

The server here is a closed port on the loopback (bound, then closed): every attempt to
connect is refused at once, so the wait is the pool's alone."""

from __future__ import annotations

import logging
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from comment_wake.cli import _common, main
from comment_wake.registry import Registry
from review_monitor._store._postgres import PostgresEngine

from .conftest import Fleet

pytest.importorskip("psycopg_pool")

PASSWORD = "pw-sentinel-never-shown"


@pytest.fixture(autouse=True)
def pool_logger_level() -> Iterator[None]:
    """The in-process commands quiet the pool's logger; the other tests get it back."""
    pool = logging.getLogger("psycopg.pool")
    level = pool.level
    yield
    pool.setLevel(level)


def _closed_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port


def _unreachable(tmp: Path) -> list[str]:
    """The location options of a host in ``tmp`` whose ``[store] url`` (a user, no
    password) names a closed port; its state directory holds a SQLite store (for
    ``store copy``)."""
    state = tmp / "state"
    Registry.open(state).close()
    config = tmp / "config.toml"
    url = f"postgresql://cw@127.0.0.1:{_closed_port()}/cw"
    config.write_text(f'[store]\nurl = "{url}"\n', encoding="utf-8")
    return ["--config", str(config), "--state-dir", str(state)]


@pytest.fixture
def unreachable(tmp_path: Path) -> list[str]:
    return _unreachable(tmp_path)


def _run(argv: list[str]) -> tuple[int, str, str, float]:
    """``comment-wake ARGV`` in a process of its own (so Python's last-resort handler,
    not pytest's, gets what a library logs), with a password in the environment: its
    status, stdout, stderr and how long it took."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("COMMENT_WAKE_")}
    env["PGPASSWORD"] = PASSWORD
    start = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "comment_wake", *argv],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    return done.returncode, done.stdout, done.stderr, time.monotonic() - start


@dataclass(frozen=True)
class Refused:
    """``comment-wake list`` run once, in a process of its own, against a host whose
    store server refuses it: its options, status, stdout, stderr and time."""

    options: list[str]
    code: int
    out: str
    err: str
    took: float


@pytest.fixture(scope="module")
def refused(tmp_path_factory: pytest.TempPathFactory) -> Refused:
    options = _unreachable(tmp_path_factory.mktemp("refused"))
    return Refused(options, *_run(["list", *options]))


def test_a_short_command_fails_within_seconds_when_the_store_server_does_not_answer(
    refused: Refused,
) -> None:
    # The pool's default wait, the daemon's, is 10 s; a command waits about 3.
    assert (1, True) == (refused.code, refused.took < 8), refused.took


def test_a_short_command_against_an_unreachable_store_prints_only_its_one_line(
    refused: Refused,
) -> None:
    url = Path(refused.options[1]).read_text(encoding="utf-8").split('"')[1]
    assert ("", 1, True, False) == (
        refused.out,
        len(refused.err.splitlines()),
        refused.err.startswith(f"comment-wake list: the PostgreSQL store {url} cannot be reached"),
        PASSWORD in refused.out + refused.err,
    ), refused.err


# Every command that opens the store, by the way it opens it, with the exit status of
# "the store cannot be reached" (doctor says it as its FAIL line).
COMMANDS = [
    ["status"],
    ["explain", "octo/repo#1", "IC_x"],
    ["unpark", "w-1"],
    ["doctor"],
    ["list"],
    ["unbind", "w-1"],
    ["bind", "w-1", "octo/repo#1", "--orchestrator", "o-1", "--inbox"],
    ["orchestrator", "add", "o-1", "--inbox"],
    ["poll", "octo/repo#1"],
    ["release", "octo/repo#1"],
]


@pytest.mark.parametrize("argv", COMMANDS, ids=[" ".join(c[:2]) for c in COMMANDS])
def test_every_short_command_waits_for_the_store_only_the_commands_timeout(
    argv: list[str],
    unreachable: list[str],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setattr(_common, "COMMAND_CONNECT_TIMEOUT", 0.3)
    start = time.monotonic()
    code = main([*argv, *unreachable])
    took = time.monotonic() - start
    out, err = capsys.readouterr()
    assert (1, True, True) == (code, "cannot be reached" in out + err, took < 3), (took, err)


def test_store_copy_waits_for_the_target_server_only_the_commands_timeout(
    unreachable: list[str],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setattr(_common, "COMMAND_CONNECT_TIMEOUT", 0.3)
    url = f"postgresql://cw@127.0.0.1:{_closed_port()}/cw"
    start = time.monotonic()
    code = main(["store", "copy", "--to", url, "--host-id", "h1", *unreachable])
    took = time.monotonic() - start
    err = capsys.readouterr().err
    assert (1, True, True) == (code, "cannot be reached" in err, took < 3), (took, err)


@pytest.mark.anyio
async def test_the_daemon_waits_for_the_store_server_the_stores_default_time(
    fleet: Fleet, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Only the short commands pass a timeout of their own: the daemon's connections (its
    # work connection, its lease's) wait the pool's default, through a failover.
    asked: list[float | None] = []
    real = PostgresEngine.open.__func__  # type: ignore[attr-defined]

    def spy(cls: type[PostgresEngine], *args: Any, **kwargs: Any) -> PostgresEngine:
        asked.append(kwargs.get("connect_timeout"))
        engine: PostgresEngine = real(cls, *args, **kwargs)
        return engine

    monkeypatch.setattr(PostgresEngine, "open", classmethod(spy))
    async with fleet.open():
        pass
    assert (True, {None}) == (len(asked) >= 1, set(asked))
