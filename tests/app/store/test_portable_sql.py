"""The app's store SQL is in the subset SQLite and PostgreSQL both run (issue 28): its
statements name no SQLite-only syntax, and a migration that does (an old SQLite store's
step) or that the type rules would get wrong says PostgreSQL's DDL itself."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from comment_wake.store import APP_TABLES

SRC = Path(__file__).resolve().parents[3] / "src" / "comment_wake"
# What only SQLite runs (or runs otherwise): conflict clauses, collations, rowids, its
# functions, and a negative LIMIT (no limit there, an error on PostgreSQL).
SQLITE_ONLY = re.compile(
    r"\bOR\s+(IGNORE|REPLACE)\b|\bCOLLATE\b|\browid\b|\b(strftime|julianday|ifnull|"
    r"group_concat|json_\w+|lower|upper)\s*\(|\bGLOB\b|\bLIKE\b|\bLIMIT\s+-",
    re.IGNORECASE,
)
# The modules whose functions run statements.
MODULES = sorted(
    {*(SRC / "store").glob("_*.py"), SRC / "registry" / "_registry.py", SRC / "tools" / "_tools.py"}
)


def _statements_in_functions(path: Path) -> list[str]:
    """Every string constant inside a function of ``path`` that looks like SQL."""
    found: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.FunctionDef):
            for inner in ast.walk(node):
                if isinstance(inner, ast.Constant) and isinstance(inner.value, str):
                    found.append(inner.value)
    return [s for s in found if re.search(r"\b(SELECT|INSERT|UPDATE|DELETE)\b", s)]


def test_the_apps_statements_use_no_sqlite_only_sql() -> None:
    offenders = [
        (path.name, text)
        for path in MODULES
        for text in _statements_in_functions(path)
        if SQLITE_ONLY.search(text)
    ]
    assert [] == offenders


def test_a_migration_with_sqlite_only_sql_says_what_postgresql_runs() -> None:
    offenders = [
        f"{part.part}:{m.version}"
        for part in APP_TABLES
        for m in part.migrations
        if m.postgres is None and any(SQLITE_ONLY.search(s) for s in m.statements)
    ]
    assert [] == offenders


def test_no_table_left_to_the_type_rules_has_a_real_column() -> None:
    # PostgreSQL's REAL is single precision; SQLite's is a double.
    offenders = [
        f"{part.part}:{m.version}"
        for part in APP_TABLES
        for m in part.migrations
        if m.postgres is None and any(re.search(r"\bREAL\b", s) for s in m.statements)
    ]
    assert [] == offenders


def test_postgresql_ddl_names_postgresql_types_and_the_c_collation() -> None:
    offenders = [
        f"{part.part}:{m.version}"
        for part in APP_TABLES
        for m in part.migrations
        for s in m.postgres or ()
        if re.search(r"\b(INTEGER|BLOB|REAL|AUTOINCREMENT|NOCASE)\b", s)
        or re.search(r'\bTEXT\b(?! COLLATE "C")', s)
    ]
    assert [] == offenders
