"""Poll requests between a fleet's hosts: a webhook hint or a ``poll`` asked on any host,
for the reader to serve (fleet mode).  The reader drains them at least once a second."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from review_monitor._model import PrRef

from ._db import WriteTx
from ._schema import Migration, Tables

__all__ = ["POLL_REQUESTS", "RequestKind", "put_requests", "take_requests"]

RequestKind = Literal["hint", "poll"]
"""``hint``: poll soon (a webhook saw activity); ``poll``: read the full badge next round."""

_V1 = (
    """CREATE TABLE poll_requests (
        identity TEXT NOT NULL,
        pr_key TEXT NOT NULL,
        kind TEXT NOT NULL,
        host TEXT NOT NULL,
        owner TEXT NOT NULL,
        name TEXT NOT NULL,
        number INTEGER NOT NULL,
        requested_at TEXT NOT NULL,
        PRIMARY KEY (identity, pr_key, kind)
    )""",
)
POLL_REQUESTS = Tables("review_monitor.poll_requests", (Migration(1, "poll requests", _V1),))


def put_requests(tx: WriteTx, identity: str, requests: Iterable[tuple[PrRef, RequestKind]]) -> None:
    """Ask ``identity``'s reader for these polls (one row per PR and kind)."""
    for pr, kind in requests:
        tx.execute(
            "INSERT INTO poll_requests (identity, pr_key, kind, host, owner, name, number, "
            "requested_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT (identity, pr_key, kind) DO NOTHING",
            (identity, pr.key_text, kind, pr.host, pr.owner, pr.name, pr.number, tx.stamp),
        )


def take_requests(tx: WriteTx, identity: str) -> list[tuple[PrRef, RequestKind]]:
    """Every request waiting for ``identity``'s reader, removed by the same statement
    (one statement: a request made meanwhile is either taken or left, never lost)."""
    rows = tx.execute(
        "DELETE FROM poll_requests WHERE identity = ? "
        "RETURNING kind, host, owner, name, number, requested_at",
        (identity,),
    ).fetchall()
    out: list[tuple[PrRef, RequestKind]] = []
    for kind, host, owner, name, number, _ in sorted(rows, key=lambda r: (r[5], r[0])):
        out.append((PrRef(owner=owner, name=name, number=int(number), host=host), _kind(kind)))
    return out


def _kind(text: str) -> RequestKind:
    return "hint" if text == "hint" else "poll"
