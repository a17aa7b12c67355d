"""A real PostgreSQL server for the tests (issue 28), as a pytest plugin loaded by
``tests/conftest.py``.

``postgres_server`` (session) runs ``initdb`` and ``pg_ctl`` from PATH, else from the highest
``/usr/lib/postgresql/*/bin``, in a temporary directory of its own, and serves on 127.0.0.1 at
a free port until the session ends.  ``postgres_url`` (per test) lends a schema ``t_<n>``
holding a freshly migrated, empty store with the app's parts, from the session's
``postgres_pool`` (``SchemaPool``): migrating a store costs ~150 ms of DDL, so a schema is
reset after each test (a few ms) and lent again, or dropped when it cannot be trusted.
``empty_postgres_url`` (per test) makes a fresh schema with no table (``fresh_schema``),
dropped after, for what creates a store or tables itself.  Each URL's connections see only
their schema (``search_path``).

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
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, NoReturn

import pytest

if TYPE_CHECKING:
    import psycopg

__all__ = [
    "REQUIRE_VARIABLE",
    "TABLES",
    "PostgresServer",
    "SchemaPool",
    "empty_postgres_url",
    "find_bin_dir",
    "fresh_schema",
    "on_missing_server",
    "postgres_pool",
    "postgres_server",
    "postgres_url",
    "relations",
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
    # The schema is also the connections' ``application_name``: the pool (``SchemaPool``)
    # finds a test's connections still open by it.
    return f"{server_url}?application_name={schema}&options=-csearch_path%3D{schema}"


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


# The pool's server-side helpers, in a schema of their own (created once per session).
# ``shape(schema)``: a digest of what the schema defines (relations, columns with their
# types, defaults and identity, constraints, triggers, functions), with the schema's own
# name left out, so two stores migrated alike have the same shape.  ``reset(...)``: puts a
# used schema back to the template's rows and sequences in one statement, or says why not
# (NULL: done).
_POOL_SCHEMA = "cw_pool"
_POOL_FUNCTIONS = f"""
CREATE SCHEMA {_POOL_SCHEMA};

CREATE FUNCTION {_POOL_SCHEMA}.shape(target text) RETURNS text LANGUAGE sql STABLE AS $$
SELECT md5(coalesce(string_agg(line, E'\\n' ORDER BY line), ''))
FROM (
    SELECT format('rel %s %s', c.relname, c.relkind) AS line
    FROM pg_class c WHERE c.relnamespace = target::regnamespace
    UNION ALL
    SELECT format(
        'col %s %s %s %s %s %s', c.relname, a.attname, format_type(a.atttypid, a.atttypmod),
        a.attnotnull, a.attidentity,
        replace(coalesce(pg_get_expr(d.adbin, d.adrelid), ''), target || '.', '')
    )
    FROM pg_attribute a
    JOIN pg_class c ON c.oid = a.attrelid
    LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
    WHERE c.relnamespace = target::regnamespace AND a.attnum > 0 AND NOT a.attisdropped
    UNION ALL
    SELECT format(
        'con %s %s %s', conname, contype,
        replace(pg_get_constraintdef(oid), target || '.', '')
    )
    FROM pg_constraint WHERE connamespace = target::regnamespace
    UNION ALL
    SELECT format('trg %s %s', c.relname, t.tgname)
    FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
    WHERE c.relnamespace = target::regnamespace AND NOT t.tgisinternal
    UNION ALL
    SELECT format('fn %s', proname) FROM pg_proc WHERE pronamespace = target::regnamespace
    UNION ALL
    SELECT format('type %s', typname) FROM pg_type
    WHERE typnamespace = target::regnamespace AND typrelid = 0
) AS lines
$$;

CREATE FUNCTION {_POOL_SCHEMA}.reset(
    target text, template text, expected_shape text, seeded text[],
    sequences text[], last_values bigint[], called boolean[]
) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    tries int := 0;
    tbl text;
    i int;
