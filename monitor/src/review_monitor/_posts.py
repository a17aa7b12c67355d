"""Posting on a pull request over GitHub's REST API, and finding a post again.

The writes: a PR comment (``create_issue_comment``), its edit (``update_issue_comment``), a
comment-only review with line comments (``create_review``; its event is always
``COMMENT``, the client has no way to approve or request changes) and a reply in a review
comment's thread (``reply_to_review_comment``).  Each answers ``Posted``: what GitHub
returned about the new item.

The reads (``list_issue_comments``, ``list_review_comments``, ``list_reviews``) answer
``Listed`` items, every page followed, so that a caller that crashed between sending a
post and recording its answer can find the post by a key hidden in its body.
``pull_head`` reads the PR's head commit, which a review must name; ``get_review`` reads one
review (the node id of the review GitHub made for a reply).

Errors (each a ``GitHubError``; no message carries a body or a token):

- ``PostRefused(kind, status)``: GitHub refused, nothing was posted.  ``kind`` is
  ``not-in-diff`` (a line comment outside the PR's diff), ``locked`` (the conversation is
  locked), ``too-long`` (a body over 65,536 characters; refused before sending),
  ``not-found`` (the PR or the comment is gone), ``head-moved`` (the review's commit is not
  the PR's), ``pending-review`` (the token's owner has a review of their own pending on
  the PR: GitHub then refuses every new review), ``forbidden`` (another 403: no access) or
  ``invalid`` (any other refusal).
- ``PostUncertain``: the request may have reached GitHub but no answer came (a timeout,
  a connection dropped after sending, a 5xx), or the answer could not be read.  The post
  may exist: look for it before sending again.
- ``PostUnexpected``: GitHub made the post but not as asked (a review whose state is not
  ``COMMENTED``).

A rate limit raises ``RateLimitedError`` as every request does; a write that surely never
reached GitHub raises ``TransientError`` (safe to send again), as does an edit or a read
that outlasted its retries.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime
from typing import Any, Literal, Protocol, TypeVar
from urllib.parse import quote

import msgspec

from ._api import RestResult
from ._errors import GitHubError, TransientError
from ._model import PrRef

__all__ = [
    "MAX_BODY_CHARS",
    "Listed",
    "PostError",
    "PostRefused",
    "PostUncertain",
    "PostUnexpected",
    "Posted",
    "PostsApi",
    "RefusalKind",
    "ReviewLine",
    "create_issue_comment",
    "create_review",
    "get_review",
    "list_issue_comments",
    "list_review_comments",
    "list_reviews",
    "pull_head",
    "refusal_kind",
    "reply_to_review_comment",
    "update_issue_comment",
]

MAX_BODY_CHARS = 65_536
"""GitHub's limit on a comment's, a review's or a review comment's body, in characters."""

RefusalKind = Literal[
    "not-in-diff",
    "locked",
    "too-long",
    "not-found",
    "head-moved",
    "pending-review",
    "forbidden",
    "invalid",
]
"""Why GitHub refused a post (``PostRefused.kind``)."""

_PER_PAGE = 100


class PostsApi(Protocol):
    """What the posting calls need of a client (``GitHubClient`` has it all)."""

    async def rest_get(self, path: str, *, retry: bool = True) -> RestResult: ...

    async def rest_post(self, path: str, body: Any) -> RestResult: ...

    async def rest_patch(self, path: str, body: Any) -> RestResult: ...


class PostError(GitHubError):
    """Base of the posting calls' own errors."""


class PostRefused(PostError):
    """GitHub refused the request; nothing was posted or changed.  ``status`` is GitHub's
    HTTP status, None when the client refused before sending (``too-long``)."""

    def __init__(self, kind: RefusalKind, status: int | None, where: str) -> None:
        answered = "refused before sending" if status is None else f"HTTP {status}"
        super().__init__(f"GitHub refused {where}: {kind} ({answered})")
        self.kind: RefusalKind = kind
        self.status = status


class PostUncertain(PostError):
    """The request may have reached GitHub, but no usable answer came: the post may exist.
    Look for it (the ``list_*`` calls) before sending it again."""


class PostUnexpected(PostError):
    """GitHub made the post, but not as asked (a review not in the ``COMMENTED`` state)."""


class ReviewLine(msgspec.Struct, frozen=True, kw_only=True):
    """One line comment of a review: on ``line`` of ``path`` (lines ``start_line`` to
    ``line`` when ``start_line`` is given), on the diff's ``side`` (GitHub's default,
    ``RIGHT``, when None)."""

    path: str
    line: int
    start_line: int | None = None
    side: Literal["LEFT", "RIGHT"] | None = None
    body: str


