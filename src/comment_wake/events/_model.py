"""The app's events: one tagged union of frozen structs, published after each fact is
committed.

Each struct is tagged (``msgspec.json.encode`` writes ``{"type": "decided", ...}``), so a
stream of events is self-describing JSON lines and ``decode_event`` reads one back.  No
event carries an author's text or any body read from GitHub: ids, outcomes, reasons,
counts and one-phrase details only (a decided event's ``detail`` is the core's, which
never quotes a comment).
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

import msgspec

from comment_wake.wake import FloodGap
from review_monitor import Fault, PollRound, PrRef

__all__ = [
    "CommentDecided",
    "Event",
    "FloodGap",
    "Noted",
    "NoticeBusy",
    "NoticeDelivered",
    "NoticeHandedOff",
    "NoticeParked",
    "NoticeQueued",
    "WorkerWoken",
    "decode_event",
    "encode_event",
]


class CommentDecided(msgspec.Struct, frozen=True, kw_only=True, tag="decided"):
    """The wake decided a comment or review.  Published after the decision, its mark and
    its record are committed together.  ``rules`` names the rules the comment passed, in
    the order they ran (the stopping rule is ``reason``)."""

    at: datetime
    pr: PrRef
    comment: str  # the GraphQL node id
    database_id: int | None
    outcome: str  # wake, held, retry, skip, drop
    reason: str
    detail: str = ""
    worker: str | None = None
    notice_key: str | None = None  # the notice that carries it (outcome wake)
    rules: tuple[str, ...] = ()
    created_at: datetime | None = None  # when GitHub says the comment was written


class NoticeQueued(msgspec.Struct, frozen=True, kw_only=True, tag="queued"):
    """A comment-wake notice was committed to the outbox for ``worker`` (queued: the worker
    has it once it is delivered).  A wake too long for one notice is several of these at
    one time, ``part`` 1 to ``parts``: one wake.  Called ``WorkerWoken`` (tag ``woke``)
    before; both old names are still read for one release."""

    at: datetime
    pr: PrRef
    worker: str
    notice_key: str
    comments: tuple[str, ...]
    part: int = 1
    parts: int = 1


class NoticeDelivered(msgspec.Struct, frozen=True, kw_only=True, tag="delivered"):
    at: datetime
    worker: str
    notice_key: str
    kind: str
    detail: str = ""


class NoticeBusy(msgspec.Struct, frozen=True, kw_only=True, tag="busy"):
    """The worker was busy; the notice is tried again at ``retry_at``."""

    at: datetime
    worker: str
    notice_key: str
    kind: str
    detail: str = ""
    retry_at: datetime | None = None


class NoticeHandedOff(msgspec.Struct, frozen=True, kw_only=True, tag="handed-off"):
    """The worker cannot take the notice; ``orchestrator`` gets a handoff instead."""

    at: datetime
    worker: str
    notice_key: str
    kind: str
    orchestrator: str
    detail: str = ""


class NoticeParked(msgspec.Struct, frozen=True, kw_only=True, tag="parked"):
    """The notice will not be retried until an operator unparks it."""

    at: datetime
    worker: str
    notice_key: str
    kind: str
    detail: str = ""


class Noted(msgspec.Struct, frozen=True, kw_only=True, tag="note"):
    """A line the wake core wants an operator to read (a flood skipped older comments,
    a read failed and nothing was decided).  It never names an author or quotes text."""

    at: datetime
    level: Literal["info", "warning"]
    pr: PrRef | None
    message: str


Event = (
    PollRound
    | Fault
    | CommentDecided
    | NoticeQueued
    | NoticeDelivered
    | NoticeBusy
    | NoticeHandedOff
    | NoticeParked
    | Noted
    | FloodGap
)
"""Everything the app tells its subscribers."""

WorkerWoken = NoticeQueued
"""Deprecated: the old name of ``NoticeQueued``, kept for one release."""

_decoder = msgspec.json.Decoder(Event)
# Tags an earlier release wrote, with the tag that replaced each (read for one release).
_OLD_TAGS = {"woke": "queued"}


def encode_event(event: Event) -> bytes:
    """One event as JSON, with its ``type`` tag."""
    return msgspec.json.encode(event)


def decode_event(data: bytes | str) -> Event:
    """Read back what ``encode_event`` wrote (an earlier release's tags too)."""
    try:
        return _decoder.decode(data)
    except msgspec.ValidationError:
        raw = msgspec.json.decode(data)
        if not isinstance(raw, dict) or raw.get("type") not in _OLD_TAGS:
            raise
        raw["type"] = _OLD_TAGS[raw["type"]]
        return _decoder.decode(msgspec.json.encode(raw))
