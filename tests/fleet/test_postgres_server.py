"""The PostgreSQL test server (``tests/_postgres.py``): it answers, each test's schema is its
own and goes away after (an empty one) or comes back to the next test as a freshly migrated
store (a pooled one), and a missing server skips locally but fails where it is required."""

from __future__ import annotations

import os
import stat
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import psycopg
from _postgres import (
    TABLES,
    PostgresServer,
    SchemaPool,
    find_bin_dir,
    fresh_schema,
    on_missing_server,
    relations,
)

from comment_wake.registry import InboxSpec, Registry
from comment_wake.store import insert_post, open_sync_store
from review_monitor import NOTICE_VERSION, Notice, NoticeItem, NoticePr, PrRef
from review_monitor.store import acquire_lease
from review_monitor.testing import FixedClock

_SUPPORTED_MAJOR = 13  # issue 28: PostgreSQL 13 and up


def _schema(url: str) -> str:
    """The schema a test URL names: ``...&options=-csearch_path%3Dt_<n>``."""
    return url.rsplit("%3D", 1)[1]


def test_the_server_answers_with_a_supported_postgresql(postgres_url: str) -> None:
    with psycopg.connect(postgres_url) as conn:
        row = conn.execute("SELECT version(), current_setting('server_version_num')").fetchone()
    assert row is not None
    version, number = row
    assert "PostgreSQL" == version.split()[0]
    assert int(number) // 10000 >= _SUPPORTED_MAJOR


def test_the_server_runs_with_the_configured_settings(postgres_server: PostgresServer) -> None:
    names = ("fsync", "max_connections", "listen_addresses", "server_encoding", "lc_collate")
    with psycopg.connect(postgres_server.url) as conn:
        actual = {name: conn.execute(f"SHOW {name}").fetchone() for name in names}
    expected = {
        "fsync": ("off",),
        "max_connections": ("500",),
        "listen_addresses": ("127.0.0.1",),
        "server_encoding": ("UTF8",),
        "lc_collate": ("C",),
    }
    assert expected == actual


def test_a_postgres_url_creates_its_tables_in_its_own_schema(empty_postgres_url: str) -> None:
    with psycopg.connect(empty_postgres_url) as conn:
        conn.execute("CREATE TABLE probe (id BIGINT)")
        row = conn.execute(
            "SELECT current_schema(), table_schema FROM information_schema.tables "
            "WHERE table_name = 'probe'"
        ).fetchall()
    schema = _schema(empty_postgres_url)
    assert [(schema, schema)] == row


def test_two_postgres_urls_do_not_see_each_others_tables(
    postgres_server: PostgresServer, empty_postgres_url: str
) -> None:
    with fresh_schema(postgres_server) as other_url:
        with psycopg.connect(empty_postgres_url) as conn:
            conn.execute("CREATE TABLE probe (id BIGINT)")
            conn.execute("INSERT INTO probe VALUES (1)")
        with psycopg.connect(other_url) as conn:
            seen = conn.execute("SELECT to_regclass('probe') IS NOT NULL").fetchone()
    assert (False,) == seen


def test_a_schema_is_dropped_with_its_tables_after_use(postgres_server: PostgresServer) -> None:
    with fresh_schema(postgres_server) as url, psycopg.connect(url) as conn:
        conn.execute("CREATE TABLE probe (id BIGINT)")
    with psycopg.connect(postgres_server.url) as conn:
        left = conn.execute(
            "SELECT count(*) FROM pg_namespace WHERE nspname = %s", (_schema(url),)
        ).fetchone()
    assert (0,) == left


def test_a_missing_server_skips_without_the_variable() -> None:
    assert "skip" == on_missing_server({})


def test_a_missing_server_skips_when_the_variable_is_not_1() -> None:
    assert "skip" == on_missing_server({"COMMENT_WAKE_REQUIRE_POSTGRES": "0"})


def test_a_missing_server_fails_when_the_variable_requires_it() -> None:
    assert "fail" == on_missing_server({"COMMENT_WAKE_REQUIRE_POSTGRES": "1"})


def _tools(directory: Path) -> Path:
    directory.mkdir(parents=True)
    for tool in ("initdb", "pg_ctl"):
        (directory / tool).write_text("#!/bin/sh\n", encoding="utf-8")
        (directory / tool).chmod(stat.S_IRWXU)
    return directory


