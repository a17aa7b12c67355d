"""Release requests: ``comment-wake release PR`` asks for a PR's held comments to go now.

A request is one application record (namespace ``comment-wake/releases``, key the PR with
its host), so it needs no table of its own and an older store opens unchanged.  The command
writes it whether or not a daemon runs; the daemon's next look at the PR applies it and
deletes it in the same transaction as the mark it changes.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

import msgspec

from review_monitor import PrRef
from review_monitor.store import ReadTx, SyncStore, WriteTx

from ._records import delete_record, get_record, put_record, read_records

__all__ = [
    "RELEASES",
    "ReleaseRequest",
    "clearing_release",
    "has_release_request",
    "release_requests",
    "request_release",
]

RELEASES = "comment-wake/releases"
"""The application-record namespace of release requests."""


class ReleaseRequest(msgspec.Struct, frozen=True):
    """An operator's request to release a PR's held comments, as recorded."""

    host: str
    owner: str
    name: str
    number: int
    requested_at: datetime

    @property
    def pr(self) -> PrRef:
        """The pull request it names."""
        return PrRef(owner=self.owner, name=self.name, number=self.number, host=self.host)


def _key(pr: PrRef) -> str:
    return f"{pr.host}/{pr}"


def request_release(db: SyncStore, pr: PrRef, *, at: datetime) -> None:
    """Record a release request for ``pr`` (a second request before it is applied is one)."""
    request = ReleaseRequest(pr.host, pr.owner, pr.name, pr.number, at)
    with db.write(at=at) as tx:
        put_record(tx, RELEASES, _key(pr), msgspec.json.encode(request))


def has_release_request(tx: ReadTx, pr: PrRef) -> bool:
    """Whether a release of ``pr`` is requested, inside ``tx``."""
    return get_record(tx, RELEASES, _key(pr)) is not None


def release_requests(db: SyncStore) -> tuple[ReleaseRequest, ...]:
    """Every release request not yet applied, oldest first (an unreadable one is left
    out: an earlier or later build's, which that build applies)."""
    found: list[ReleaseRequest] = []
    for _, blob in read_records(db, RELEASES):
        try:
            found.append(msgspec.json.decode(blob, type=ReleaseRequest))
        except (msgspec.DecodeError, msgspec.ValidationError):
            continue
    return tuple(sorted(found, key=lambda r: (r.requested_at, _key(r.pr))))


def clearing_release(pr: PrRef) -> Callable[[WriteTx], None]:
    """The write that deletes ``pr``'s release request in the caller's transaction."""

    def clear(tx: WriteTx) -> None:
        delete_record(tx, RELEASES, _key(pr))

    return clear
