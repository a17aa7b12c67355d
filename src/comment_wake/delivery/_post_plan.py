"""What the post sender does with one due post (pure: time is an argument).

A post is sent at most once unless GitHub surely does not have it.  A post left
``sending`` (a crash after the intent, or an answer lost after the request went out) is
looked for first, by its key, among the token login's items created after the intent;
GitHub may list a new comment late, so a search that finds nothing is made once more at
``recheck_at`` (twice the sweep's grace and a minute after the send), and only a second
miss sends it again.  An edit is idempotent and simply sent again.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Final

from comment_wake.store import Post

__all__ = ["Create", "Edit", "PostAction", "Search", "Wait", "plan_post", "recheck_at"]

_LISTING_SLACK: Final = timedelta(seconds=60)


@dataclass(frozen=True, slots=True)
class Create:
    """Post it (again: nothing of it was found twice)."""


@dataclass(frozen=True, slots=True)
class Edit:
    """Write ``body`` over the post (a progress comment's later text, or an edit whose
    answer was lost)."""

    body: str


@dataclass(frozen=True, slots=True)
class Search:
    """Look for the post by its key; ``final``: a miss now means it was never made."""

    final: bool


@dataclass(frozen=True, slots=True)
class Wait:
    """Nothing to do before ``until``."""

    until: datetime


PostAction = Create | Edit | Search | Wait


def recheck_at(sent_at: datetime, grace: timedelta) -> datetime:
    """When a post not found after its send is looked for the last time: GitHub lists a
    comment up to the sweep's grace late, twice over, and a minute's slack."""
    return sent_at + 2 * grace + _LISTING_SLACK


def plan_post(post: Post, now: datetime, *, grace: timedelta) -> PostAction:
    """What to do now with ``post``, a due row of the outbox of posts."""
    if post.status == "queued":
        return Create()
    if post.node_id is not None:
        # Posted: an edit waiting (``pending_body``) or one whose answer was lost (the
        # body being written is ``body``); writing the same text again changes nothing.
        return Edit(post.body if post.status == "sending" else post.pending_body or post.body)
    assert post.status == "sending"
    assert post.sent_at is not None
    if post.searched_at is None:
        return Search(final=False)
    last = recheck_at(post.sent_at, grace)
    return Search(final=True) if now >= last else Wait(last)