BEGIN
    -- The last test's connections carry the schema's name (``schema_url``): wait a moment
    -- for their backends to exit after a close, and reuse nothing a connection still holds.
    LOOP
        PERFORM pg_stat_clear_snapshot();
        EXIT WHEN NOT EXISTS (
            SELECT 1 FROM pg_stat_activity
            WHERE application_name = target AND pid <> pg_backend_pid()
        );
        IF tries >= 100 THEN
            RETURN 'a connection to it is still open';
        END IF;
        tries := tries + 1;
        PERFORM pg_sleep(0.01);
    END LOOP;
    IF {_POOL_SCHEMA}.shape(target) IS DISTINCT FROM expected_shape THEN
        RETURN 'its definitions changed';
    END IF;
    PERFORM set_config('lock_timeout', '1s', true);
    -- No foreign key is checked nor cascaded: every table is emptied, then refilled.
    PERFORM set_config('session_replication_role', 'replica', true);
    FOR tbl IN
        SELECT relname FROM pg_class
        WHERE relnamespace = target::regnamespace AND relkind IN ('r', 'p')
    LOOP
        EXECUTE format('DELETE FROM %I.%I', target, tbl);
    END LOOP;
    FOREACH tbl IN ARRAY seeded LOOP
        EXECUTE format('INSERT INTO %I.%I SELECT * FROM %I.%I', target, tbl, template, tbl);
    END LOOP;
    FOR i IN 1 .. coalesce(array_length(sequences, 1), 0) LOOP
        PERFORM setval(format('%I.%I', target, sequences[i])::regclass, last_values[i], called[i]);
    END LOOP;
    RETURN NULL;
END
$$;
"""


TABLES = ("r", "p")  # ``pg_class.relkind`` of a table: plain or partitioned


def relations(
    conn: psycopg.Connection[tuple[Any, ...]], schema: str, kinds: tuple[str, ...]
) -> list[str]:
    """The names of ``schema``'s relations of ``kinds`` (``pg_class.relkind``), sorted."""
    rows = conn.execute(
        "SELECT relname FROM pg_class WHERE relnamespace = %s::regnamespace "
        "AND relkind = ANY(%s) ORDER BY relname",
        (schema, list(kinds)),
    )
    return [str(r[0]) for r in rows]


@dataclass(frozen=True)
class _Template:
    """What a freshly migrated store holds, learnt once from the pristine template schema."""

    schema: str
    shape: str
    seeded: tuple[str, ...]  # the tables with rows
    sequences: tuple[str, ...]
    last_values: tuple[int, ...]
    called: tuple[bool, ...]


