"""Release requests: ``comment-wake release PR`` asks for a PR's held comments to go now.

A request is one application record (``_requests.py``, namespace ``comment-wake/releases``).
The command writes it whether or not a daemon runs; the daemon's next look at the PR
applies it and deletes it in the same transaction as the mark it changes.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from review_monitor import PrRef
from review_monitor.store import ReadTx, SyncStore, WriteTx

from ._records import delete_record, get_record
from ._requests import PrRequest, put_request, read_requests, request_key

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

ReleaseRequest = PrRequest
"""An operator's request to release a PR's held comments, as recorded."""


def request_release(db: SyncStore, pr: PrRef, *, at: datetime) -> None:
    """Record a release request for ``pr`` (a second request before it is applied is one)."""
    put_request(db, RELEASES, pr, at=at)


def has_release_request(tx: ReadTx, pr: PrRef) -> bool:
    """Whether a release of ``pr`` is requested, inside ``tx``."""
    return get_record(tx, RELEASES, request_key(pr)) is not None


def release_requests(db: SyncStore) -> tuple[ReleaseRequest, ...]:
    """Every release request not yet applied, oldest first (an unreadable one is left
    out: an earlier or later build's, which that build applies)."""
    return read_requests(db, RELEASES)


def clearing_release(pr: PrRef) -> Callable[[WriteTx], None]:
    """The write that deletes ``pr``'s release request in the caller's transaction."""

    def clear(tx: WriteTx) -> None:
        delete_record(tx, RELEASES, request_key(pr))

    return clear