class Posted(msgspec.Struct, frozen=True, kw_only=True):
    """What GitHub answered about a new (or edited) item.  ``review_database_id`` is the
    review a review comment belongs to (a reply makes a review of its own), else None."""

    database_id: int
    node_id: str
    html_url: str
    created_at: datetime
    review_database_id: int | None = None


class Listed(msgspec.Struct, frozen=True, kw_only=True):
    """One listed comment or review.  ``author`` is the login as REST spells it (a bot's
    ends in ``[bot]``; GitHub names a deleted account ``ghost``), None when the answer
    names no one; ``updated_at`` is None for a review;
    ``review_database_id`` is set for a review comment; ``state`` for a review."""

    database_id: int
    node_id: str
    author: str | None
    body: str
    created_at: datetime
    updated_at: datetime | None = None
    review_database_id: int | None = None
    state: str | None = None


# -- what GitHub answers ---------------------------------------------------------------------


class _User(msgspec.Struct, frozen=True):
    login: str


class _Created(msgspec.Struct, frozen=True):
    id: int
    node_id: str
    html_url: str
    created_at: datetime


class _ReviewAnswer(msgspec.Struct, frozen=True):
    id: int
    node_id: str
    html_url: str
    state: str
    submitted_at: datetime | None = None


class _ReplyAnswer(_Created, frozen=True):
    pull_request_review_id: int | None = None


class _ListedComment(msgspec.Struct, frozen=True):
    id: int
    node_id: str
    created_at: datetime
    updated_at: datetime | None = None
    user: _User | None = None
    body: str | None = None
    pull_request_review_id: int | None = None


class _ListedReview(msgspec.Struct, frozen=True):
    id: int
    node_id: str
    state: str
    user: _User | None = None
    body: str | None = None
    submitted_at: datetime | None = None


class _Pull(msgspec.Struct, frozen=True):
    class Head(msgspec.Struct, frozen=True):
        sha: str

    head: Head


_T = TypeVar("_T")


def _decode_answer(result: RestResult, shape: type[_T], where: str) -> _T:
    try:
        return msgspec.convert(result.body, shape)
    except msgspec.ValidationError:
        raise PostUncertain(
            f"GitHub answered {where} with HTTP {result.status} in a shape the client cannot "
            "read; the post may exist"
        ) from None


# -- refusals --------------------------------------------------------------------------------

_NOT_IN_DIFF = ("must be part of the diff", "diff hunk can't be blank", "could not be resolved",
                "part of the same hunk")  # fmt: skip
_HEAD_MOVED = ("commitoid is not part of the pull request", "commit_id is not part of",
               "no commit found for sha")  # fmt: skip


def _texts(body: Any) -> str:
    """GitHub's message and its errors' messages, folded: only ever matched, never shown."""
    if not isinstance(body, dict):
        return ""
    parts: list[str] = []
    message = body.get("message")
    if isinstance(message, str):
        parts.append(message)
    errors = body.get("errors")
    for error in errors if isinstance(errors, list) else ():
        if isinstance(error, str):
            parts.append(error)
        elif isinstance(error, dict) and isinstance(error.get("message"), str):
            parts.append(error["message"])
    return " | ".join(parts).casefold()


def refusal_kind(status: int, body: Any) -> RefusalKind:
    """The kind of GitHub's refusal ``status`` with ``body`` (a 4xx but 401 and limits)."""
    text = _texts(body)
    if status in (404, 410):
        return "not-found"
    if "locked" in text and status in (403, 422):
        return "locked"
    if status == 422:
        if "too long" in text:
            return "too-long"
        if any(p in text for p in _HEAD_MOVED):
            return "head-moved"
        if "one pending review" in text:
            return "pending-review"
        if any(p in text for p in _NOT_IN_DIFF):
            return "not-in-diff"
    if status == 403:
        return "forbidden"
    return "invalid"


async def _write(
    send: Callable[[], Awaitable[RestResult]], where: str, *, ok: tuple[int, ...]
) -> RestResult:
    """Send a write; a fault after which the write may exist is ``PostUncertain``."""
    try:
        result = await send()
    except TransientError as exc:
        if not exc.maybe_sent:
            raise
        raise PostUncertain(
            f"GitHub gave no answer to {where} ({exc}); the post may exist"
        ) from None
    if result.status in ok:
        return result
    raise PostRefused(refusal_kind(result.status, result.body), result.status, where)


def _check_length(where: str, *bodies: str) -> None:
    if any(len(b) > MAX_BODY_CHARS for b in bodies):
        raise PostRefused("too-long", None, where)


def _repo(pr: PrRef) -> str:
    return f"/repos/{quote(pr.owner, safe='')}/{quote(pr.name, safe='')}"