class SchemaPool:
    """Migrated stores to lend, one schema each, reset between borrowers (issue 28's test
    budget: migrating a store costs some 150 ms of DDL; resetting one, a few ms).

    ``migrate(url)`` creates a store's tables at ``url`` (the app's ``open_sync_store``).
    The first borrow migrates a pristine ``template`` schema, never lent, and learns from
    the catalog what a fresh store holds: the tables with rows, each sequence's state,
    and the schema's shape.  ``schema()`` lends a schema; when the block ends the schema
    is reset in one statement (``cw_pool.reset``): every table emptied, the template's
    rows copied back, every sequence set to the template's state.  A schema is dropped
    instead of reused when a connection to it is still open, when its definitions changed
    (a test created or altered a table), or when the reset fails (a lock held: 1 s)."""

    def __init__(self, server: PostgresServer, migrate: Callable[[str], None]) -> None:
        self._server = server
        self._migrate = migrate
        self._free: list[str] = []
        self._template: _Template | None = None
        self._conn: psycopg.Connection[tuple[Any, ...]] | None = None
        self.created = 0  # schemas migrated (the template not counted)
        self.reused = 0
        self.dropped: list[tuple[str, str]] = []  # (schema, why)

    @property
    def template_url(self) -> str:
        """The pristine template's URL: what every lent schema holds when lent."""
        return schema_url(self._server.url, self._learn().schema)

    def _admin(self) -> psycopg.Connection[tuple[Any, ...]]:
        import psycopg

        if self._conn is None or self._conn.closed:
            self._conn = psycopg.connect(self._server.url, autocommit=True)
        return self._conn

    def _new(self) -> str:
        schema = f"t_{next(_schemas)}"
        self._admin().execute(f"CREATE SCHEMA {schema}")
        self._migrate(schema_url(self._server.url, schema))
        return schema

    def _learn(self) -> _Template:
        if self._template is not None:
            return self._template
        conn = self._admin()
        conn.execute(_POOL_FUNCTIONS)
        schema = self._new()
        tables = relations(conn, schema, TABLES)
        seeded = tuple(
            t
            for t in tables
            if conn.execute(f"SELECT EXISTS (SELECT FROM {schema}.{t})").fetchone() == (True,)
        )
        sequences = relations(conn, schema, ("S",))
        states = [
            conn.execute(f"SELECT last_value, is_called FROM {schema}.{s}").fetchone()
            for s in sequences
        ]
        shape = conn.execute(f"SELECT {_POOL_SCHEMA}.shape(%s)", (schema,)).fetchone()
        assert shape is not None
        self._template = _Template(
            schema=schema,
            shape=str(shape[0]),
            seeded=seeded,
            sequences=tuple(sequences),
            last_values=tuple(int(s[0]) for s in states if s is not None),
            called=tuple(bool(s[1]) for s in states if s is not None),
        )
        return self._template

    def take(self) -> str:
        """A migrated store's schema, lent until ``give_back``."""
        self._learn()
        if self._free:
            self.reused += 1
            return self._free.pop()
        self.created += 1
        return self._new()

    def give_back(self, schema: str) -> None:
        """Reset ``schema`` for the next borrower, or drop it (see the class)."""
        import psycopg

        template = self._learn()
        try:
            row = (
                self._admin()
                .execute(
                    f"SELECT {_POOL_SCHEMA}.reset(%s, %s, %s, %s, %s, %s, %s)",
                    (
                        schema,
                        template.schema,
                        template.shape,
                        list(template.seeded),
                        list(template.sequences),
                        list(template.last_values),
                        list(template.called),
                    ),
                )
                .fetchone()
            )
            why = None if row is None else row[0]
        except psycopg.Error as exc:
            why = f"the reset failed: {type(exc).__name__}"
        if why is None:
            self._free.append(schema)
            return
        self.dropped.append((schema, str(why)))
        with psycopg.connect(self._server.url, autocommit=True) as conn:
            # As ``fresh_schema``: a connection left inside a transaction holds the drop.
            conn.execute("SET lock_timeout = '10s'")
            conn.execute(f"DROP SCHEMA {schema} CASCADE")

    @contextlib.contextmanager
    def schema(self) -> Iterator[str]:
        """A URL to a migrated store of its own, as ``schema_url`` gives; its connections
        must be closed when the block ends."""
        schema = self.take()
        try:
            yield schema_url(self._server.url, schema)
        finally:
            self.give_back(schema)

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()


def _migrate_app_store(url: str) -> None:
    from comment_wake.store import open_sync_store

    open_sync_store(url).close()


@pytest.fixture(scope="session")
def postgres_pool(postgres_server: PostgresServer) -> Iterator[SchemaPool]:
    """The session's ``SchemaPool`` of stores migrated with the app's parts."""
    pool = SchemaPool(postgres_server, _migrate_app_store)
    try:
        yield pool
    finally:
        pool.close()


@pytest.fixture
def postgres_url(postgres_pool: SchemaPool) -> Iterator[str]:
    """A URL to a schema of its own on the session's server holding a freshly migrated,
    empty store with the app's parts (``SchemaPool``: opening it migrates nothing, as a
    restart's open): ``postgresql://cw@127.0.0.1:PORT/postgres?application_name=...``.
    Reset and lent again after the test."""
    with postgres_pool.schema() as url:
        yield url


@pytest.fixture
def empty_postgres_url(postgres_server: PostgresServer) -> Iterator[str]:
    """A URL to a fresh schema with no table at all (``fresh_schema``), dropped after the
    test: for what creates a store or a schema itself (migrations, an old version's
    tables, ``store copy`` into a new database, a missing store)."""
    with fresh_schema(postgres_server) as url:
        yield url
