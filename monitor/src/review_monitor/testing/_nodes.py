"""What FakeGitHub holds: repositories, pull requests, comments, reviews, checks, actors.

``Nodes`` is the one store of them: the lock every mutator and every request takes, the
clock, the id sequence, the repositories by name and every node by its global id.  The
world's mutators (``_world.py``) change it; the GraphQL and REST endpoints read it.
"""

from __future__ import annotations

import itertools
import threading
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, ClassVar, Protocol

from review_monitor._model import PrRef

__all__ = [
    "Actor",
    "Check",
    "Comment",
    "Inline",
    "Item",
    "Nodes",
    "Now",
    "Pr",
    "Repo",
    "Review",
]


class Now(Protocol):
    def now(self) -> datetime: ...


class _WallClock:
    def now(self) -> datetime:
        return datetime.now(UTC)


@dataclass
class Actor:
    typename: str
    login: str
    id: str

    @classmethod
    def of(cls, login: str, kind: str | None, seq: int) -> Actor:
        if kind is None:
            kind = "Bot" if login.endswith("[bot]") else "User"
        # GitHub's GraphQL spells a bot's login without the "[bot]" suffix.
        if kind == "Bot":
            login = login.removesuffix("[bot]")
        prefix = {"Bot": "BOT", "User": "U", "Organization": "O", "Mannequin": "MQ"}.get(kind, "A")
        return cls(typename=kind, login=login, id=f"{prefix}_fake{seq}")


@dataclass
class Item:
    typename: ClassVar[str]
    seq: int
    id: str
    database_id: int
    author: Actor | None
    body: str
    created_at: datetime
    url: str
    last_edited_at: datetime | None = None
    # GitHub may list an item a few seconds after it exists (``listed_late``): until
    # then the connections leave it out, though the PR's ``updatedAt`` has moved.
    listed_at: datetime | None = None
    is_minimized: bool = False
    deleted: bool = False
    reactions: list[tuple[str, str]] = field(default_factory=list)
    overrides: dict[str, Any] = field(default_factory=dict)

    @property
    def full_database_id(self) -> str:
        return str(self.database_id)


@dataclass
class Comment(Item):
    typename: ClassVar[str] = "IssueComment"


@dataclass
class Inline(Item):
    typename: ClassVar[str] = "PullRequestReviewComment"
    path: str = ""
    line: int | None = None
    original_line: int | None = None
    start_line: int | None = None
    original_start_line: int | None = None
    outdated: bool = False
    side: str | None = None  # REST's "LEFT" or "RIGHT"
    commit_id: str = ""
    in_reply_to: int | None = None  # the database id of the thread's first comment


@dataclass
class Review(Item):
    typename: ClassVar[str] = "PullRequestReview"
    state: str = "COMMENTED"
    submitted_at: datetime | None = None
    inline: list[Inline] = field(default_factory=list)
    commit_id: str = ""


@dataclass
class Check:
    id: str
    seq: int
    typename: str  # CheckRun or StatusContext
    name: str
    status: str = "COMPLETED"
    conclusion: str | None = None  # CheckRun
    state: str | None = None  # StatusContext
    title: str | None = None
    summary: str | None = None
    text: str | None = None
    details_url: str | None = None
    database_id: int = 0
    overrides: dict[str, Any] = field(default_factory=dict)

    @property
    def context(self) -> str:
        return self.name

    @property
    def description(self) -> str | None:
        return self.summary

    @property
    def target_url(self) -> str | None:
        return self.details_url

    @property
    def url(self) -> str:
        return self.details_url or ""


@dataclass
class Pr:
    typename: ClassVar[str] = "PullRequest"
    repo: Repo
    id: str
    number: int
    title: str
    author: Actor | None
    head_ref_oid: str
    updated_at: datetime
    state: str = "OPEN"
    merged: bool = False
    is_draft: bool = False
    review_decision: str | None = None
    comments: list[Comment] = field(default_factory=list)
    reviews: list[Review] = field(default_factory=list)
    checks: dict[str, list[Check]] = field(default_factory=dict)  # by head commit
    overrides: dict[str, Any] = field(default_factory=dict)
    locked: bool = False
    # The right-side lines a review comment may be on, by path (``set_diff``).
    diff: dict[str, frozenset[int]] = field(default_factory=dict)

    @property
    def url(self) -> str:
        return f"{self.repo.html}/pull/{self.number}"


