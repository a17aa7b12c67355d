"""An operator's request about one PR, kept as an application record until the daemon
acts on it: ``comment-wake release`` (``_releases.py``) and ``comment-wake poll``
(``_polls.py``).

A request is one record (its namespace names the kind, its key the PR with its host), so
it needs no table of its own and an older store opens unchanged.  A command writes it
whether or not a daemon runs; a second request for the same PR before the first is acted
on is one.
"""

from __future__ import annotations

from datetime import datetime

import msgspec

from review_monitor import PrRef
from review_monitor.store import SyncStore

from ._records import delete_record, get_record, put_record, read_records

__all__ = ["PrRequest", "clear_request", "put_request", "read_requests", "request_key"]


class PrRequest(msgspec.Struct, frozen=True):
    """An operator's request about a PR, as recorded."""

    host: str
    owner: str
    name: str
    number: int
    requested_at: datetime

    @property
    def pr(self) -> PrRef:
        """The pull request it names."""
        return PrRef(owner=self.owner, name=self.name, number=self.number, host=self.host)


def request_key(pr: PrRef) -> str:
    """The record key of a request about ``pr``."""
    return f"{pr.host}/{pr}"


def put_request(db: SyncStore, namespace: str, pr: PrRef, *, at: datetime) -> None:
    """Record a request about ``pr`` under ``namespace`` (replacing one not acted on yet)."""
    request = PrRequest(pr.host, pr.owner, pr.name, pr.number, at)
    with db.write(at=at) as tx:
        put_record(tx, namespace, request_key(pr), msgspec.json.encode(request))


def read_requests(db: SyncStore, namespace: str) -> tuple[PrRequest, ...]:
    """Every request under ``namespace``, oldest first (an unreadable one is left out: an
    earlier or later build's, which that build acts on)."""
    found: list[PrRequest] = []
    for _, blob in read_records(db, namespace):
        try:
            found.append(msgspec.json.decode(blob, type=PrRequest))
        except (msgspec.DecodeError, msgspec.ValidationError):
            continue
    return tuple(sorted(found, key=lambda r: (r.requested_at, request_key(r.pr))))


def clear_request(db: SyncStore, namespace: str, request: PrRequest, *, at: datetime) -> bool:
    """Delete ``request`` if it is still the one recorded for its PR (a request made
    since stays); whether it was deleted.  The delete is conditional on the record
    holding what was read: a request written after the read, even by a transaction that
    commits between the read and the delete, stays."""
    key = request_key(request.pr)
    with db.write(at=at) as tx:
        blob = get_record(tx, namespace, key)
        if blob is None:
            return False
        try:
            stored = msgspec.json.decode(blob, type=PrRequest)
        except (msgspec.DecodeError, msgspec.ValidationError):
            return False
        if stored != request:
            return False
        return delete_record(tx, namespace, key, value=blob)
