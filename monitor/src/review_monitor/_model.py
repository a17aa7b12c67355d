"""The data the monitor reads from GitHub: pull request references and badges.

Everything here is a frozen msgspec struct, so it can be compared, hashed, stored
and sent between the pure logic and the async shell without copies.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Final, Literal

import msgspec

__all__ = [
    "MAX_PR_NUMBER",
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
    "SweepBatch",
    "SweepEntry",
    "fold",
    "pr_number_problem",
]

MAX_PR_NUMBER: Final = 2**31 - 1
"""The largest pull request number GitHub can hold (GraphQL's ``Int`` is 32-bit signed)."""

# GitHub's rules: an owner (a user or an organization) is letters, digits and hyphens, at
# most 39 (an enterprise's managed users add ``_shortcode``); a repository is letters,
# digits, ``.``, ``_`` and ``-``, at most 100, and never ``.`` or ``..``.
_OWNER = r"[A-Za-z0-9][A-Za-z0-9_-]{0,38}"
_NAME = r"[A-Za-z0-9_.-]{1,100}"
_NUMBER = r"[0-9]+"
_TAIL = r"(?:/(?:files|commits)/?|/)?(?:#.*)?"
_SHORT = re.compile(rf"({_OWNER})/({_NAME})#({_NUMBER})")
_PATH = re.compile(rf"({_OWNER})/({_NAME})/pull/({_NUMBER}){_TAIL}")
_URL = re.compile(rf"https?://([^/\s?#]+)/({_OWNER})/({_NAME})/pull/({_NUMBER}){_TAIL}", re.I)
_FORMS = (
    "write it as owner/name#N, owner/name/pull/N or https://HOST/owner/name/pull/N, "
    "for example octo-org/octo-repo#12 (owner: letters, digits, - and _, at most 39; "
    "name: letters, digits, ., _ and -, at most 100)"
)


def pr_number_problem(number: int) -> str | None:
    """Why ``number`` cannot be a pull request's number on GitHub, or None."""
    if number < 1:
        return f"pull request number {number} is not a pull request number: they start at 1"
    if number > MAX_PR_NUMBER:
        return (
            f"pull request number {number} is too large: GitHub numbers pull requests from 1 "
            f"to {MAX_PR_NUMBER}"
        )
    return None


def fold(text: str) -> str:
    """``text`` with ASCII letters in lower case: how GitHub compares owner, repository
    and host names (other characters are left as they are)."""
    # ``str.lower`` is the ASCII fold on an ASCII text, and several times faster than the
    # table: every PrRef hash and comparison folds its names.
    return text.lower() if text.isascii() else text.translate(_ASCII_LOWER)


_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


class PrRef(msgspec.Struct, frozen=True):
    """One pull request on one GitHub host. ``str(ref)`` is ``owner/name#N``.

    GitHub's owner, repository and host names are case-insensitive, so two refs are equal
    (and hash and sort alike) when they differ only in the case of ASCII letters; each
    keeps its own spelling for display (``key`` is the folded identity).
    """

    owner: str
    name: str
    number: int
    host: str = "github.com"

    @property
    def key(self) -> tuple[str, str, str, int]:
        """The ref's identity: ``(host, owner, name, number)`` with an ASCII case fold."""
        return (fold(self.host), fold(self.owner), fold(self.name), self.number)

    @property
    def key_text(self) -> str:
        """``key`` as one text, ``host/owner/name#N``: how the store keys a PR (its
        ``pr_key`` columns) and how the app's state keys it.  Equal refs have equal
        texts, on any database engine: no collation decides it."""
        host, owner, name, number = self.key
        return f"{host}/{owner}/{name}#{number}"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PrRef):
            return NotImplemented
        return self.key == other.key

    def __ne__(self, other: object) -> bool:
        if not isinstance(other, PrRef):
            return NotImplemented
        return self.key != other.key

    def __hash__(self) -> int:
        return hash(self.key)

    def __lt__(self, other: PrRef) -> bool:
        return self._order < other._order

    def __le__(self, other: PrRef) -> bool:
        return self._order <= other._order

    def __gt__(self, other: PrRef) -> bool:
        return self._order > other._order

    def __ge__(self, other: PrRef) -> bool:
        return self._order >= other._order

    @property
    def _order(self) -> tuple[str, str, int, str]:
        host, owner, name, number = self.key
        return (owner, name, number, host)

    @property
    def repo(self) -> str:
        return f"{self.owner}/{self.name}"

    def __str__(self) -> str:
        return f"{self.owner}/{self.name}#{self.number}"

    def spelled(self, name_with_owner: str) -> PrRef:
        """This ref spelled as GitHub spells its repository (``nameWithOwner``); itself
        when that is not the same repository in other letter case."""
        owner, _, name = name_with_owner.partition("/")
        if (fold(owner), fold(name)) != (fold(self.owner), fold(self.name)):
            return self
        return PrRef(owner=owner, name=name, number=self.number, host=self.host)

    @classmethod
    def parse(cls, text: str, *, host: str | None = "github.com") -> PrRef:
        """Parse ``owner/name#N``, ``owner/name/pull/N`` or a pull request's URL
        (``https://HOST/owner/name/pull/N``, with an optional ``/files``, ``/commits`` or
        ``#...`` tail); raise ``ValueError`` saying what to fix.

        A URL names its host: it must be ``host`` (the host being watched), unless
        ``host`` is None.  The number must be one GitHub can hold.
        """
        stripped = text.strip()
        url = _URL.fullmatch(stripped)
        if url is not None:
            found = fold(url[1])
            if host is not None and found != fold(host):
                raise ValueError(
                    f"{stripped} is a pull request on {found}, but the host is {fold(host)}; "
                    f"pass --host {found} (or set [github] host) to watch it"
                )
            owner, name, digits, at = url[2], url[3], url[4], found
        else:
            m = _SHORT.fullmatch(stripped) or _PATH.fullmatch(stripped)
            if m is None:
                raise ValueError(f"not a pull request reference: {text!r}; {_FORMS}")
            owner, name, digits = m[1], m[2], m[3]
            at = fold(host) if host is not None else "github.com"
        if name in (".", ".."):
            raise ValueError(f"not a repository name: {name!r} in {text!r}; {_FORMS}")
        if digits.startswith("0"):
            raise ValueError(
                f"not a pull request number: {digits!r} in {text!r}; {_FORMS} "
                "(N from 1, without leading zeros)"
            )
        number = int(digits) if len(digits) <= 12 else MAX_PR_NUMBER + 1
        problem = pr_number_problem(number)
        if problem is not None:
            raise ValueError(f"{problem} (in {text!r})")
        return cls(owner=owner, name=name, number=number, host=at)


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
    node_id: str = ""  # the PR's global id, which the sweep asks by ("" when unknown)
    updated_at: datetime | None = None  # GitHub's updatedAt at this read
    left_off: int = 0  # listed items left off the badge (malformed), so it is not whole

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
    # The first line of a multi-line comment (None: one line), on the diff as it is and as it
    # was; ``outdated``: the lines changed since, so ``line`` is gone and ``original_*`` say
    # where it was.
    start_line: int | None = None
    original_start_line: int | None = None
    outdated: bool = False


