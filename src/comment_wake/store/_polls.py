"""Poll requests: ``comment-wake poll PR`` asks for a PR's badge to be read at the next
poll round, whatever its NOT_FOUND backoff or the sweep says.

A request is one application record (``_requests.py``, namespace ``comment-wake/polls``).
The command writes it whether or not a daemon runs; the daemon hands it to its poller
(``Monitor.request_poll``), whose next round at least ``hint_min_gap`` after the PR's last
read serves it, and then deletes it (unless a newer request replaced it meanwhile).  A
request that no running daemon served is served by the next daemon's first round, which
reads every watched PR.
"""

from __future__ import annotations

from datetime import datetime

from review_monitor import PrRef
from review_monitor.store import SyncStore

from ._requests import PrRequest, clear_request, put_request, read_requests

__all__ = ["POLLS", "PollRequest", "clear_poll_request", "poll_requests", "request_poll"]

POLLS = "comment-wake/polls"
"""The application-record namespace of poll requests."""

PollRequest = PrRequest
"""An operator's request to read a PR at the next poll round, as recorded."""


def request_poll(db: SyncStore, pr: PrRef, *, at: datetime) -> None:
    """Record a poll request for ``pr`` (a second request before it is served is one)."""
    put_request(db, POLLS, pr, at=at)


def poll_requests(db: SyncStore) -> tuple[PollRequest, ...]:
    """Every poll request not yet served, oldest first."""
    return read_requests(db, POLLS)


def clear_poll_request(db: SyncStore, request: PollRequest, *, at: datetime) -> bool:
    """Delete a served ``request``, unless a newer one for its PR replaced it."""
    return clear_request(db, POLLS, request, at=at)
