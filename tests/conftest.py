"""Shared fixtures.  ``shared_dir`` gives ``../shared/`` or skips (fails under CI);
``store_fault`` makes SQLite refuse writes as a read-only store or a full disk does;
``write_txs`` records what each write transaction did, in order (its locks, its
statements).  ``postgres_server``, ``postgres_url`` and ``empty_postgres_url`` (from
``_postgres.py``) give a real PostgreSQL server and, on it, a schema of the test's own
holding a migrated empty store (reset and reused between tests) or holding nothing, or skip
(fail with ``COMMENT_WAKE_REQUIRE_POSTGRES=1``); ``any_store`` and its kin
(``_stores.py``) give a store once on each engine."""

from __future__ import annotations

import os
import re
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

# Hypothesis: no per-example deadline on a shared 2-core machine; derandomised under CI so a
# run is reproducible.  Individual tests set their own max_examples.
settings.register_profile("default", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile(
    "ci", deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("ci" if os.environ.get("CI") else "default")

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"
REAL_CLIENTS = Path(__file__).resolve().parent / "real_clients"

# The PostgreSQL fixtures and the stores on both engines live in tests/_postgres.py and
# tests/_stores.py, importable from here.
sys.path.insert(0, str(Path(__file__).resolve().parent))
pytest_plugins = ["_postgres", "_stores"]

from _notice_limit import check_notices_fit_a_hook  # noqa: E402


def pytest_report_header(config: pytest.Config) -> list[str]:
    """One line per real CLI the ``real_client`` suite found, with its version."""
    sys.path.insert(0, str(REAL_CLIENTS))
    import realclient_cli

    return realclient_cli.header_lines()


@pytest.fixture(autouse=True)
def _notices_fit_a_hook(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every notice enqueued in a test fits ``NOTICE_TEXT_LIMIT`` (issue 25, item 2): the
    outbox's one insert refuses a longer one.  A test that enqueues one on purpose (an old
    store's oversize notice) is marked ``oversize_notice``."""
    if request.node.get_closest_marker("oversize_notice") is None:
        check_notices_fit_a_hook(monkeypatch)


@pytest.fixture
def shared_dir() -> Path:
    """The project's reference data beside the clone; absent in a user's clone."""
    if SHARED.is_dir():
        return SHARED
    reason = f"{SHARED} is absent (it holds reference data beside a developer's clone)"
    if os.environ.get("COMMENT_WAKE_REQUIRE_SHARED") == "1":
        pytest.fail(f"COMMENT_WAKE_REQUIRE_SHARED=1 but {reason}")
    pytest.skip(reason)


@pytest.fixture
def anyio_backend() -> str:
    """Async tests run on asyncio only."""
    return "asyncio"


@pytest.fixture
def repo_root() -> Path:
    return REPO


_FAULT_MESSAGES: dict[int, tuple[str, str]] = {
    sqlite3.SQLITE_READONLY: ("SQLITE_READONLY", "attempt to write a readonly database"),
    sqlite3.SQLITE_FULL: ("SQLITE_FULL", "database or disk is full"),
}
_WRITE_SQL = re.compile(r"\s*(INSERT|UPDATE|DELETE|REPLACE|CREATE|DROP|ALTER)\b", re.IGNORECASE)


class StoreFault:
    """Makes SQLite refuse writes the way a read-only file or a full disk does: while
    ``code`` is set (``sqlite3.SQLITE_READONLY``, ``sqlite3.SQLITE_FULL``), every write
    statement on a connection opened after the fixture raises the ``OperationalError``
    SQLite raises then, with its result code and name.  Root can neither chmod a store
    read-only nor fill a disk here; reads go on as SQLite's would."""

    def __init__(self) -> None:
        self.code: int | None = None
        self.raised = 0

    def error(self) -> sqlite3.OperationalError:
        assert self.code is not None
        name, message = _FAULT_MESSAGES[self.code]
        exc = sqlite3.OperationalError(message)
        exc.sqlite_errorcode = self.code
        exc.sqlite_errorname = name
        return exc

    def check(self, sql: str) -> None:
        if self.code is not None and _WRITE_SQL.match(sql):
            self.raised += 1
            raise self.error()


@pytest.fixture
def store_fault(monkeypatch: pytest.MonkeyPatch) -> StoreFault:
    """A ``StoreFault`` wired into every SQLite connection opened from now on."""
    fault = StoreFault()

    class Connection(sqlite3.Connection):
        def execute(self, sql: str, parameters: Any = (), /) -> sqlite3.Cursor:
            fault.check(sql)
            return super().execute(sql, parameters)

    real_connect = sqlite3.connect

    def connect(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        kwargs.setdefault("factory", Connection)
        conn: sqlite3.Connection = real_connect(*args, **kwargs)
        return conn

    monkeypatch.setattr(sqlite3, "connect", connect)
    return fault


@pytest.fixture
def checkout(tmp_path: Path) -> tuple[Path, str]:
    """A real git checkout with one commit (``widget.py``): its folder and HEAD, for the
    review tool, which reads HEAD there."""
    repo = tmp_path / "checkout"
    repo.mkdir()
    env = {"GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@example.com", "HOME": str(tmp_path)}
    env |= {"GIT_COMMITTER_NAME": "a", "GIT_COMMITTER_EMAIL": "a@example.com"}

    def git(*args: str) -> str:
        done = subprocess.run(
            ["git", "-C", str(repo), *args], env=env, capture_output=True, text=True, check=True
        )
        return done.stdout.strip()

    git("init", "-q")
    (repo / "widget.py").write_text("print('widget')\n", encoding="utf-8")
    git("add", ".")
    git("commit", "-qm", "the widget")
    return repo, git("rev-parse", "HEAD")


@pytest.fixture
def write_txs(monkeypatch: pytest.MonkeyPatch) -> list[list[tuple[str, str]]]:
    """Every write transaction begun from now on, as its events in order:
    ``("lock", name)`` for each ``WriteTx.lock`` and ``("sql", VERB)`` for each
    statement (``SELECT``, ``INSERT``...).  On SQLite a lock costs nothing, so this is how
    a test sees that a check-then-write takes its lock before its first read."""
    from collections.abc import Iterator
    from contextlib import contextmanager
    from datetime import datetime

    from review_monitor._store import _db

    txs: list[list[tuple[str, str]]] = []
    write = _db.Database.write
    execute = _db.ReadTx.execute
    lock = _db.WriteTx.lock

    @contextmanager
    def recorded(self: _db.Database, *, at: datetime) -> Iterator[_db.WriteTx]:
        with write(self, at=at) as tx:
            tx._events = []  # type: ignore[attr-defined]
            txs.append(tx._events)  # type: ignore[attr-defined]
            yield tx

    def recorded_execute(self: _db.ReadTx, sql: str, args: Any = ()) -> Any:
        events = getattr(self, "_events", None)
        if events is not None:
            events.append(("sql", sql.split(None, 1)[0].upper()))
        return execute(self, sql, args)

    def recorded_lock(self: _db.WriteTx, name: str) -> None:
        events = getattr(self, "_events", None)
        if events is not None:
            events.append(("lock", name))
        lock(self, name)

    monkeypatch.setattr(_db.Database, "write", recorded)
    monkeypatch.setattr(_db.ReadTx, "execute", recorded_execute)
    monkeypatch.setattr(_db.WriteTx, "lock", recorded_lock)
    return txs
