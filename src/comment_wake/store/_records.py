"""Application records: comment-wake's ``app_records`` table of namespaced blobs.

The registry keeps its workers and orchestrators here (namespaces
``comment-wake/workers`` and ``comment-wake/orchestrators``) and the daemon its decision
records (``comment-wake/decisions/...``), so they change in the same transaction as
the watches they imply or the mark they explain.  Functions over the ``SyncStore`` run their
own transaction; those over a ``ReadTx`` or ``WriteTx`` join the caller's.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime

from review_monitor.store import Migration, ReadTx, SyncStore, Tables, WriteTx, store_time

__all__ = [
    "RECORDS",
    "delete_record",
    "get_record",
    "prune_records",
    "put_record",
    "putting_records",
    "read_record",
    "read_records",
    "record_items",
    "records_under",
]

_V1 = (  # version 1: application records
    """CREATE TABLE app_records (
        namespace TEXT NOT NULL,
        key TEXT NOT NULL,
        value BLOB NOT NULL,
        updated_at TEXT NOT NULL,
        PRIMARY KEY (namespace, key)
    )""",
)
# version 2: a PR's decision namespace (``comment-wake/decisions/HOST/owner/name#N``) is
# spelled in lower case, as GitHub's case-insensitive names fold; SQLite's lower() folds
# ASCII only, as GitHub does.  A record already under the folded namespace with the same
# key (the same comment decided at the same time for a second spelling) stays where it
# was: it is kept, but ``explain`` reads the folded namespace.  An old SQLite store's
# step only (``UPDATE OR IGNORE`` is SQLite's): a PostgreSQL store starts with the
# namespaces the app writes, folded in Python (``namespace_of``).
_V2 = (
    "UPDATE OR IGNORE app_records SET namespace = lower(namespace) "
    "WHERE substr(namespace, 1, 23) = 'comment-wake/decisions/' AND namespace != lower(namespace)",
)
RECORDS = Tables(
    "comment_wake.records",
    (
        Migration(1, "application records", _V1),
        Migration(2, "decision namespaces in lower case", _V2, postgres=()),
    ),
    legacy=5,
)
"""Application records (the registry, decision records), a part of the store the app
registers."""


def get_record(tx: ReadTx, namespace: str, key: str) -> bytes | None:
    """One record inside ``tx``, or None."""
    row = tx.execute(
        "SELECT value FROM app_records WHERE namespace = ? AND key = ?", (namespace, key)
    ).fetchone()
    return None if row is None else bytes(row[0])


def record_items(tx: ReadTx, namespace: str) -> tuple[tuple[str, bytes], ...]:
    """Every ``(key, value)`` of ``namespace``, sorted by key."""
    rows = tx.execute(
        "SELECT key, value FROM app_records WHERE namespace = ? ORDER BY key", (namespace,)
    ).fetchall()
    return tuple((str(r[0]), bytes(r[1])) for r in rows)


def put_record(tx: WriteTx, namespace: str, key: str, value: bytes) -> None:
    """Write one record inside ``tx`` (insert or replace), stamped with the transaction
    time."""
    tx.execute(
        "INSERT INTO app_records (namespace, key, value, updated_at) VALUES (?, ?, ?, ?) "
        "ON CONFLICT (namespace, key) DO UPDATE SET value = excluded.value, "
        "updated_at = excluded.updated_at",
        (namespace, key, value, tx.stamp),
    )


def delete_record(tx: WriteTx, namespace: str, key: str, *, value: bytes | None = None) -> bool:
    """Delete one record inside ``tx``; True when there was one.  With ``value``, only
    while the record still holds it: one conditional statement, so a record rewritten
    since the caller read it stays, on any engine, with no lock."""
    if value is None:
        cur = tx.execute(
            "DELETE FROM app_records WHERE namespace = ? AND key = ?", (namespace, key)
        )
    else:
        cur = tx.execute(
            "DELETE FROM app_records WHERE namespace = ? AND key = ? AND value = ?",
            (namespace, key, value),
        )
    return cur.rowcount > 0


def putting_records(rows: Sequence[tuple[str, str, bytes]]) -> Callable[[WriteTx], None]:
    """The write that puts ``(namespace, key, value)`` rows in the caller's transaction
    (``SyncStore.commit(..., also=putting_records(rows))``)."""

    def put(tx: WriteTx) -> None:
        for namespace, key, value in rows:
            put_record(tx, namespace, key, value)

    return put


def read_record(db: SyncStore, namespace: str, key: str) -> bytes | None:
    """One record, in a read transaction of its own, or None."""
    with db.read() as tx:
        return get_record(tx, namespace, key)


def read_records(db: SyncStore, namespace: str) -> tuple[tuple[str, bytes], ...]:
    """Every ``(key, value)`` of ``namespace``, sorted by key."""
    with db.read() as tx:
        return record_items(tx, namespace)


def records_under(db: SyncStore, prefix: str) -> tuple[tuple[str, str, bytes], ...]:
    """Every ``(namespace, key, value)`` whose namespace starts with ``prefix``, sorted
    by namespace then key."""
    with db.read() as tx:
        rows = tx.execute(
            "SELECT namespace, key, value FROM app_records "
            "WHERE substr(namespace, 1, ?) = ? ORDER BY namespace, key",
            (len(prefix), prefix),
        ).fetchall()
    return tuple((str(r[0]), str(r[1]), bytes(r[2])) for r in rows)


def prune_records(db: SyncStore, prefix: str, *, before: datetime) -> int:
    """Delete records whose namespace starts with ``prefix`` (never empty) and that were
    last written before ``before``; returns how many."""
    if not prefix:
        raise ValueError("prune_records needs a namespace prefix")
    with db.write(at=before) as tx:
        cur = tx.execute(
            "DELETE FROM app_records WHERE substr(namespace, 1, ?) = ? AND updated_at < ?",
            (len(prefix), prefix, store_time(before)),
        )
        return cur.rowcount
