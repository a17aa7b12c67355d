"""The ``content`` bucket: what one GitHub identity may create (posts and reactions).

GitHub limits content creation per account on top of the hourly budget (its secondary
limits), and a worker's tools post under the user's own login.  So every post the post
sender makes and every reaction request the acknowledger sends takes one token from one
bucket per identity (GitHub host and login): two token buckets, one refilled over a
minute and one over an hour, both starting full (``_buckets``).  The bucket is a row,
taken in a write transaction, so daemons sharing a store share it.  Reactions are shed
first: they leave a reserve of each window to posts.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from review_monitor.store import Migration, SyncStore, Tables, WriteTx

from ._buckets import bucket_tables, take_row

__all__ = ["CONTENT", "ContentLimits", "spend_content", "take_content"]

_V1, _V1_POSTGRES = bucket_tables("content_buckets")
CONTENT = Tables(
    "comment_wake.content",
    (Migration(1, "the content bucket", _V1, postgres=_V1_POSTGRES),),
)
"""The content bucket of each identity, a part of the store the app registers."""


@dataclass(frozen=True, slots=True)
class ContentLimits:
    """How much content one identity may create: ``per_minute`` and ``per_hour``."""

    per_minute: int = 20
    per_hour: int = 150

    @property
    def post_reserve(self) -> tuple[int, int]:
        """The tokens of the minute and of the hour that reactions leave for posts: a
        third of each window, and never the window's last token (a window of one or
        two is shared).  The defaults leave posts 6 of the minute's 20 and 50 of the
        hour's 150, so reactions alone may take 14 at once and 100 of a full hour."""
        return (
            min(self.per_minute - 1, self.per_minute // 3),
            min(self.per_hour - 1, self.per_hour // 3),
        )


def take_content(
    tx: WriteTx,
    identity: str,
    limits: ContentLimits,
    now: datetime,
    *,
    reaction: bool = False,
) -> datetime | None:
    """Take one token of ``identity``'s bucket inside ``tx``: None when taken, else the
    time it may be tried again (nothing taken).  A ``reaction`` is shed first: it takes
    a token only while the bucket keeps ``limits.post_reserve`` for posts, so a flood of
    reactions never holds up a post (a shed reaction waits; it is never dropped).  It
    reads the level, then writes what it read less one, under the bucket's lock
    (``content:IDENTITY``), taken first, so two daemons cannot both take the last token."""
    keep = limits.post_reserve if reaction else (0, 0)
    return take_row(tx, "content_buckets", identity, limits, now, keep=keep)


def spend_content(
    db: SyncStore,
    identity: str,
    limits: ContentLimits,
    now: datetime,
    *,
    reaction: bool = False,
) -> datetime | None:
    """``take_content`` in a write transaction of its own (the post sender's and the
    acknowledger's one call before each request)."""
    with db.write(at=now) as tx:
        return take_content(tx, identity, limits, now, reaction=reaction)
