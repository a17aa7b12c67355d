"""Poll requests between a fleet's hosts: a webhook hint or a ``poll`` asked on any host,
for the reader to serve (fleet mode).  The reader drains them at least once a second."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Literal, NamedTuple

from review_monitor._model import PrRef

from ._db import WriteTx, parse_store_time
from ._schema import Migration, Tables

__all__ = ["POLL_REQUESTS", "RequestKind", "TakenRequest", "put_requests", "take_requests"]

RequestKind = Literal["hint", "poll"]
"""``hint``: poll soon (a webhook saw activity); ``poll``: read the full badge next round."""


class TakenRequest(NamedTuple):
    """A request the reader took: which PR, which kind, and when a host wrote it."""

    pr: PrRef
    kind: RequestKind
    requested_at: datetime


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


def take_requests(tx: WriteTx, identity: str) -> list[TakenRequest]:
    """Every request waiting for ``identity``'s reader, removed by the same statement
    (one statement: a request made meanwhile is either taken or left, never lost)."""
    rows = tx.execute(
        "DELETE FROM poll_requests WHERE identity = ? "
        "RETURNING kind, host, owner, name, number, requested_at",
        (identity,),
    ).fetchall()
    return [
        TakenRequest(
            PrRef(owner=owner, name=name, number=int(number), host=host),
            _kind(kind),
            parse_store_time(at),
        )
        for kind, host, owner, name, number, at in sorted(rows, key=lambda r: (r[5], r[0]))
    ]


def _kind(text: str) -> RequestKind:
    return "hint" if text == "hint" else "poll"