class ItemDetail(msgspec.Struct, frozen=True):
    """A comment's or review's body and links, from a detail read."""

    id: str
    kind: Literal["comment", "review"]
    body: str
    url: str
    last_edited_at: datetime | None = None
    inline: tuple[InlineComment, ...] = ()
    is_minimized: bool = False  # a maintainer hid it (read with the body)
    # A review read to its first page of inline comments only (``first_page_only``): the
    # cursor of the rest.  None: every inline comment is here.
    more_inline: str | None = None


class SweepEntry(msgspec.Struct, frozen=True):
    """One PR as the sweep saw it: only fields without connections."""

    node_id: str
    updated_at: datetime
    state: str
    merged: bool
    is_draft: bool
    head_ref_oid: str
    review_decision: str | None
    check_state: str | None

    @classmethod
    def of(cls, status: PrStatus) -> SweepEntry | None:
        """The entry a sweep would give for what ``status`` read (None: the badge did not
        give the PR's id or ``updatedAt``, or left a listed item off)."""
        if not status.node_id or status.updated_at is None or status.left_off:
            return None
        return cls(
            node_id=status.node_id,
            updated_at=status.updated_at,
            state=status.state,
            merged=status.merged,
            is_draft=status.is_draft,
            head_ref_oid=status.head_ref_oid,
            review_decision=status.review_decision,
            check_state=status.check_state,
        )


class SweepBatch(msgspec.Struct, frozen=True):
    """What one sweep query found.  ``entries`` by node id; ``missing``: ids GitHub
    resolves to nothing (NOT_FOUND, or not a pull request); ``unread``: ids whose part of
    the answer carried another error or was malformed (partial data)."""

    entries: dict[str, SweepEntry]
    missing: tuple[str, ...] = ()
    unread: tuple[str, ...] = ()
    cost: int | None = None
    remaining: int | None = None
    reset_at: datetime | None = None


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