# -- the writes ------------------------------------------------------------------------------


async def create_issue_comment(client: PostsApi, pr: PrRef, body: str) -> Posted:
    """Post ``body`` as a comment on ``pr`` (``POST .../issues/{n}/comments``)."""
    where = "POST /repos/{owner}/{repo}/issues/{issue_number}/comments"
    _check_length(where, body)
    path = f"{_repo(pr)}/issues/{pr.number}/comments"
    result = await _write(lambda: client.rest_post(path, {"body": body}), where, ok=(201, 200))
    made = _decode_answer(result, _Created, where)
    return Posted(
        database_id=made.id, node_id=made.node_id, html_url=made.html_url,
        created_at=made.created_at,
    )  # fmt: skip


async def update_issue_comment(
    client: PostsApi, pr: PrRef, comment_database_id: int, body: str
) -> Posted:
    """Replace the body of a PR comment (``PATCH .../issues/comments/{id}``).  An edit is
    idempotent: a fault is retried, then raised as ``TransientError``, and sending it
    again is safe."""
    where = "PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}"
    _check_length(where, body)
    path = f"{_repo(pr)}/issues/comments/{int(comment_database_id)}"
    result = await client.rest_patch(path, {"body": body})
    if result.status != 200:
        raise PostRefused(refusal_kind(result.status, result.body), result.status, where)
    made = _decode_answer(result, _Created, where)
    return Posted(
        database_id=made.id, node_id=made.node_id, html_url=made.html_url,
        created_at=made.created_at,
    )  # fmt: skip


def _line_payload(line: ReviewLine) -> dict[str, Any]:
    payload: dict[str, Any] = {"path": line.path, "line": line.line, "body": line.body}
    if line.side is not None:
        payload["side"] = line.side
    if line.start_line is not None:
        payload["start_line"] = line.start_line
        if line.side is not None:
            payload["start_side"] = line.side
    return payload


async def create_review(
    client: PostsApi,
    pr: PrRef,
    *,
    commit_id: str,
    body: str,
    comments: Sequence[ReviewLine] = (),
) -> Posted:
    """Submit a comment-only review of ``commit_id`` (the PR's head) with line comments
    (``POST .../pulls/{n}/reviews``, event ``COMMENT``).  ``PostUnexpected`` when GitHub
    answers a review in any state but ``COMMENTED``."""
    where = "POST /repos/{owner}/{repo}/pulls/{pull_number}/reviews"
    _check_length(where, body, *(c.body for c in comments))
    payload: dict[str, Any] = {"commit_id": commit_id, "body": body, "event": "COMMENT"}
    if comments:
        payload["comments"] = [_line_payload(c) for c in comments]
    path = f"{_repo(pr)}/pulls/{pr.number}/reviews"
    result = await _write(lambda: client.rest_post(path, payload), where, ok=(200, 201))
    made = _decode_answer(result, _ReviewAnswer, where)
    if made.state != "COMMENTED" or made.submitted_at is None:
        raise PostUnexpected(
            f"GitHub answered {where} with a review in state {made.state[:40]!r}, not COMMENTED"
        )
    return Posted(
        database_id=made.id, node_id=made.node_id, html_url=made.html_url,
        created_at=made.submitted_at, review_database_id=made.id,
    )  # fmt: skip


async def reply_to_review_comment(
    client: PostsApi, pr: PrRef, comment_database_id: int, body: str
) -> Posted:
    """Reply in the thread of a review comment (``POST .../pulls/{n}/comments/{id}/replies``).
    GitHub makes the reply a review of its own: ``Posted.review_database_id``."""
    where = "POST /repos/{owner}/{repo}/pulls/{pull_number}/comments/{comment_id}/replies"
    _check_length(where, body)
    path = f"{_repo(pr)}/pulls/{pr.number}/comments/{int(comment_database_id)}/replies"
    result = await _write(lambda: client.rest_post(path, {"body": body}), where, ok=(201, 200))
    made = _decode_answer(result, _ReplyAnswer, where)
    return Posted(
        database_id=made.id, node_id=made.node_id, html_url=made.html_url,
        created_at=made.created_at, review_database_id=made.pull_request_review_id,
    )  # fmt: skip


# -- the reads -------------------------------------------------------------------------------

_NEXT = re.compile(r'<([^>]+)>\s*;\s*rel="next"')


def _next_page(result: RestResult) -> str | None:
    link = next((v for k, v in result.headers.items() if k.lower() == "link"), None)
    found = _NEXT.search(link) if link else None
    return found[1] if found else None


