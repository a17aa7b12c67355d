"""The wake's mark: what it remembers about one PR between polls.

Stored as an opaque blob in the monitor's per-listener marks.  Version 2 is the
struct below.  Version 1 kept one ``listed_at`` per PR where version 2 keeps each
connection's ``proven_at`` and last listing ids; it loads with both times set to its
``listed_at`` and no ids (the next full listing then reads its gap once).  Version 0 is
the seed's earlier mark, a JSON list of handled comment ids (or an object whose
``comments`` key holds that list), which still loads.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import msgspec

from review_monitor import BadgeItem, ItemDetail
from review_monitor.seen import Seen

from ._errors import MarkError

__all__ = [
    "MARK_VERSION",
    "GapSpend",
    "Handled",
    "Held",
    "Pending",
    "WakeMark",
    "decode_mark",
    "encode_mark",
]

MARK_VERSION = 2
"""The version the wake mark is stored with; older marks still load."""


Handled = Seen
"""A comment decided for good, kept by id while it is above the floor: the seen set's
``review_monitor.seen.Seen``, shared with the monitor's notices."""


class Held(msgspec.Struct, frozen=True):
    """A trusted comment waiting on the rate limit.  At its release it is read once more
    (and its author's permission looked up again past the cache's lifetime);
    ``failures`` counts the lookups that failed then."""

    item: BadgeItem
    detail: ItemDetail
    held_at: datetime
    failures: int = 0
    # After a failed lookup: not released before this.  Stored under its old name.
    retry_at: datetime | None = msgspec.field(default=None, name="next_try")
    # A trusted bot's comment (the bot rule's ``trusted-bot``): released by the bots'
    # windows, not people's.  A mark written before this existed holds people's only.
    trusted_bot: bool = False

    @property
    def next_try(self) -> datetime | None:
        """Deprecated old name of ``retry_at``, kept for one release."""
        return self.retry_at


class Pending(msgspec.Struct, frozen=True):
    """A comment whose author's permission lookup failed, waiting for its retry."""

    item: BadgeItem
    detail: ItemDetail
    failures: int
    retry_at: datetime = msgspec.field(name="next_retry")  # stored under its old name

    @property
    def next_retry(self) -> datetime:
        """Deprecated old name of ``retry_at``, kept for one release."""
        return self.retry_at


class GapSpend(msgspec.Struct, frozen=True, array_like=True):
    """Gap pages one look read on this PR (both connections), for the hourly cap."""

    at: datetime
    pages: int


class WakeMark(msgspec.Struct, frozen=True, kw_only=True):
    version: int = MARK_VERSION
    baseline_done: bool = False
    # Everything created at or before the floor is old.
    floor: datetime | None = None
    handled: tuple[Handled, ...] = ()  # above the floor, oldest first
    # Ids from a version-0 mark, times unknown: handled, and dropped once the floor rises.
    legacy_ids: tuple[str, ...] = ()
    # The newest creation time each connection listed at the last step: a listing
    # whole back to these is continuous with what was seen before.
    comments_seen_to: datetime | None = None
    reviews_seen_to: datetime | None = None
    # Per connection: when a look last proved its listing whole back to what came before
    # (a listing that reached back by time, a finished gap read or the late-listing
    # check).  GitHub may list a comment up to ``floor_lag`` late, so a full window is
    # continuous by time only below ``proven_at - floor_lag``.
    comments_proven_at: datetime | None = None
    reviews_proven_at: datetime | None = None
    # Per connection: the ids of the last look's listing.  A full listing that shares one
    # with it is continuous with it: nothing was pushed out between the two looks, and
    # only a comment GitHub listed late can hide behind it (the late-listing check).
    comments_listed: tuple[str, ...] = ()
    reviews_listed: tuple[str, ...] = ()
    # When the late-listing check last read its page on this PR (once per ``floor_lag``).
    late_checked_at: datetime | None = None
    # Per connection: where a full listing that nobody could read behind began.  An item
    # of that connection created before it was pushed out unseen and is never delivered,
    # even when the flood is deleted and it is listed again; the PR's one floor may stay
    # lower, below an older item of the other connection decided then (seed case P8).
    comments_pushed_before: datetime | None = None
    reviews_pushed_before: datetime | None = None
    wakes: tuple[datetime, ...] = ()  # this PR's wake times, oldest first
    # The wakes that carried only trusted bots' comments, oldest first: the bots' own
    # windows (absent from a mark written before trusted bots: none).
    bot_wakes: tuple[datetime, ...] = ()
    held: tuple[Held, ...] = ()
    held_until: datetime | None = None  # when the rate limit lets the held ones go
    pending: tuple[Pending, ...] = ()
    # Eligible at the last step (bound, watched, open): timers only run while active.
    active: bool = True
    own_posts: bytes = b""  # the own-post matcher's state, opaque here
    # The gap pages read in the last hour (``gap_pages_per_hour``), oldest first.
    gap_spent: tuple[GapSpend, ...] = ()
    # Fleet mode: when a deferred gap read is tried again (a timed look with the last
    # badge); None: no gap waits.
    gap_retry_at: datetime | None = None
    # The watch this mark was written under (its start time, as an identity): a mark of
    # an earlier watch starts again from a baseline.
    watched_since: datetime | None = None


_encoder = msgspec.json.Encoder()
_decoder = msgspec.json.Decoder(WakeMark)


def encode_mark(mark: WakeMark) -> bytes:
    """The mark as stored (JSON); ``decode_mark`` reads it and every earlier version back."""
    return _encoder.encode(mark)


def decode_mark(data: bytes) -> WakeMark:
    """Read a stored mark of any version; raise ``MarkError`` saying what is wrong."""
    try:
        raw: Any = msgspec.json.decode(data)
    except msgspec.DecodeError as exc:
        raise MarkError(f"a wake mark is not valid JSON: {exc}") from None
    if isinstance(raw, list):
        return _from_plain_ids(raw)
    if isinstance(raw, dict) and "version" not in raw and isinstance(raw.get("comments"), list):
        return _from_plain_ids(raw["comments"])
    if not isinstance(raw, dict):
        raise MarkError("a wake mark is neither a list of ids nor an object")
    version = raw.get("version")
    if version not in (1, MARK_VERSION):
        raise MarkError(
            f"a wake mark has version {version!r}; this build reads versions 0 to "
            f"{MARK_VERSION} (a newer comment-wake wrote it?)"
        )
    try:
        if version == 1:
            return _from_version_1(raw)
        return _decoder.decode(data)
    except msgspec.ValidationError as exc:
        raise MarkError(f"a version-{version} wake mark is malformed: {exc}") from None


def _from_version_1(raw: dict[str, Any]) -> WakeMark:
    # Version 1's one ``listed_at`` proved both connections; it kept no listing ids.
    listed_at = raw.pop("listed_at", None)
    raw.update(version=MARK_VERSION, comments_proven_at=listed_at, reviews_proven_at=listed_at)
    return _decoder.decode(msgspec.json.encode(raw))


def _from_plain_ids(ids: list[Any]) -> WakeMark:
    if not all(isinstance(i, str) and i for i in ids):
        raise MarkError("a version-0 wake mark must be a list of comment ids (strings)")
    # The PR was looked at before, so there is no baseline to take; without times
    # there is no floor either, so the ids stand in for it until the floor rises.
    return WakeMark(baseline_done=True, legacy_ids=tuple(dict.fromkeys(ids)))
