"""``FakeGitHub``: an in-process GitHub for tests and the demo.

It keeps repositories, pull requests, comments, reviews, checks and permissions in memory,
answers GraphQL by executing the query with graphql-core against a subset of GitHub's own
schema (``github-schema-subset.graphql``), answers the REST routes the project uses, prices
every query with GitHub's published formula, keeps an hourly budget, injects faults, and
records every request.  Reach it through ``transport()`` (``httpx.MockTransport``) or over
loopback HTTP with ``serve()`` / ``serve_in_thread()``.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import itertools
import json
import re
import threading
from collections.abc import AsyncIterator, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any, ClassVar, Literal, Protocol

import httpx
from graphql import (
    GraphQLError,
    GraphQLResolveInfo,
    GraphQLSchema,
    build_schema,
    execute_sync,
    parse,
    validate,
)
from graphql.language import DocumentNode, OperationDefinitionNode

from review_monitor._model import PrRef
from review_monitor._queries import OPERATION_KINDS

from ._cost import query_cost

__all__ = [
    "FakeGitHub",
    "Fault",
    "RecordedRequest",
    "RequestKind",
    "schema_subset",
]

RequestKind = Literal["badge", "detail", "gap", "checks", "reaction", "permission", "other"]

ROLES = {
    "admin": "admin",
    "maintain": "write",
    "write": "write",
    "triage": "read",
    "read": "read",
    "none": "none",
}

_SECONDARY = (
    "You have exceeded a secondary rate limit. Please wait a few minutes before you try again."
)
_DOCS = "https://docs.github.com/rest"
_HOUR = timedelta(hours=1)

if TYPE_CHECKING:
    _Info = GraphQLResolveInfo[Any]
else:
    _Info = GraphQLResolveInfo


class _Now(Protocol):
    def now(self) -> datetime: ...


class _WallClock:
    def now(self) -> datetime:
        return datetime.now(UTC)


@cache
def schema_subset() -> GraphQLSchema:
    """The schema subset FakeGitHub executes against (package data)."""
    text = (
        resources.files("review_monitor.testing")
        .joinpath("github-schema-subset.graphql")
        .read_text(encoding="utf-8")
    )
    return build_schema(text)


def _iso(t: datetime) -> str:
    return t.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass(frozen=True)
class Fault:
    """One injected fault, applied to the next ``times`` requests of ``kind`` (any if None).

    - ``timeout``: the request times out (no answer).
    - ``status`` other than 200: that status with a JSON ``message`` (and ``retry-after``,
      ``x-ratelimit-remaining`` when given); nothing is executed or charged.
    - ``errors`` with status 200: the query runs, then each error is added beside the data;
      an error with a ``path`` nulls the data there (partial data), one without a path
      drops all the data.

    ``kinds``, when given, matches a request of any of those kinds (``kind`` is then
    ignored); ``path_contains``, when given, matches only requests whose path contains it
    (a permission lookup of one login: ``"/collaborators/bob/"``).
    """

    status: int = 200
    kind: RequestKind | None = None
    times: int = 1
    timeout: bool = False
    message: str = "Server Error"
    retry_after: int | None = None
    ratelimit_remaining: int | None = None
    errors: tuple[Mapping[str, Any], ...] = ()
    kinds: tuple[RequestKind, ...] = ()
    path_contains: str | None = None

    def matches(self, kind: RequestKind, path: str) -> bool:
        if self.path_contains is not None and self.path_contains.lower() not in path.lower():
            return False
        if self.kinds:
            return kind in self.kinds
        return self.kind is None or self.kind == kind

    @classmethod
    def secondary_limit(
        cls, *, retry_after: int | None = 60, status: int = 403, kind: RequestKind | None = None
    ) -> Fault:
        return cls(status=status, kind=kind, message=_SECONDARY, retry_after=retry_after)

    @classmethod
    def server_error(cls, status: int = 502, *, kind: RequestKind | None = None) -> Fault:
        return cls(status=status, kind=kind, message="Server Error")

    @classmethod
    def time_out(cls, *, kind: RequestKind | None = None, times: int = 1) -> Fault:
        return cls(timeout=True, kind=kind, times=times)

    @classmethod
    def graphql_errors(cls, *errors: Mapping[str, Any], kind: RequestKind | None = None) -> Fault:
        return cls(errors=errors, kind=kind)


@dataclass(frozen=True)
class RecordedRequest:
    """One request FakeGitHub saw."""

    kind: RequestKind
    method: str
    path: str
    operation: str | None
    status: int  # 0 for a timeout
    cost: int  # points charged (GraphQL) or 1/0 (REST; a 304 is free)
    at: datetime
    variables: Mapping[str, Any] = field(default_factory=dict)


class _Timeout(Exception):
    pass


class _NotFound(Exception):
    type = "NOT_FOUND"


class _Refused(Exception):
    def __init__(self, message: str, type_: str) -> None:
        super().__init__(message)
        self.type = type_


@dataclass
class _Actor:
    typename: str
    login: str
    id: str

    @classmethod
    def of(cls, login: str, kind: str | None, seq: int) -> _Actor:
        if kind is None:
            kind = "Bot" if login.endswith("[bot]") else "User"
        # GitHub's GraphQL spells a bot's login without the "[bot]" suffix.
        if kind == "Bot":
            login = login.removesuffix("[bot]")
        prefix = {"Bot": "BOT", "User": "U", "Organization": "O", "Mannequin": "MQ"}.get(kind, "A")
        return cls(typename=kind, login=login, id=f"{prefix}_fake{seq}")


@dataclass
class _Item:
    typename: ClassVar[str]
    seq: int
    id: str
    database_id: int
    author: _Actor | None
    body: str
    created_at: datetime
    url: str
    last_edited_at: datetime | None = None
    is_minimized: bool = False
    deleted: bool = False
    reactions: list[tuple[str, str]] = field(default_factory=list)
    overrides: dict[str, Any] = field(default_factory=dict)

    @property
    def full_database_id(self) -> str:
        return str(self.database_id)


@dataclass
class _Comment(_Item):
    typename: ClassVar[str] = "IssueComment"


@dataclass
class _Inline(_Item):
    typename: ClassVar[str] = "PullRequestReviewComment"
    path: str = ""
    line: int | None = None
    original_line: int | None = None


@dataclass
class _Review(_Item):
    typename: ClassVar[str] = "PullRequestReview"
    state: str = "COMMENTED"
    submitted_at: datetime | None = None
    inline: list[_Inline] = field(default_factory=list)


@dataclass
class _Check:
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
class _Pr:
    typename: ClassVar[str] = "PullRequest"
    repo: _Repo
    id: str
    number: int
    title: str
    author: _Actor | None
    head_ref_oid: str
    state: str = "OPEN"
    merged: bool = False
    is_draft: bool = False
    review_decision: str | None = None
    comments: list[_Comment] = field(default_factory=list)
    reviews: list[_Review] = field(default_factory=list)
    checks: dict[str, list[_Check]] = field(default_factory=dict)  # by head commit
    overrides: dict[str, Any] = field(default_factory=dict)

    @property
    def url(self) -> str:
        return f"{self.repo.html}/pull/{self.number}"


@dataclass
class _Repo:
    typename: ClassVar[str] = "Repository"
    owner: str
    name: str
    id: str
    html: str
    prs: dict[int, _Pr] = field(default_factory=dict)
    permissions: dict[str, tuple[str, str]] = field(default_factory=dict)  # login -> (perm, role)
    hidden: bool = False
    push_access: bool = True

    @property
    def name_with_owner(self) -> str:
        return f"{self.owner}/{self.name}"


def _cursor(seq: int) -> str:
    return base64.b64encode(f"cursor:v2:{seq}".encode()).decode()


def _uncursor(cursor: object) -> int | None:
    if not isinstance(cursor, str):
        return None
    try:
        text = base64.b64decode(cursor.encode(), validate=True).decode()
    except ValueError:
        return None
    prefix = "cursor:v2:"
    tail = text.removeprefix(prefix)
    return int(tail) if text.startswith(prefix) and tail.isdigit() else None


def _connection(name: str, items: Sequence[Any], args: Mapping[str, Any]) -> dict[str, Any]:
    """A GraphQL connection over ``items`` (each with ``seq``), as GitHub paginates."""
    first, last = args.get("first"), args.get("last")
    if first is None and last is None:
        raise _Refused(
            f"You must provide a `first` or `last` value to properly paginate the `{name}` "
            "connection.",
            "MISSING_PAGINATION_BOUNDARIES",
        )
    for arg, value in (("first", first), ("last", last)):
        if value is not None and not 1 <= value <= 100:
            raise _Refused(
                f"Requesting {value} records on the `{name}` connection exceeds the `{arg}` "
                "limit of 100 records.",
                "EXCESSIVE_PAGINATION",
            )
    window = list(items)
    after, before = _uncursor(args.get("after")), _uncursor(args.get("before"))
    if args.get("after") is not None and after is None:
        raise _Refused(f"`{args.get('after')}` does not appear to be a valid cursor.", "INVALID")
    if args.get("before") is not None and before is None:
        raise _Refused(f"`{args.get('before')}` does not appear to be a valid cursor.", "INVALID")
    cut_front = cut_back = False
    if after is not None:
        kept = [i for i in window if i.seq > after]
        cut_front = len(kept) < len(window)
        window = kept
    if before is not None:
        kept = [i for i in window if i.seq < before]
        cut_back = len(kept) < len(window)
        window = kept
    if first is not None and len(window) > first:
        window, cut_back = window[:first], True
    if last is not None and len(window) > last:
        window, cut_front = window[-last:], True
    return {
        "nodes": window,
        "edges": [{"cursor": _cursor(i.seq), "node": i} for i in window],
        "totalCount": len(items),
        "pageInfo": {
            "hasPreviousPage": cut_front,
            "hasNextPage": cut_back,
            "startCursor": _cursor(window[0].seq) if window else None,
            "endCursor": _cursor(window[-1].seq) if window else None,
        },
    }


_CAMEL = re.compile(r"(?<!^)(?=[A-Z])")


@cache
def _snake(name: str) -> str:
    return _CAMEL.sub("_", name).lower()


@dataclass
class _Answer:
    status: int
    body: bytes
    headers: dict[str, str]


@dataclass
class _Budget:
    limit: int
    used: int = 0
    reset_at: datetime | None = None

    def roll(self, now: datetime) -> None:
        if self.reset_at is None or now >= self.reset_at:
            self.used = 0
            self.reset_at = now + _HOUR

    @property
    def remaining(self) -> int:
        return max(0, self.limit - self.used)

    def headers(self, resource: str) -> dict[str, str]:
        reset = int(self.reset_at.timestamp()) if self.reset_at else 0
        return {
            "x-ratelimit-limit": str(self.limit),
            "x-ratelimit-remaining": str(self.remaining),
            "x-ratelimit-used": str(self.used),
            "x-ratelimit-reset": str(reset),
            "x-ratelimit-resource": resource,
        }


_PERMISSION_PATH = re.compile(r"^/repos/([^/]+)/([^/]+)/collaborators/([^/]+)/permission$")


class FakeGitHub:
    """An in-memory GitHub.  Every mutator is safe to call while it serves requests."""

    def __init__(
        self,
        *,
        clock: _Now | None = None,
        viewer: str = "octo-worker",
        host: str = "github.com",
        graphql_limit: int = 5000,
        rest_limit: int = 5000,
        token: str | None = None,
        hang_seconds: float = 30.0,
    ) -> None:
        self.clock: _Now = clock or _WallClock()
        self.host = host
        self.token = token
        self.hang_seconds = hang_seconds
        self._lock = threading.RLock()
        self._seq = itertools.count(1)
        self._viewer = _Actor.of(viewer, "User", 0)
        self._repos: dict[str, _Repo] = {}
        self._nodes: dict[str, Any] = {}
        self._faults: list[list[Any]] = []  # [fault, times left]
        self._requests: list[RecordedRequest] = []
        self._graphql_budget = _Budget(graphql_limit)
        self._rest_budget = _Budget(rest_limit)
        self._resolvers: dict[tuple[str, str], Callable[..., Any]] = {
            ("Query", "repository"): self._r_repository,
            ("Query", "node"): self._r_node,
            ("Query", "viewer"): lambda _s, _i, **_a: self._viewer,
            ("Query", "rateLimit"): lambda _s, info, **_a: info.context["rate"],
            ("Query", "id"): lambda _s, _i, **_a: "Q_fake",
            ("Repository", "pullRequest"): self._r_pull_request,
            ("PullRequest", "comments"): self._r_comments,
            ("PullRequest", "reviews"): self._r_reviews,
            ("PullRequest", "statusCheckRollup"): self._r_rollup,
            ("PullRequestReview", "comments"): self._r_inline,
            ("StatusCheckRollup", "contexts"): self._r_contexts,
            ("Mutation", "addReaction"): self._r_add_reaction,
        }
        self._prepared: dict[str, tuple[DocumentNode, list[dict[str, Any]]]] = {}

    # ----------------------------------------------------------------- data

    def _now(self) -> datetime:
        now = self.clock.now()
        if now.tzinfo is None:
            raise ValueError("FakeGitHub's clock must give timezone-aware times")
        return now.astimezone(UTC)

    def _next(self) -> int:
        return next(self._seq)

    @property
    def viewer(self) -> str:
        """The token's login."""
        return self._viewer.login

    def _repo(self, repo: str, *, create: bool = False) -> _Repo:
        key = repo.lower()
        found = self._repos.get(key)
        if found is None:
            if not create:
                raise KeyError(f"no repository {repo} in FakeGitHub")
            owner, _, name = repo.partition("/")
            if not owner or not name or "/" in name:
                raise ValueError(f"write a repository as owner/name, not {repo!r}")
            seq = self._next()
            found = _Repo(
                owner=owner, name=name, id=f"R_fake{seq}", html=f"https://{self.host}/{repo}"
            )
            self._repos[key] = found
            self._nodes[found.id] = found
        return found

    def _pr(self, pr: PrRef) -> _Pr:
        found = self._repo(pr.repo).prs.get(pr.number)
        if found is None:
            raise KeyError(f"no pull request {pr} in FakeGitHub")
        return found

    def add_repo(self, repo: str) -> None:
        """Add ``owner/name`` (adding a PR adds its repository too)."""
        with self._lock:
            self._repo(repo, create=True)

    def add_pr(
        self,
        repo: str,
        number: int | None = None,
        *,
        title: str = "A change",
        author: str = "octocat",
        draft: bool = False,
        head_oid: str | None = None,
    ) -> PrRef:
        """Open a pull request; returns its reference on this fake's host."""
        with self._lock:
            r = self._repo(repo, create=True)
            if number is None:
                number = max(r.prs, default=0) + 1
            if number in r.prs:
                raise ValueError(f"{repo}#{number} exists already")
            seq = self._next()
            pr = _Pr(
                repo=r,
                id=f"PR_fake{seq}",
                number=number,
                title=title,
                author=_Actor.of(author, None, seq),
                head_ref_oid=head_oid or hashlib.sha1(f"head{seq}".encode()).hexdigest(),
                is_draft=draft,
            )
            r.prs[number] = pr
            self._nodes[pr.id] = pr
            return PrRef(owner=r.owner, name=r.name, number=number, host=self.host)

    def _new_item_fields(
        self,
        pr: _Pr,
        author: str | None,
        author_type: str | None,
        body: str,
        at: datetime | None,
        database_id: int | None = None,
    ) -> dict[str, Any]:
        seq = self._next()
        return {
            "seq": seq,
            "database_id": 1_000_000 + seq if database_id is None else database_id,
            "author": None if author is None else _Actor.of(author, author_type, seq),
            "body": body,
            "created_at": (at or self._now()).astimezone(UTC),
        }

    def post_comment(
        self,
        pr: PrRef,
        author: str | None,
        body: str,
        *,
        author_type: str | None = None,
        at: datetime | None = None,
        node_id: str | None = None,
        database_id: int | None = None,
    ) -> str:
        """Post an issue comment; returns its node id.  ``author=None``: a deleted account.
        A login ending in ``[bot]`` is a Bot unless ``author_type`` says otherwise.
        ``node_id`` and ``database_id`` choose the ids (replays name their comments)."""
        with self._lock:
            p = self._pr(pr)
            self._check_new_id(node_id)
            f = self._new_item_fields(p, author, author_type, body, at, database_id)
            item = _Comment(
                id=node_id or f"IC_fake{f['seq']}",
                url=f"{p.url}#issuecomment-{f['database_id']}",
                **f,
            )
            p.comments.append(item)
            self._nodes[item.id] = item
            return item.id

    def post_review(
        self,
        pr: PrRef,
        author: str | None,
        state: str = "COMMENTED",
        body: str = "",
        *,
        inline: Sequence[tuple[str, int | None, str]] = (),
        author_type: str | None = None,
        at: datetime | None = None,
        node_id: str | None = None,
        database_id: int | None = None,
        inline_ids: Sequence[tuple[str | None, int | None]] = (),
    ) -> str:
        """Submit a review (``APPROVED``, ``CHANGES_REQUESTED``, ``COMMENTED``, or
        ``PENDING``: not submitted) with inline comments ``(path, line, body)``.
        ``node_id``, ``database_id`` and ``inline_ids`` (node id, database id per inline
        comment, None parts assigned) choose the ids."""
        if state not in ("APPROVED", "CHANGES_REQUESTED", "COMMENTED", "DISMISSED", "PENDING"):
            raise ValueError(f"not a review state: {state!r}")
        with self._lock:
            p = self._pr(pr)
            self._check_new_id(node_id)
            for inline_id, _ in inline_ids:
                self._check_new_id(inline_id)
            f = self._new_item_fields(p, author, author_type, body, at, database_id)
            review = _Review(
                id=node_id or f"PRR_fake{f['seq']}",
                url=f"{p.url}#pullrequestreview-{f['database_id']}",
                state=state,
                submitted_at=None if state == "PENDING" else f["created_at"],
                **f,
            )
            for k, (path, line, text) in enumerate(inline):
                chosen_id, chosen_db = inline_ids[k] if k < len(inline_ids) else (None, None)
                g = self._new_item_fields(p, author, author_type, text, f["created_at"], chosen_db)
                comment = _Inline(
                    id=chosen_id or f"PRRC_fake{g['seq']}",
                    url=f"{p.url}#discussion_r{g['database_id']}",
                    path=path,
                    line=line,
                    original_line=line,
                    **g,
                )
                review.inline.append(comment)
                self._nodes[comment.id] = comment
            p.reviews.append(review)
            self._nodes[review.id] = review
            return review.id

    def _check_new_id(self, node_id: str | None) -> None:
        if node_id is not None and node_id in self._nodes:
            raise ValueError(f"node id {node_id!r} is taken")

    def _item(self, item_id: str) -> _Item:
        item = self._nodes.get(item_id)
        if not isinstance(item, _Item) or item.deleted:
            raise KeyError(f"no comment or review {item_id} in FakeGitHub")
        return item

    def edit(self, item_id: str, body: str, *, at: datetime | None = None) -> None:
        """Edit a comment's or review's body (its id stays; ``lastEditedAt`` moves)."""
        with self._lock:
            item = self._item(item_id)
            item.body = body
            item.last_edited_at = (at or self._now()).astimezone(UTC)

    def delete(self, item_id: str) -> None:
        """Delete a comment (it leaves every listing; its node id no longer resolves)."""
        with self._lock:
            self._item(item_id).deleted = True

    def minimize(self, item_id: str) -> None:
        """Hide a comment as GitHub's "minimize" does (still listed, ``isMinimized``)."""
        with self._lock:
            self._item(item_id).is_minimized = True

    def dismiss(self, review_id: str) -> None:
        with self._lock:
            item = self._item(review_id)
            if not isinstance(item, _Review):
                raise KeyError(f"{review_id} is not a review")
            item.state = "DISMISSED"

    def corrupt(self, node_id: str, field_name: str, value: Any) -> None:
        """Answer ``value`` for a GraphQL field of one node from now on (malformed data:
        ``corrupt(id, "createdAt", "yesterday")``, ``corrupt(id, "author", None)``)."""
        with self._lock:
            node = self._nodes[node_id]
            node.overrides[field_name] = value

    def merge(self, pr: PrRef) -> None:
        with self._lock:
            p = self._pr(pr)
            p.state, p.merged = "MERGED", True

    def close(self, pr: PrRef) -> None:
        with self._lock:
            p = self._pr(pr)
            if p.merged:
                raise ValueError(f"{pr} is merged")
            p.state = "CLOSED"

    def reopen(self, pr: PrRef) -> None:
        with self._lock:
            p = self._pr(pr)
            if p.merged:
                raise ValueError(f"{pr} is merged")
            p.state = "OPEN"

    def set_draft(self, pr: PrRef, draft: bool) -> None:
        with self._lock:
            self._pr(pr).is_draft = draft

    def set_review_decision(self, pr: PrRef, decision: str | None) -> None:
        with self._lock:
            self._pr(pr).review_decision = decision

    def push(self, pr: PrRef, oid: str | None = None) -> str:
        """Move the PR's head to a new commit (checks belong to a head commit)."""
        with self._lock:
            p = self._pr(pr)
            p.head_ref_oid = oid or hashlib.sha1(f"push{self._next()}".encode()).hexdigest()
            return p.head_ref_oid

    def head(self, pr: PrRef) -> str:
        with self._lock:
            return self._pr(pr).head_ref_oid

    def add_check_run(
        self,
        pr: PrRef,
        name: str,
        *,
        conclusion: str | None = "FAILURE",
        status: str = "COMPLETED",
        title: str | None = None,
        summary: str | None = None,
        text: str | None = None,
        details_url: str | None = None,
    ) -> str:
        """Add a check run on the PR's current head; returns its node id."""
        with self._lock:
            p = self._pr(pr)
            seq = self._next()
            check = _Check(
                id=f"CR_fake{seq}",
                seq=seq,
                typename="CheckRun",
                name=name,
                status=status,
                conclusion=conclusion if status == "COMPLETED" else None,
                title=title,
                summary=summary,
                text=text,
                details_url=details_url or f"{p.repo.html}/runs/{seq}",
                database_id=2_000_000 + seq,
            )
            p.checks.setdefault(p.head_ref_oid, []).append(check)
            self._nodes[check.id] = check
            return check.id

    def add_status(
        self,
        pr: PrRef,
        context: str,
        state: str = "FAILURE",
        *,
        description: str | None = None,
        target_url: str | None = None,
    ) -> str:
        """Add a commit status context on the PR's current head; returns its node id."""
        with self._lock:
            p = self._pr(pr)
            seq = self._next()
            check = _Check(
                id=f"SC_fake{seq}",
                seq=seq,
                typename="StatusContext",
                name=context,
                state=state,
                summary=description,
                details_url=target_url,
            )
            p.checks.setdefault(p.head_ref_oid, []).append(check)
            self._nodes[check.id] = check
            return check.id

    def set_permission(self, repo: str, login: str, role: str | None) -> None:
        """A collaborator's role: admin, maintain, write, triage, read, none (None: not
        listed, so the permission route answers 404)."""
        with self._lock:
            r = self._repo(repo, create=True)
            if role is None:
                r.permissions.pop(login.lower(), None)
                return
            if role not in ROLES:
                raise ValueError(f"not a role: {role!r}; use one of {', '.join(ROLES)}")
            r.permissions[login.lower()] = (ROLES[role], role)

    def set_push_access(self, repo: str, allowed: bool) -> None:
        """Whether the token may read collaborator permissions (GitHub answers 403 if not)."""
        with self._lock:
            self._repo(repo, create=True).push_access = allowed

    def hide_repo(self, repo: str, hidden: bool = True) -> None:
        """The token loses (or regains) access: GraphQL answers NOT_FOUND, REST 404."""
        with self._lock:
            self._repo(repo).hidden = hidden

    def reactions(self, subject_id: str) -> tuple[tuple[str, str], ...]:
        """``(content, login)`` of each reaction added to a comment or review."""
        with self._lock:
            return tuple(self._item(subject_id).reactions)

    # --------------------------------------------------------------- faults

    def inject(self, fault: Fault) -> None:
        """Apply ``fault`` to the next ``fault.times`` matching requests."""
        if fault.times < 1:
            raise ValueError("a fault applies to at least one request")
        with self._lock:
            self._faults.append([fault, fault.times])

    def _take_fault(self, kind: RequestKind, path: str = "") -> Fault | None:
        for entry in self._faults:
            fault, left = entry
            if fault.matches(kind, path):
                entry[1] = left - 1
                if entry[1] == 0:
                    self._faults.remove(entry)
                return fault  # type: ignore[no-any-return]
        return None

    # -------------------------------------------------------------- records

    @property
    def requests(self) -> tuple[RecordedRequest, ...]:
        with self._lock:
            return tuple(self._requests)

    def count(self, kind: RequestKind | None = None) -> int:
        """How many requests (of ``kind``) FakeGitHub has seen."""
        with self._lock:
            return sum(1 for r in self._requests if kind is None or r.kind == kind)

    def clear_requests(self) -> None:
        with self._lock:
            self._requests.clear()

    @property
    def graphql_remaining(self) -> int:
        with self._lock:
            self._graphql_budget.roll(self._now())
            return self._graphql_budget.remaining

    @property
    def graphql_used(self) -> int:
        with self._lock:
            self._graphql_budget.roll(self._now())
            return self._graphql_budget.used

    # ------------------------------------------------------------ resolvers

    def _resolve(self, source: Any, info: _Info, **args: Any) -> Any:
        name = info.field_name
        overrides = getattr(source, "overrides", None)
        if overrides and name in overrides:
            return overrides[name]
        special = self._resolvers.get((info.parent_type.name, name))
        if special is not None:
            return special(source, info, **args)
        if name == "viewerDidAuthor":
            author = getattr(source, "author", None)
            return author is not None and author.login.lower() == self._viewer.login.lower()
        if isinstance(source, Mapping):
            value = source.get(name)
        else:
            value = getattr(source, _snake(name), None)
        if isinstance(value, datetime):
            return _iso(value)
        return value

    @staticmethod
    def _type_of(value: Any, _info: _Info, _abstract: Any) -> str | None:
        if isinstance(value, Mapping):
            found = value.get("__typename")
            return found if isinstance(found, str) else None
        typename = getattr(value, "typename", None)
        return typename if isinstance(typename, str) else None

    def _visible_repo(self, owner: str, name: str) -> _Repo | None:
        repo = self._repos.get(f"{owner}/{name}".lower())
        return None if repo is None or repo.hidden else repo

    def _r_repository(self, _s: Any, _i: _Info, **args: Any) -> _Repo:
        repo = self._visible_repo(args["owner"], args["name"])
        if repo is None:
            raise _NotFound(
                f"Could not resolve to a Repository with the name '{args['owner']}/{args['name']}'."
            )
        return repo

    def _r_pull_request(self, repo: _Repo, _i: _Info, **args: Any) -> _Pr:
        pr = repo.prs.get(args["number"])
        if pr is None:
            raise _NotFound(
                f"Could not resolve to a PullRequest with the number of {args['number']}."
            )
        return pr

    def _r_node(self, _s: Any, _i: _Info, **args: Any) -> Any:
        node = self._nodes.get(args["id"])
        hidden = False
        if isinstance(node, _Item):
            hidden = node.deleted
        elif isinstance(node, _Repo):
            hidden = node.hidden
        if node is None or hidden:
            raise _NotFound(f"Could not resolve to a node with the global id of '{args['id']}'")
        return node

    def _r_comments(self, pr: _Pr, _i: _Info, **args: Any) -> dict[str, Any]:
        listed = [c for c in pr.comments if not c.deleted]
        return _connection("comments", listed, args)

    def _r_reviews(self, pr: _Pr, _i: _Info, **args: Any) -> dict[str, Any]:
        states = args.get("states")
        author = args.get("author")
        listed = [
            r
            for r in pr.reviews
            if not r.deleted
            and (states is None or r.state in states)
            # A pending review is visible to its author only.
            and (
                r.state != "PENDING"
                or (r.author is not None and r.author.login == self._viewer.login)
            )
            and (author is None or (r.author is not None and r.author.login == author))
        ]
        return _connection("reviews", listed, args)

    def _r_inline(self, review: _Review, _i: _Info, **args: Any) -> dict[str, Any]:
        return _connection("comments", [c for c in review.inline if not c.deleted], args)

    def _r_rollup(self, pr: _Pr, _i: _Info, **_a: Any) -> dict[str, Any] | None:
        checks = pr.checks.get(pr.head_ref_oid)
        if not checks:
            return None
        failing = {"FAILURE", "TIMED_OUT", "CANCELLED", "ACTION_REQUIRED", "STARTUP_FAILURE"}
        states = set()
        for c in checks:
            if c.typename == "CheckRun":
                if c.status != "COMPLETED":
                    states.add("PENDING")
                elif c.conclusion in failing:
                    states.add("FAILURE")
                else:
                    states.add("SUCCESS")
            else:
                states.add(c.state or "PENDING")
        state = next(
            (s for s in ("ERROR", "FAILURE", "PENDING", "EXPECTED") if s in states), "SUCCESS"
        )
        return {
            "id": f"SCR_{pr.id}_{pr.head_ref_oid[:7]}",
            "state": state,
            "commit": {"id": f"C_{pr.head_ref_oid}", "oid": pr.head_ref_oid},
            "checks": checks,
        }

    def _r_contexts(self, rollup: Mapping[str, Any], _i: _Info, **args: Any) -> dict[str, Any]:
        return _connection("contexts", rollup["checks"], args)

    def _r_add_reaction(self, _s: Any, info: _Info, **args: Any) -> dict[str, Any]:
        given = args["input"]
        node = self._nodes.get(given["subjectId"])
        if not isinstance(node, _Item) or node.deleted:
            raise _NotFound(
                f"Could not resolve to a node with the global id of '{given['subjectId']}'"
            )
        content = given["content"]
        if (content, self._viewer.login) not in node.reactions:
            node.reactions.append((content, self._viewer.login))
        seq = self._next()
        return {
            "clientMutationId": given.get("clientMutationId"),
            "reaction": {
                "__typename": "Reaction",
                "id": f"REA_fake{seq}",
                "content": content,
                "createdAt": _iso(self._now()),
                "user": self._viewer,
            },
            "subject": node,
        }

    # ------------------------------------------------------------- requests

    def handle(self, method: str, path: str, headers: Mapping[str, str], body: bytes) -> _Answer:
        """Answer one HTTP request (both transports come here).  Raises ``_Timeout``."""
        with self._lock:
            return self._handle(method, path, {k.lower(): v for k, v in headers.items()}, body)

    def _record(
        self,
        kind: RequestKind,
        method: str,
        path: str,
        status: int,
        cost: int,
        operation: str | None = None,
        variables: Mapping[str, Any] | None = None,
    ) -> None:
        self._requests.append(
            RecordedRequest(
                kind=kind,
                method=method,
                path=path,
                operation=operation,
                status=status,
                cost=cost,
                at=self._now(),
                variables=dict(variables or {}),
            )
        )

    def _handle(self, method: str, path: str, headers: dict[str, str], body: bytes) -> _Answer:
        path = path.split("?", 1)[0]
        for prefix in ("/api/v3", "/api"):
            if path.startswith(prefix + "/"):
                path = path[len(prefix) :]
                break
        if path == "/graphql" and method == "POST":
            return self._graphql(path, headers, body)
        kind: RequestKind = "permission" if _PERMISSION_PATH.match(path) else "other"
        fault = self._take_fault(kind, path)
        if fault is not None:
            return self._fault_answer(fault, kind, method, path, None, {}, self._rest_budget)
        unauthorised = self._check_token(headers)
        if unauthorised is not None:
            self._record(kind, method, path, 401, 0)
            return unauthorised
        return self._rest(method, path, headers, kind)

    def _check_token(self, headers: Mapping[str, str]) -> _Answer | None:
        if self.token is None:
            return None
        scheme, _, given = headers.get("authorization", "").partition(" ")
        if scheme.lower() in ("bearer", "token") and given == self.token:
            return None
        return _json_answer(401, {"message": "Bad credentials", "documentation_url": _DOCS})

    def _fault_answer(
        self,
        fault: Fault,
        kind: RequestKind,
        method: str,
        path: str,
        operation: str | None,
        variables: Mapping[str, Any],
        budget: _Budget,
    ) -> _Answer:
        if fault.timeout:
            self._record(kind, method, path, 0, 0, operation, variables)
            raise _Timeout
        budget.roll(self._now())
        extra = budget.headers("graphql" if path == "/graphql" else "core")
        if fault.retry_after is not None:
            extra["retry-after"] = str(fault.retry_after)
        if fault.ratelimit_remaining is not None:
            extra["x-ratelimit-remaining"] = str(fault.ratelimit_remaining)
        self._record(kind, method, path, fault.status, 0, operation, variables)
        payload = {"message": fault.message, "documentation_url": _DOCS}
        return _json_answer(fault.status, payload, extra)

    # ---------------------------------------------------------------- REST

    def _rest(
        self, method: str, path: str, headers: Mapping[str, str], kind: RequestKind
    ) -> _Answer:
        budget = self._rest_budget
        budget.roll(self._now())
        if method != "GET":
            self._record(kind, method, path, 404, 0)
            return _json_answer(404, {"message": "Not Found", "documentation_url": _DOCS})
        if budget.remaining <= 0:
            self._record(kind, method, path, 403, 0)
            payload = {
                "message": "API rate limit exceeded for user ID 1.",
                "documentation_url": _DOCS,
            }
            return _json_answer(403, payload, budget.headers("core"))
        status, payload = self._rest_route(path)
        encoded = json.dumps(payload, separators=(",", ":")).encode()
        etag = f'"{hashlib.sha256(encoded).hexdigest()[:40]}"'
        if status == 200 and headers.get("if-none-match") == etag:
            self._record(kind, method, path, 304, 0)
            answer_headers = budget.headers("core")
            answer_headers["etag"] = etag
            return _Answer(304, b"", answer_headers)
        budget.used += 1
        self._record(kind, method, path, status, 1)
        answer_headers = budget.headers("core")
        if status == 200:
            answer_headers["etag"] = etag
        return _json_answer(status, payload, answer_headers)

    def _rest_route(self, path: str) -> tuple[int, Any]:
        not_found = {"message": "Not Found", "documentation_url": _DOCS}
        if path == "/user":
            return 200, {"login": self._viewer.login, "id": 1, "type": "User"}
        m = _PERMISSION_PATH.match(path)
        if m is None:
            return 404, not_found
        owner, name, login = m[1], m[2], m[3]
        repo = self._visible_repo(owner, name)
        if repo is None:
            return 404, not_found
        if not repo.push_access:
            return 403, {
                "message": "Must have push access to view collaborator permission.",
                "documentation_url": _DOCS,
            }
        entry = repo.permissions.get(login.lower())
        if entry is None:
            return 404, not_found
        permission, role = entry
        user = {"login": login, "type": "Bot" if login.endswith("[bot]") else "User"}
        return 200, {"permission": permission, "role_name": role, "user": user}

    # -------------------------------------------------------------- GraphQL

    def _graphql(self, path: str, headers: Mapping[str, str], body: bytes) -> _Answer:
        try:
            request = json.loads(body)
            query = request["query"]
            variables = request.get("variables") or {}
            operation_name = request.get("operationName")
            if not isinstance(query, str) or not isinstance(variables, dict):
                raise TypeError
        except (ValueError, KeyError, TypeError):
            self._record("other", "POST", path, 400, 0)
            return _json_answer(
                400, {"message": "Problems parsing JSON", "documentation_url": _DOCS}
            )
        try:
            document, problems = self._prepare(query)
        except GraphQLError as exc:
            self._record("other", "POST", path, 200, 0)
            return _json_answer(200, {"errors": [{"message": exc.message}]})
        operation = _operation_name(document, operation_name)
        kind: RequestKind = OPERATION_KINDS.get(operation or "", "other")  # type: ignore[assignment]
        fault = self._take_fault(kind, path)
        budget = self._graphql_budget
        if fault is not None and (fault.timeout or fault.status != 200):
            return self._fault_answer(fault, kind, "POST", path, operation, variables, budget)
        unauthorised = self._check_token(headers)
        if unauthorised is not None:
            self._record(kind, "POST", path, 401, 0, operation, variables)
            return unauthorised
        schema = schema_subset()
        if problems:
            self._record(kind, "POST", path, 200, 0, operation, variables)
            return _json_answer(200, {"errors": problems})
        now = self._now()
        budget.roll(now)
        cost = query_cost(document, variables, operation_name=operation)
        if cost.nodes > 500_000:
            self._record(kind, "POST", path, 200, 0, operation, variables)
            message = (
                f"This query requests up to {cost.nodes} possible nodes which exceeds the "
                "maximum limit of 500,000."
            )
            return _json_answer(
                200, {"errors": [{"type": "MAX_NODE_LIMIT_EXCEEDED", "message": message}]}
            )
        if cost.points > budget.remaining:
            self._record(kind, "POST", path, 200, 0, operation, variables)
            rate_headers = budget.headers("graphql")
            rate_headers["x-ratelimit-remaining"] = "0"
            error = {
                "type": "RATE_LIMITED",
                "message": "API rate limit already exceeded for user ID 1.",
            }
            return _json_answer(200, {"errors": [error]}, rate_headers)
        budget.used += cost.points
        assert budget.reset_at is not None
        rate = {
            "cost": cost.points,
            "limit": budget.limit,
            "remaining": budget.remaining,
            "used": budget.used,
            "resetAt": _iso(budget.reset_at),
            "nodeCount": cost.nodes,
        }
        result = execute_sync(
            schema,
            document,
            variable_values=variables,
            operation_name=operation_name,
            context_value={"rate": rate},
            field_resolver=self._resolve,
            type_resolver=self._type_of,
        )
        data = result.data
        errors: list[dict[str, Any]] = [_format_error(e) for e in result.errors or ()]
        if fault is not None:
            for extra_error in fault.errors:
                errors.append(dict(extra_error))
                data = _null_at(data, extra_error.get("path"))
        payload: dict[str, Any] = {"data": data}
        if errors:
            payload["errors"] = errors
        self._record(kind, "POST", path, 200, cost.points, operation, variables)
        return _json_answer(200, payload, budget.headers("graphql"))

    def _prepare(self, query: str) -> tuple[DocumentNode, list[dict[str, Any]]]:
        """Parse and validate once per distinct query text (polls repeat theirs)."""
        found = self._prepared.get(query)
        if found is None:
            document = parse(query)
            problems = [dict(e.formatted) for e in validate(schema_subset(), document)]
            if len(self._prepared) >= 256:
                self._prepared.clear()
            found = self._prepared[query] = (document, problems)
        return found

    # ------------------------------------------------------------ transports

    def transport(self) -> httpx.MockTransport:
        """An ``httpx`` transport answering in-process (any base URL)."""

        def handler(request: httpx.Request) -> httpx.Response:
            try:
                answer = self.handle(
                    request.method,
                    request.url.raw_path.decode("ascii"),
                    request.headers,
                    request.read(),
                )
            except _Timeout:
                raise httpx.ReadTimeout("FakeGitHub: injected timeout", request=request) from None
            return httpx.Response(answer.status, headers=answer.headers, content=answer.body)

        return httpx.MockTransport(handler)

    @contextlib.contextmanager
    def serve_in_thread(self) -> Iterator[str]:
        """Serve over loopback HTTP on 127.0.0.1 (ephemeral port); yields the base URL."""
        from ._loopback import LoopbackServer

        server = LoopbackServer(self)
        server.start()
        try:
            yield server.base_url
        finally:
            server.stop()

    @contextlib.asynccontextmanager
    async def serve(self) -> AsyncIterator[str]:
        """``async with fake.serve() as base_url``: loopback HTTP for async tests."""
        import anyio.to_thread

        from ._loopback import LoopbackServer

        server = LoopbackServer(self)
        server.start()
        try:
            yield server.base_url
        finally:
            await anyio.to_thread.run_sync(server.stop)