async def _pages(client: PostsApi, path: str, where: str) -> list[Any]:
    """Every item of a paginated listing, following ``Link: rel="next"``."""
    items: list[Any] = []
    url: str | None = path
    seen: set[str] = set()
    while url is not None:
        if url in seen:  # a Link that leads back: GitHub's never does; stop, not loop
            raise GitHubError(f"GitHub's pages of {where} lead back to a page already read")
        seen.add(url)
        result = await client.rest_get(url)
        if result.status != 200:
            raise PostRefused(refusal_kind(result.status, result.body), result.status, where)
        if not isinstance(result.body, list):
            raise GitHubError(f"GitHub answered {where} without a list")
        items.extend(result.body)
        url = _next_page(result)
    return items


def _since(t: datetime) -> str:
    if t.tzinfo is None:
        raise ValueError("since must be a timezone-aware time")
    return t.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _listed_comments(raw: list[Any], where: str) -> list[Listed]:
    try:
        found = msgspec.convert(raw, list[_ListedComment])
    except msgspec.ValidationError:
        raise GitHubError(f"GitHub answered {where} in a shape the client cannot read") from None
    return [
        Listed(
            database_id=c.id,
            node_id=c.node_id,
            author=c.user.login if c.user else None,
            body=c.body or "",
            created_at=c.created_at,
            updated_at=c.updated_at,
            review_database_id=c.pull_request_review_id,
        )
        for c in found
    ]


async def list_issue_comments(client: PostsApi, pr: PrRef, since: datetime) -> list[Listed]:
    """The PR's comments updated at or after ``since``, oldest first."""
    where = "GET /repos/{owner}/{repo}/issues/{issue_number}/comments"
    path = f"{_repo(pr)}/issues/{pr.number}/comments?since={_since(since)}&per_page={_PER_PAGE}"
    return _listed_comments(await _pages(client, path, where), where)


async def list_review_comments(client: PostsApi, pr: PrRef, since: datetime) -> list[Listed]:
    """The PR's review comments updated at or after ``since``, oldest first."""
    where = "GET /repos/{owner}/{repo}/pulls/{pull_number}/comments"
    path = f"{_repo(pr)}/pulls/{pr.number}/comments?since={_since(since)}&per_page={_PER_PAGE}"
    return _listed_comments(await _pages(client, path, where), where)


async def list_reviews(client: PostsApi, pr: PrRef) -> list[Listed]:
    """The PR's reviews, oldest first (``created_at`` is when one was submitted; a pending
    review has none and is left out)."""
    where = "GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews"
    raw = await _pages(client, f"{_repo(pr)}/pulls/{pr.number}/reviews?per_page={_PER_PAGE}", where)
    try:
        found = msgspec.convert(raw, list[_ListedReview])
    except msgspec.ValidationError:
        raise GitHubError(f"GitHub answered {where} in a shape the client cannot read") from None
    return [
        Listed(
            database_id=r.id,
            node_id=r.node_id,
            author=r.user.login if r.user else None,
            body=r.body or "",
            created_at=r.submitted_at,
            state=r.state,
        )
        for r in found
        if r.submitted_at is not None
    ]


async def get_review(client: PostsApi, pr: PrRef, review_database_id: int) -> Listed:
    """One review by its database id (``GET .../pulls/{n}/reviews/{id}``): the node id of
    the review GitHub made for a reply, say."""
    where = "GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews/{review_id}"
    result = await client.rest_get(
        f"{_repo(pr)}/pulls/{pr.number}/reviews/{int(review_database_id)}"
    )
    if result.status != 200:
        raise PostRefused(refusal_kind(result.status, result.body), result.status, where)
    try:
        r = msgspec.convert(result.body, _ListedReview)
    except msgspec.ValidationError:
        raise GitHubError(f"GitHub answered {where} in a shape the client cannot read") from None
    if r.submitted_at is None:
        raise PostRefused("not-found", 404, where)  # pending: not a submitted review
    return Listed(
        database_id=r.id,
        node_id=r.node_id,
        author=r.user.login if r.user else None,
        body=r.body or "",
        created_at=r.submitted_at,
        state=r.state,
    )


async def pull_head(client: PostsApi, pr: PrRef) -> str:
    """The SHA of the PR's head commit (``GET .../pulls/{n}``)."""
    where = "GET /repos/{owner}/{repo}/pulls/{pull_number}"
    result = await client.rest_get(f"{_repo(pr)}/pulls/{pr.number}")
    if result.status != 200:
        raise PostRefused(refusal_kind(result.status, result.body), result.status, where)
    try:
        return msgspec.convert(result.body, _Pull).head.sha
    except msgspec.ValidationError:
        raise GitHubError(f"GitHub answered {where} in a shape the client cannot read") from None