def test_the_tools_on_path_come_first(tmp_path: Path) -> None:
    on_path = _tools(tmp_path / "path")
    _tools(tmp_path / "lib" / "15" / "bin")
    assert on_path == find_bin_dir(str(on_path), tmp_path / "lib")


def test_without_tools_on_path_the_highest_installed_version_is_used(tmp_path: Path) -> None:
    for version in ("9.6", "13", "15"):
        _tools(tmp_path / "lib" / version / "bin")
    (tmp_path / "lib" / "16" / "bin").mkdir(parents=True)  # a version without its tools
    empty = tmp_path / "empty"
    empty.mkdir()
    assert tmp_path / "lib" / "15" / "bin" == find_bin_dir(str(empty), tmp_path / "lib")


def test_no_tools_anywhere_finds_none(tmp_path: Path) -> None:
    assert None is find_bin_dir(os.devnull, tmp_path / "lib")


# -- the pool of migrated stores (``postgres_url``) -------------------------------------

_T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
_PR = PrRef("octo", "repo", 7)


def _notice(n: int) -> Notice:
    item = NoticeItem(f"IC_{n}", n, f"https://github.com/octo/repo/pull/7#c-{n}", "al", "comment")
    pr = NoticePr(_PR.host, _PR.repo, _PR.number, "https://github.com/octo/repo/pull/7", "T")
    return Notice(NOTICE_VERSION, "comment-wake", f"k-{n}", "w1", pr, (item,), "...", _T0)


def _fill(url: str, tmp_path: Path) -> None:
    """Rows in many of a store's tables, through the store: the registry's records and
    version, a watch, an owner, a mark, outbox entries with an attempt, a post, a lease."""
    with open_sync_store(url) as store:
        registry = Registry(store, inbox_root=tmp_path / "inbox", clock=FixedClock(_T0))
        registry.add_orchestrator("lead", InboxSpec())
        registry.bind("w1", _PR, orchestrator="lead", publisher=InboxSpec())
        store.commit(_PR, "comment-wake", mark=(3, b"the mark"), notices=[_notice(1)], at=_T0)
        (pending,) = store.enqueue([_notice(2)], at=_T0)
        store.record_attempt(pending, at=_T0, outcome="busy", retry_at=_T0)
        with store.write(at=_T0) as tx:
            insert_post(tx, key="post-1", worker="w1", pr=_PR, tool="reply", body="On it.")
            acquire_lease(tx, "host:h1", "instance", now=_T0, ttl=timedelta(hours=1))


def _rows(url: str) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table of the schema ``url`` names, by table, sorted."""
    schema = _schema(url)
    with psycopg.connect(url) as conn:
        tables = relations(conn, schema, TABLES)
        return {t: sorted(conn.execute(f"SELECT * FROM {t}").fetchall(), key=repr) for t in tables}


def test_a_pooled_schema_is_lent_again_holding_what_a_freshly_migrated_store_holds(
    postgres_pool: SchemaPool, tmp_path: Path
) -> None:
    with postgres_pool.schema() as used:
        _fill(used, tmp_path)
    with postgres_pool.schema() as again:
        # The same schema back (the pool lends the last one returned first), every table
        # as in the never-lent template.
        assert (used, _rows(postgres_pool.template_url)) == (again, _rows(again))


def test_a_pooled_schema_numbers_its_outbox_from_where_a_fresh_store_does(
    postgres_pool: SchemaPool, tmp_path: Path
) -> None:
    with postgres_pool.schema() as used:
        _fill(used, tmp_path)
    with postgres_pool.schema() as again, open_sync_store(again) as store:
        assert (used, [1]) == (again, store.enqueue([_notice(9)], at=_T0))


def test_a_schema_whose_tables_a_test_changed_is_not_lent_again(
    postgres_pool: SchemaPool,
) -> None:
    with postgres_pool.schema() as used, psycopg.connect(used) as conn:
        conn.execute("CREATE TABLE probe (id BIGINT)")
    with postgres_pool.schema() as again:
        assert used != again


def test_a_schema_with_a_connection_left_open_is_not_lent_again(
    postgres_pool: SchemaPool,
) -> None:
    with postgres_pool.schema() as used:
        left_open = psycopg.connect(used, autocommit=True)
    try:
        with postgres_pool.schema() as again:
            assert used != again
    finally:
        left_open.close()
