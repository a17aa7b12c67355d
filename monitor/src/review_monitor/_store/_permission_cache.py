"""The permission cache shared by a fleet's hosts: GitHub's answer to the collaborator
permission call, per GitHub host, repository and login, so two hundred hosts do not each
look up the same reviewer.  Keys are case-folded (GitHub's names and logins are
case-insensitive); the answer is kept as GitHub gave it (``permission``, ``role_name``),
and each host decides ``trusted`` by its own configuration."""

from __future__ import annotations

from datetime import datetime

from ._db import ReadTx, WriteTx, parse_store_time, store_time
from ._schema import Migration, Tables

__all__ = ["PERMISSION_CACHE", "prune_permissions", "put_permission", "read_permission"]

_V1 = (
    """CREATE TABLE permission_cache (
        host TEXT NOT NULL,
        repo TEXT NOT NULL,
        login TEXT NOT NULL,
        permission TEXT NOT NULL,
        role_name TEXT,
        checked_at TEXT NOT NULL,
        PRIMARY KEY (host, repo, login)
    )""",
)
PERMISSION_CACHE = Tables(
    "review_monitor.permission_cache", (Migration(1, "the shared permission cache", _V1),)
)


def _key(host: str, repo: str, login: str) -> tuple[str, str, str]:
    return (host.casefold(), repo.casefold(), login.casefold())


def read_permission(
    tx: ReadTx, host: str, repo: str, login: str, *, since: datetime
) -> tuple[str, str | None, datetime] | None:
    """The answer checked at or after ``since``: ``(permission, role_name, checked_at)``."""
    row = tx.execute(
        "SELECT permission, role_name, checked_at FROM permission_cache "
        "WHERE host = ? AND repo = ? AND login = ? AND checked_at >= ?",
        (*_key(host, repo, login), store_time(since)),
    ).fetchone()
    if row is None:
        return None
    return str(row[0]), None if row[1] is None else str(row[1]), parse_store_time(row[2])


def put_permission(
    tx: WriteTx,
    host: str,
    repo: str,
    login: str,
    permission: str,
    role_name: str | None,
    checked_at: datetime,
) -> None:
    """Keep an answer (a newer one replaces an older, never the other way)."""
    tx.execute(
        "INSERT INTO permission_cache (host, repo, login, permission, role_name, checked_at) "
        "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (host, repo, login) DO UPDATE SET "
        "permission = excluded.permission, role_name = excluded.role_name, "
        "checked_at = excluded.checked_at WHERE permission_cache.checked_at < excluded.checked_at",
        (*_key(host, repo, login), permission, role_name, store_time(checked_at)),
    )


def prune_permissions(tx: WriteTx, before: datetime) -> int:
    """Drop the answers checked before ``before``; how many."""
    return tx.execute(
        "DELETE FROM permission_cache WHERE checked_at < ?", (store_time(before),)
    ).rowcount
