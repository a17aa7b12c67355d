"""A real PostgreSQL server for the tests (issue 28), as a pytest plugin loaded by
``tests/conftest.py``.

``postgres_server`` (session) runs ``initdb`` and ``pg_ctl`` from PATH, else from the highest
``/usr/lib/postgresql/*/bin``, in a temporary directory of its own, and serves on 127.0.0.1 at
a free port until the session ends.  ``postgres_url`` (per test) makes a fresh empty schema
``t_<n>`` and gives a URL whose connections see only it (``search_path``), dropping it after.

Without a server the tests that use them skip, saying why; with
``COMMENT_WAKE_REQUIRE_POSTGRES=1`` (``.ci/run`` sets it) they fail instead.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import pwd
import re
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, NoReturn

import pytest

__all__ = [
    "REQUIRE_VARIABLE",
    "PostgresServer",
    "find_bin_dir",
    "fresh_schema",
    "on_missing_server",
    "postgres_server",
    "postgres_url",
    "running_server",
    "schema_url",
]

REQUIRE_VARIABLE = "COMMENT_WAKE_REQUIRE_POSTGRES"
USER = "cw"  # the cluster's superuser (initdb -U), the one the tests connect as
DATABASE = "postgres"
# The unprivileged account that runs initdb and pg_ctl when the tests run as root: both
# refuse to run as root.
SERVICE_ACCOUNT = "postgres"
DEBIAN_ROOT = Path("/usr/lib/postgresql")
_TOOLS = ("initdb", "pg_ctl")
_START_ATTEMPTS = 3  # a free port can be taken between choosing it and the server binding it


@dataclass(frozen=True)
class PostgresServer:
    """A running server: ``url`` reaches its ``postgres`` database as the superuser ``cw``."""

    host: str
    port: int
    user: str
    database: str
    bin_dir: Path
    directory: Path  # the cluster's temporary directory; also the unix socket's
    startup_s: float  # initdb + start, measured

    @property
    def url(self) -> str:
        return f"postgresql://{self.user}@{self.host}:{self.port}/{self.database}"


def schema_url(server_url: str, schema: str) -> str:
    """``server_url`` with libpq's ``options`` setting ``search_path`` to ``schema`` alone:
    every connection made from it creates and finds its tables there."""
    if not re.fullmatch(r"[a-z_][a-z0-9_]*", schema):
        raise ValueError(f"not a plain schema name: {schema!r}")
    # ``-csearch_path=SCHEMA``, percent-encoded: ``=`` is %3D inside a URL's query value.
    return f"{server_url}?options=-csearch_path%3D{schema}"


def on_missing_server(environ: Mapping[str, str]) -> Literal["skip", "fail"]:
    """What a test that needs the server does without one: skip, or fail when
    ``COMMENT_WAKE_REQUIRE_POSTGRES=1`` says the server must be there (CI)."""
    return "fail" if environ.get(REQUIRE_VARIABLE) == "1" else "skip"


def _unavailable(reason: str) -> NoReturn:
    if on_missing_server(os.environ) == "fail":
        pytest.fail(f"{REQUIRE_VARIABLE}=1 but {reason}")
    pytest.skip(reason)


def _version_key(path: Path) -> tuple[int, ...]:
    """``/usr/lib/postgresql/15`` -> (15,); a name that is no version sorts first."""
    try:
        return tuple(int(part) for part in path.name.split("."))
    except ValueError:
        return ()


def find_bin_dir(path: str | None, debian_root: Path = DEBIAN_ROOT) -> Path | None:
    """The directory of ``initdb`` and ``pg_ctl``: where PATH (``path``) finds both, else the
    highest version's ``bin`` under ``debian_root`` (Debian's packages do not put them on
    PATH); None when neither has them."""
    found = [shutil.which(tool, path=path) for tool in _TOOLS]
    if all(found):
        directories = {Path(tool).parent for tool in found if tool is not None}
        if len(directories) == 1:
            return directories.pop()
    candidates = sorted(
        (d / "bin" for d in debian_root.glob("*") if _version_key(d)),
        key=lambda b: _version_key(b.parent),
        reverse=True,
    )
    for candidate in candidates:
        if all(os.access(candidate / tool, os.X_OK) for tool in _TOOLS):
            return candidate
    return None


def pytest_report_header(config: pytest.Config) -> str:
    """One line: the PostgreSQL the ``postgres_server`` fixture would run, or why none."""
    bin_dir = find_bin_dir(os.environ.get("PATH"), DEBIAN_ROOT)
    if bin_dir is None:
        return f"postgres: none found on PATH nor in {DEBIAN_ROOT}/*/bin"
    try:
        done = subprocess.run(
            [str(bin_dir / "pg_ctl"), "--version"],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"postgres: {bin_dir / 'pg_ctl'} does not run ({exc})"
    return f"postgres: {done.stdout.strip()} ({bin_dir})"


def _account_prefix() -> list[str]:
    """The command prefix that runs initdb and pg_ctl unprivileged: none for a user, and
    ``runuser -u postgres --`` for root."""
    if os.geteuid() != 0:
        return []
    try:
        pwd.getpwnam(SERVICE_ACCOUNT)
    except KeyError:
        _unavailable(
            f"the tests run as root and there is no {SERVICE_ACCOUNT!r} user to run initdb and "
            f"pg_ctl as (they refuse root): install the postgresql package, which creates it, "
            f"or run the tests as an unprivileged user"
        )
    runuser = shutil.which("runuser")
    if runuser is None:
        _unavailable("the tests run as root and runuser (util-linux) is not on PATH")
    return [runuser, "-u", SERVICE_ACCOUNT, "--"]


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _run(argv: list[str], what: str) -> None:
    env = dict(os.environ, LC_ALL="C", LANG="C")
    for name in ("PGDATA", "PGHOST", "PGPORT", "PGUSER", "PGDATABASE", "PGOPTIONS"):
        env.pop(name, None)
    done = subprocess.run(
        argv, env=env, capture_output=True, text=True, timeout=120, check=False, cwd="/"
    )
    if done.returncode != 0:
        raise RuntimeError(f"{what} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")


def _start(bin_dir: Path, prefix: list[str]) -> PostgresServer:
    began = time.monotonic()
    directory = Path(tempfile.mkdtemp(prefix="comment-wake-pg-"))
    if prefix:
        account = pwd.getpwnam(SERVICE_ACCOUNT)
        os.chown(directory, account.pw_uid, account.pw_gid)
    data = directory / "data"
    log = directory / "server.log"
    try:
        # Trust authentication: anyone who reaches the server is let in as any user.  That is
        # safe only because this is a throwaway cluster in a private temporary directory
        # that listens on the loopback address alone (and its own socket directory).
        _run(
            [
                *prefix,
                str(bin_dir / "initdb"),
                "-A",
                "trust",
                "-U",
                USER,
                "-E",
                "UTF8",
                "--locale=C",
                "-D",
                str(data),
            ],
            "initdb",
        )
        for attempt in range(_START_ATTEMPTS):
            port = _free_port()
            options = (
                f"-c fsync=off -c max_connections=500 -c listen_addresses=127.0.0.1 "
                f"-p {port} -k {directory}"
            )
            argv = [*prefix, str(bin_dir / "pg_ctl"), "-D", str(data), "-l", str(log)]
            try:
                _run([*argv, "-w", "-t", "60", "-o", options, "start"], "pg_ctl start")
            except RuntimeError:
                if attempt + 1 == _START_ATTEMPTS:
                    raise
                continue
            return PostgresServer(
                host="127.0.0.1",
                port=port,
                user=USER,
                database=DATABASE,
                bin_dir=bin_dir,
                directory=directory,
                startup_s=time.monotonic() - began,
            )
        raise AssertionError("unreachable")
    except BaseException as exc:
        tail = log.read_text(errors="replace")[-4000:] if log.exists() else ""
        shutil.rmtree(directory, ignore_errors=True)
        if isinstance(exc, RuntimeError) and tail:
            raise RuntimeError(f"{exc}\nserver log:\n{tail}") from exc
        raise


def _stop(server: PostgresServer, prefix: list[str]) -> None:
    try:
        _run(
            [
                *prefix,
                str(server.bin_dir / "pg_ctl"),
                "-D",
                str(server.directory / "data"),
                *("-w", "-t", "60", "-m", "fast", "stop"),
            ],
            "pg_ctl stop",
        )
    finally:
        shutil.rmtree(server.directory, ignore_errors=True)


@contextlib.contextmanager
def running_server() -> Iterator[PostgresServer]:
    """A PostgreSQL server on 127.0.0.1 until the block ends (the session fixture's, and a
    bench's or a process test's own); no server: skip or fail, as ``on_missing_server``."""
    bin_dir = find_bin_dir(os.environ.get("PATH"), DEBIAN_ROOT)
    if bin_dir is None:
        _unavailable(
            f"no PostgreSQL server: neither initdb and pg_ctl on PATH nor {DEBIAN_ROOT}/*/bin "
            f"(apt-get install postgresql)"
        )
    prefix = _account_prefix()
    server = _start(bin_dir, prefix)
    try:
        yield server
    finally:
        _stop(server, prefix)


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """A PostgreSQL server on 127.0.0.1, started once for the session and stopped after it."""
    with running_server() as server:
        yield server


_schemas = itertools.count(1)


@contextlib.contextmanager
def fresh_schema(server: PostgresServer) -> Iterator[str]:
    """A URL to a new, empty schema ``t_<n>`` on ``server``, dropped on leaving with whatever
    it holds.  Connections made from the URL must be closed by then."""
    import psycopg

    schema = f"t_{next(_schemas)}"
    with psycopg.connect(server.url, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    try:
        yield schema_url(server.url, schema)
    finally:
        with psycopg.connect(server.url, autocommit=True) as conn:
            # A connection left inside a transaction on the schema would hold the drop forever.
            conn.execute("SET lock_timeout = '10s'")
            conn.execute(f"DROP SCHEMA {schema} CASCADE")


@pytest.fixture
def postgres_url(postgres_server: PostgresServer) -> Iterator[str]:
    """A URL to a fresh, empty schema of its own on the session's server (``fresh_schema``),
    dropped after the test: ``postgresql://cw@127.0.0.1:PORT/postgres?options=...``."""
    with fresh_schema(postgres_server) as url:
        yield url
