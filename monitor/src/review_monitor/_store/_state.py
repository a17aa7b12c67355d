"""Daemon state: small values by key (the status line, the last poll...)."""

from __future__ import annotations

from datetime import datetime

from ._db import Database
from ._schema import Migration, Tables

__all__ = ["STATE", "StatePart"]

_V1 = (  # version 1: daemon state
    """CREATE TABLE daemon_state (
        key TEXT PRIMARY KEY,
        value BLOB NOT NULL,
        updated_at TEXT NOT NULL
    )""",
)
# PostgreSQL: version 1 creates the table there too, its types translated.
STATE = Tables("review_monitor.state", (Migration(1, "daemon state", _V1),), legacy=3)


class StatePart(Database):
    """``SyncStore``'s key-value state."""

    def get_state(self, key: str) -> bytes | None:
        with self.read() as tx:
            row = tx.execute("SELECT value FROM daemon_state WHERE key = ?", (key,)).fetchone()
        return None if row is None else bytes(row[0])

    def set_state(self, key: str, value: bytes, *, at: datetime) -> None:
        with self.write(at=at) as tx:
            tx.execute(
                "INSERT INTO daemon_state (key, value, updated_at) VALUES (?, ?, ?) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value, "
                "updated_at = excluded.updated_at",
                (key, value, tx.stamp),
            )