def _operation_name(document: DocumentNode, wanted: object) -> str | None:
    ops = [d for d in document.definitions if isinstance(d, OperationDefinitionNode)]
    for op in ops:
        name = op.name.value if op.name else None
        if wanted is None or name == wanted:
            return name
    return None


def _format_error(error: GraphQLError) -> dict[str, Any]:
    out = dict(error.formatted)
    original = error.original_error
    kind = getattr(original, "type", None)
    if isinstance(kind, str):
        out["type"] = kind
    out.pop("extensions", None)
    return out


def _null_at(data: Any, path: object) -> Any:
    """``data`` with the value at ``path`` set to null (no path: all of it)."""
    if not isinstance(path, list) or not path or not isinstance(data, dict):
        return None
    node: Any = data
    for step in path[:-1]:
        if isinstance(node, dict) and isinstance(step, str):
            node = node.get(step)
        elif isinstance(node, list) and isinstance(step, int) and 0 <= step < len(node):
            node = node[step]
        else:
            return data
    last = path[-1]
    fits_dict = isinstance(node, dict) and isinstance(last, str)
    fits_list = isinstance(node, list) and isinstance(last, int) and 0 <= last < len(node)
    if fits_dict or fits_list:
        node[last] = None
    return data


def _json_answer(status: int, payload: Any, headers: Mapping[str, str] | None = None) -> _Answer:
    body = json.dumps(payload, separators=(",", ":")).encode()
    out = {"content-type": "application/json; charset=utf-8"}
    out.update(headers or {})
    return _Answer(status, body, out)
