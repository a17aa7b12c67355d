"""The data the monitor reads from GitHub: pull request references and badges.

Everything here is a frozen msgspec struct, so it can be compared, hashed, stored
and sent between the pure logic and the async shell without copies.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Literal

import msgspec

__all__ = [
    "Author",
    "BadgeBatch",
    "BadgeItem",
    "CheckFailure",
    "GapRead",
    "InlineComment",
    "ItemDetail",
    "LookupFailed",
    "PageInfo",
    "PermissionAnswer",
    "PrRef",
    "PrStatus",
]

_PR_REF = re.compile(r"^([A-Za-z0-9_.-]+)/([A-Za-z0-9_.-]+)#([1-9][0-9]{0,9})$")


class PrRef(msgspec.Struct, frozen=True, order=True):
    """One pull request on one GitHub host. ``str(ref)`` is ``owner/name#N``."""

    owner: str
    name: str
    number: int
    host: str = "github.com"

    @property
    def repo(self) -> str:
        return f"{self.owner}/{self.name}"

    def __str__(self) -> str:
        return f"{self.owner}/{self.name}#{self.number}"

    @classmethod
    def parse(cls, text: str, *, host: str = "github.com") -> PrRef:
        """Parse ``owner/name#N``; raise ``ValueError`` saying what to fix."""
        m = _PR_REF.match(text.strip())
        if m is None:
            raise ValueError(
                f"not a pull request reference: {text!r}; write it as owner/name#N, "
                "for example octo-org/octo-repo#12"
            )
        return cls(owner=m[1], name=m[2], number=int(m[3]), host=host)


class Author(msgspec.Struct, frozen=True):
    """A GitHub actor as the badge lists it: ``login`` and ``__typename``."""

    login: str
    type: str = "User"  # User, Bot, Mannequin, Organization, EnterpriseUserAccount


class BadgeItem(msgspec.Struct, frozen=True):
    """One issue comment or one review, as listed by the badge (no body)."""

    kind: Literal["comment", "review"]
    id: str  # the GraphQL node id
    database_id: int | None
    created_at: datetime  # createdAt of a comment, submittedAt of a review (UTC)
    author: Author | None  # None: a deleted account ("ghost")
    viewer_did_author: bool = False
    is_minimized: bool = False
    state: str | None = None  # a review's state: COMMENTED, APPROVED, ...


class PageInfo(msgspec.Struct, frozen=True):
    """The listing's backwards page info, for the gap read."""

    has_previous_page: bool = False
    start_cursor: str | None = None


class PrStatus(msgspec.Struct, frozen=True):
    """One pull request's badge at one poll."""

    pr: PrRef
    title: str
    url: str
    state: str  # OPEN, CLOSED, MERGED
    merged: bool
    is_draft: bool
    head_ref_oid: str
    review_decision: str | None
    check_state: str | None  # statusCheckRollup.state, None when there are no checks
    comments: tuple[BadgeItem, ...]  # oldest first
    reviews: tuple[BadgeItem, ...]  # oldest first
    # The oldest item of each connection that came back full: from this time on the
    # listing is whole.  None when neither connection came back full.
    person_comments_from: datetime | None
    comments_page: PageInfo = PageInfo()
    reviews_page: PageInfo = PageInfo()

    @property
    def is_open(self) -> bool:
        return self.state == "OPEN"


class InlineComment(msgspec.Struct, frozen=True):
    """A review's inline comment, from a detail read."""

    id: str
    database_id: int | None
    path: str
    line: int | None
    original_line: int | None
    body: str
    url: str


class ItemDetail(msgspec.Struct, frozen=True):
    """A comment's or review's body and links, from a detail read."""

    id: str
    kind: Literal["comment", "review"]
    body: str
    url: str
    last_edited_at: datetime | None = None
    inline: tuple[InlineComment, ...] = ()
    is_minimized: bool = False  # a maintainer hid it (read with the body)


class BadgeBatch(msgspec.Struct, frozen=True):
    """What one badge query of a batch of PRs found."""

    statuses: dict[PrRef, PrStatus]
    missing: tuple[PrRef, ...] = ()  # no such PR, or the token lost access
    cost: int | None = None
    remaining: int | None = None
    reset_at: datetime | None = None


class GapRead(msgspec.Struct, frozen=True):
    """Items read backwards from a listing's start cursor (the gap read after a flood)."""

    items: tuple[BadgeItem, ...]  # oldest first
    reached: datetime | None  # the oldest time the read reached back to
    complete: bool  # True when it reached the asked-for time or the start of the listing
    pages: int


class CheckFailure(msgspec.Struct, frozen=True):
    """A failing check on a head commit, from a detail read (never from the badge)."""

    id: str
    name: str
    conclusion: str
    summary: str
    url: str


class PermissionAnswer(msgspec.Struct, frozen=True):
    """GitHub's answer to the collaborator permission call (404 is an answer: ``none``)."""

    login: str
    permission: str  # admin, write, read, none (maintain reads as write, triage as read)
    role_name: str | None
    trusted: bool  # permission is in ``trusted_permissions``
    checked_at: datetime


class LookupFailed(msgspec.Struct, frozen=True):
    """A permission lookup that got no answer (403, 5xx, a timeout).  Not ``none``."""

    login: str
    status: int | None
    reason: str  # never carries a token
