"""The PostgreSQL test server (``tests/_postgres.py``): it answers, each test's schema is its
own and goes away after, and a missing server skips locally but fails where it is required."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import psycopg
from _postgres import PostgresServer, find_bin_dir, fresh_schema, on_missing_server

_SUPPORTED_MAJOR = 13  # issue 28: PostgreSQL 13 and up


def _schema(url: str) -> str:
    """The schema a ``postgres_url`` names: ``...?options=-csearch_path%3Dt_<n>``."""
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


def test_a_postgres_url_creates_its_tables_in_its_own_schema(postgres_url: str) -> None:
    with psycopg.connect(postgres_url) as conn:
        conn.execute("CREATE TABLE probe (id BIGINT)")
        row = conn.execute(
            "SELECT current_schema(), table_schema FROM information_schema.tables "
            "WHERE table_name = 'probe'"
        ).fetchall()
    schema = _schema(postgres_url)
    assert [(schema, schema)] == row


def test_two_postgres_urls_do_not_see_each_others_tables(
    postgres_server: PostgresServer, postgres_url: str
) -> None:
    with fresh_schema(postgres_server) as other_url:
        with psycopg.connect(postgres_url) as conn:
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