@dataclass
class Repo:
    typename: ClassVar[str] = "Repository"
    owner: str
    name: str
    id: str
    html: str
    prs: dict[int, Pr] = field(default_factory=dict)
    permissions: dict[str, tuple[str, str]] = field(default_factory=dict)  # login -> (perm, role)
    hidden: bool = False
    push_access: bool = True

    @property
    def name_with_owner(self) -> str:
        return f"{self.owner}/{self.name}"


class Nodes:
    """Every repository and node, the lock that guards them, the clock and the id sequence."""

    def __init__(self, *, clock: Now | None, viewer: str, host: str) -> None:
        self.clock: Now = clock or _WallClock()
        self.host = host
        self.lock = threading.RLock()
        self.viewer = Actor.of(viewer, "User", 0)
        self.repos: dict[str, Repo] = {}
        self.by_id: dict[str, Any] = {}
        self.parent: dict[str, Pr] = {}  # the PR of each comment and review, by node id
        # How much later than made an item posted over REST is listed (None: at once).
        self.posts_listed_late: timedelta | None = None
        self._seq = itertools.count(1)

    def now(self) -> datetime:
        now = self.clock.now()
        if now.tzinfo is None:
            raise ValueError("FakeGitHub's clock must give timezone-aware times")
        return now.astimezone(UTC)

    def next(self) -> int:
        return next(self._seq)

    def add(self, node: Any) -> None:
        self.by_id[node.id] = node

    def check_new_id(self, node_id: str | None) -> None:
        if node_id is not None and node_id in self.by_id:
            raise ValueError(f"node id {node_id!r} is taken")

    def repo(self, repo: str, *, create: bool = False) -> Repo:
        key = repo.lower()
        found = self.repos.get(key)
        if found is None:
            if not create:
                raise KeyError(f"no repository {repo} in FakeGitHub")
            owner, _, name = repo.partition("/")
            if not owner or not name or "/" in name:
                raise ValueError(f"write a repository as owner/name, not {repo!r}")
            seq = self.next()
            found = Repo(
                owner=owner, name=name, id=f"R_fake{seq}", html=f"https://{self.host}/{repo}"
            )
            self.repos[key] = found
            self.add(found)
        return found

    def visible_repo(self, owner: str, name: str) -> Repo | None:
        """The repository the token can see (None if absent or hidden)."""
        repo = self.repos.get(f"{owner}/{name}".lower())
        return None if repo is None or repo.hidden else repo

    def pr(self, pr: PrRef) -> Pr:
        found = self.repo(pr.repo).prs.get(pr.number)
        if found is None:
            raise KeyError(f"no pull request {pr} in FakeGitHub")
        return found

    def touch(self, pr: Pr) -> Pr:
        """Move the PR's ``updatedAt`` to now, as GitHub does on a new comment, review or
        review comment, a push, a state change, a title or draft change."""
        pr.updated_at = max(pr.updated_at, self.now())
        return pr

    def listed(self, item: Item) -> bool:
        """Whether a connection lists ``item`` now (not deleted, not still listed late)."""
        return not item.deleted and (item.listed_at is None or item.listed_at <= self.now())

    def add_item(self, item: Item, pr: Pr) -> None:
        """Add a comment or review of ``pr``."""
        self.add(item)
        self.parent[item.id] = pr

    def item(self, item_id: str) -> Item:
        """A comment or review that is not deleted."""
        item = self.by_id.get(item_id)
        if not isinstance(item, Item) or item.deleted:
            raise KeyError(f"no comment or review {item_id} in FakeGitHub")
        return item
