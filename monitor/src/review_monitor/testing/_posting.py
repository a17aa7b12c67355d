"""FakeGitHub's REST routes for posting on a pull request and listing what is posted.

Writes: ``POST .../issues/{n}/comments``, ``PATCH .../issues/comments/{id}``,
``POST .../pulls/{n}/reviews``, ``POST .../pulls/{n}/comments/{id}/replies``.  Reads:
``GET .../pulls/{n}``, ``GET .../issues/{n}/comments`` and ``GET .../pulls/{n}/comments``
(``since``: updated at or after) and ``GET .../pulls/{n}/reviews``, each paginated with
``per_page`` (30 by default, at most 100) and ``page`` and a ``Link`` header as GitHub
sends it; ``GET .../pulls/{n}/reviews/{id}``.

What the token posts is authored by the viewer, moves the PR's ``updatedAt`` and appears
in the GraphQL connections under the same node ids; with ``Nodes.posts_listed_late`` set,
neither the connections nor these listings show it until that much later.  GitHub's
refusals: 404 (the PR or the comment is gone, or the repository hidden), 403 on a locked
conversation (unless the token has write access, as on GitHub), 422 for a body over 65,536
characters, a review of a commit that is not the PR's head (FakeGitHub treats every push
as a force push, so an earlier head is no longer part of the PR), a line comment outside
the diff (``Pr.diff``: the right-side lines of each path; a LEFT-side comment is refused),
a review while the token has a pending review of its own on the PR, and a missing field.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlencode

from . import _shapes
from ._http import DOCS
from ._nodes import Comment, Inline, Item, Nodes, Pr, Review

__all__ = ["CREATES", "MAX_BODY", "Outcome", "Posting", "route_of"]

# GitHub's limit, stated apart from the client's (``review_monitor._posts``) so that the
# fake cannot share a mistake with it.
MAX_BODY = 65_536

_REPO = r"^/repos/(?P<owner>[^/]+)/(?P<name>[^/]+)"
_ROUTES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("issue_comments", re.compile(_REPO + r"/issues/(?P<number>\d+)/comments$")),
    ("issue_comment", re.compile(_REPO + r"/issues/comments/(?P<id>\d+)$")),
    ("pull", re.compile(_REPO + r"/pulls/(?P<number>\d+)$")),
    ("review_comments", re.compile(_REPO + r"/pulls/(?P<number>\d+)/comments$")),
    ("replies", re.compile(_REPO + r"/pulls/(?P<number>\d+)/comments/(?P<id>\d+)/replies$")),
    ("reviews", re.compile(_REPO + r"/pulls/(?P<number>\d+)/reviews$")),
    ("review", re.compile(_REPO + r"/pulls/(?P<number>\d+)/reviews/(?P<id>\d+)$")),
)
# Which (route, method) creates content, counted by the content-creation limit.
CREATES = frozenset({("issue_comments", "POST"), ("replies", "POST"), ("reviews", "POST")})

_NOT_FOUND = {"message": "Not Found", "documentation_url": DOCS}
_LOCKED = {
    "message": "Unable to create comment because issue is locked.",
    "documentation_url": "https://docs.github.com/articles/locking-conversations/",
}
_REVIEW_DOCS = "https://docs.github.com/rest/pulls/reviews#create-a-review-for-a-pull-request"
_EVENTS = {"COMMENT": "COMMENTED", "APPROVE": "APPROVED", "REQUEST_CHANGES": "CHANGES_REQUESTED"}


@dataclass(frozen=True)
class Outcome:
    """A route's answer: status, JSON payload and extra headers (``Link``)."""

    status: int
    payload: Any
    headers: Mapping[str, str] | None = None


def route_of(path: str) -> tuple[str, Mapping[str, str]] | None:
    """The posting route ``path`` names, with its parts; None if it names none."""
    for name, pattern in _ROUTES:
        m = pattern.match(path)
        if m is not None:
            return name, m.groupdict()
    return None


def _unprocessable(
    *errors: Any, docs: str = DOCS, message: str = "Unprocessable Entity"
) -> Outcome:
    return Outcome(
        422,
        {"message": message, "errors": list(errors), "documentation_url": docs, "status": "422"},
    )


def _too_long(resource: str) -> Outcome:
    error = {"resource": resource, "code": "unprocessable", "field": "data",
             "message": f"Body is too long (maximum is {MAX_BODY} characters)"}  # fmt: skip
    return _unprocessable(error, message="Validation Failed")


def _missing(field: str) -> Outcome:
    return Outcome(
        422,
        {"message": f'Invalid request.\n\n"{field}" wasn\'t supplied.', "documentation_url": DOCS},
    )


def _parse_time(text: str) -> datetime | None:
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        return None
    return parsed.astimezone(UTC) if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)


class Posting:
    """The posting and listing routes over one FakeGitHub's nodes (called under its lock)."""

    def __init__(self, nodes: Nodes) -> None:
        self._nodes = nodes

    def answer(
        self,
        route: str,
        parts: Mapping[str, str],
        method: str,
        path: str,
        query: Mapping[str, str],
        body: bytes,
        api: str,
    ) -> Outcome:
        """Answer ``method`` on ``route`` (of ``route_of(path)``, with its ``parts``);
        ``api`` is the base URL the request came to, for the URLs in the answer."""
        nodes = self._nodes
        repo = nodes.visible_repo(parts["owner"], parts["name"])
        if repo is None:
            return Outcome(404, _NOT_FOUND)
        handlers: dict[tuple[str, str], Callable[[_Context, Pr], Outcome]] = {
            ("issue_comments", "GET"): self._list_issue_comments,
            ("issue_comments", "POST"): self._create_issue_comment,
            ("pull", "GET"): self._pull,
            ("review_comments", "GET"): self._list_review_comments,
            ("replies", "POST"): self._reply,
            ("reviews", "GET"): self._list_reviews,
            ("reviews", "POST"): self._create_review,
            ("review", "GET"): self._get_review,
        }
        handler = handlers.get((route, method))
        if handler is None and (route, method) != ("issue_comment", "PATCH"):
            return Outcome(404, _NOT_FOUND)
        payload: Any = None
        if method in ("POST", "PATCH"):
            try:
                payload = json.loads(body or b"null")
            except ValueError:
                payload = None
            if not isinstance(payload, dict):
                return Outcome(400, {"message": "Problems parsing JSON", "documentation_url": DOCS})
        context = _Context(path=path, parts=parts, query=query, payload=payload, api=api)
        if handler is None:  # PATCH of a comment, found by its id in the repository
            wanted = int(parts["id"])
            for p in repo.prs.values():
                for c in p.comments:
                    if c.database_id == wanted and not c.deleted:
                        return self._update_issue_comment(context, c, p)
            return Outcome(404, _NOT_FOUND)
        pr = repo.prs.get(int(parts["number"]))
        if pr is None:
            return Outcome(404, _NOT_FOUND)
        return handler(context, pr)

    # -- helpers ---------------------------------------------------------------------------

    @property
    def _host(self) -> str:
        return self._nodes.host

    def _refused_by_lock(self, pr: Pr) -> bool:
        # On GitHub, someone with write access may still comment on a locked conversation.
        return pr.locked and not pr.repo.push_access

    def _new_fields(self, body: str) -> dict[str, Any]:
        nodes = self._nodes
        seq = nodes.next()
        now = nodes.now()
        late = nodes.posts_listed_late
        return {
            "seq": seq,
            "database_id": 1_000_000 + seq,
            "author": nodes.viewer,
            "body": body,
            "created_at": now,
            "listed_at": None if late is None else now + late,
        }

    def _page(self, ctx: _Context, items: list[Any], shape: Callable[[Any], Any]) -> Outcome:
        try:
            per_page = min(max(int(ctx.query.get("per_page", "30")), 1), 100)
            page = max(int(ctx.query.get("page", "1")), 1)
        except ValueError:
            per_page, page = 30, 1
        last = max((len(items) + per_page - 1) // per_page, 1)
        window = items[(page - 1) * per_page : page * per_page]
        links: list[str] = []

        def link(n: int, rel: str) -> None:
            params = {**ctx.query, "page": str(n)}
            links.append(f'<{ctx.api}{ctx.path}?{urlencode(params)}>; rel="{rel}"')

        if page > 1:
            link(min(page - 1, last), "prev")
        if page < last:
            link(page + 1, "next")
            link(last, "last")
        if page > 1:
            link(1, "first")
        headers = {"link": ", ".join(links)} if links else None
        return Outcome(200, [shape(i) for i in window], headers)

    def _since(self, ctx: _Context) -> datetime | Outcome | None:
        raw = ctx.query.get("since")
        if raw is None:
            return None
        parsed = _parse_time(raw)
        if parsed is None:
            return _unprocessable(
                f"Invalid value for since: {raw[:40]}", message="Validation Failed"
            )
        return parsed

    # -- reads -----------------------------------------------------------------------------

    def _pull(self, ctx: _Context, pr: Pr) -> Outcome:
        return Outcome(200, _shapes.pull(pr, ctx.api, self._host))

    def _list_issue_comments(self, ctx: _Context, pr: Pr) -> Outcome:
        since = self._since(ctx)
        if isinstance(since, Outcome):
            return since
        items = [
            c
            for c in pr.comments
            if self._nodes.listed(c) and (since is None or _updated(c) >= since)
        ]
        return self._page(ctx, items, lambda c: _shapes.issue_comment(c, pr, ctx.api, self._host))

    def _visible_reviews(self, pr: Pr) -> list[Review]:
        viewer = self._nodes.viewer.login.lower()
        return [
            r
            for r in pr.reviews
            if self._nodes.listed(r)
            and (
                r.state != "PENDING" or (r.author is not None and r.author.login.lower() == viewer)
            )
        ]

    def _list_review_comments(self, ctx: _Context, pr: Pr) -> Outcome:
        since = self._since(ctx)
        if isinstance(since, Outcome):
            return since
        pairs = sorted(
            (
                (c, r)
                for r in self._visible_reviews(pr)
                for c in r.inline
                if self._nodes.listed(c) and (since is None or _updated(c) >= since)
            ),
            key=lambda pair: pair[0].seq,
        )
        return self._page(
            ctx, pairs, lambda p: _shapes.review_comment(p[0], p[1], pr, ctx.api, self._host)
        )

    def _list_reviews(self, ctx: _Context, pr: Pr) -> Outcome:
        items = self._visible_reviews(pr)
        return self._page(ctx, items, lambda r: _shapes.review(r, pr, ctx.api, self._host))

    def _get_review(self, ctx: _Context, pr: Pr) -> Outcome:
        wanted = int(ctx.parts["id"])
        for r in self._visible_reviews(pr):
            if r.database_id == wanted:
                return Outcome(200, _shapes.review(r, pr, ctx.api, self._host))
        return Outcome(404, _NOT_FOUND)

    # -- writes ----------------------------------------------------------------------------

    def _create_issue_comment(self, ctx: _Context, pr: Pr) -> Outcome:
        body = ctx.payload.get("body")
        if not isinstance(body, str):
            return _missing("body")
        if self._refused_by_lock(pr):
            return Outcome(403, _LOCKED)
        if len(body) > MAX_BODY:
            return _too_long("IssueComment")
        f = self._new_fields(body)
        item = Comment(
            id=f"IC_fake{f['seq']}", url=f"{pr.url}#issuecomment-{f['database_id']}", **f
        )
        pr.comments.append(item)
        self._nodes.add_item(item, pr)
        self._nodes.touch(pr)
        return Outcome(201, _shapes.issue_comment(item, pr, ctx.api, self._host))

    def _update_issue_comment(self, ctx: _Context, item: Comment, pr: Pr) -> Outcome:
        body = ctx.payload.get("body")
        if not isinstance(body, str):
            return _missing("body")
        if self._refused_by_lock(pr):
            return Outcome(403, _LOCKED)
        if len(body) > MAX_BODY:
            return _too_long("IssueComment")
        now = self._nodes.now()
        item.body = body
        item.last_edited_at = now
        self._nodes.touch(pr)
        return Outcome(200, _shapes.issue_comment(item, pr, ctx.api, self._host))

    def _line_refusal(self, pr: Pr, comment: Any) -> Outcome | None:
        """Why a review's line comment is refused (None: it is in the diff)."""
        if not isinstance(comment, dict):
            return _missing("comments")
        path, line, text = comment.get("path"), comment.get("line"), comment.get("body")
        if not isinstance(path, str) or not isinstance(text, str):
            return _missing("path" if not isinstance(path, str) else "body")
        if not isinstance(line, int) or isinstance(line, bool):
            return _unprocessable("Pull request review thread line must be part of the diff and "
                                  "Pull request review thread diff hunk can't be blank",
                                  docs=_REVIEW_DOCS)  # fmt: skip
        if len(text) > MAX_BODY:
            return _too_long("PullRequestReviewComment")
        start = comment.get("start_line")
        if start is not None and (not isinstance(start, int) or start >= line):
            return _unprocessable(
                "Pull request review thread start line must precede the end line.",
                docs=_REVIEW_DOCS,
            )
        lines = pr.diff.get(path)
        if lines is None:
            return _unprocessable("Path could not be resolved", docs=_REVIEW_DOCS)
        side = comment.get("side", "RIGHT")
        in_diff = side == "RIGHT" and line in lines
        if start is not None:
            in_diff = in_diff and start in lines and comment.get("start_side", side) == "RIGHT"
        if not in_diff:
            return _unprocessable("Pull request review thread line must be part of the diff and "
                                  "Pull request review thread diff hunk can't be blank",
                                  docs=_REVIEW_DOCS)  # fmt: skip
        return None

    def _create_review(self, ctx: _Context, pr: Pr) -> Outcome:
        given = ctx.payload
        body = given.get("body", "")
        event = given.get("event")
        comments = given.get("comments", [])
        if not isinstance(body, str) or not isinstance(comments, list):
            return _missing("body" if not isinstance(body, str) else "comments")
        if event is not None and event not in _EVENTS:
            return _unprocessable(
                f"Variable $event of type PullRequestReviewEvent was provided invalid value "
                f"{str(event)[:40]!r}",
                docs=_REVIEW_DOCS,
            )
        if self._refused_by_lock(pr):
            return Outcome(403, _LOCKED)
        viewer = self._nodes.viewer.login.lower()
        if any(
            r.state == "PENDING" and not r.deleted and r.author is not None
            and r.author.login.lower() == viewer
            for r in pr.reviews
        ):  # fmt: skip
            # GitHub refuses any new review, submitted ones too, beside the token's own
            # draft (a pending review the token's owner started in the browser, say).
            return _unprocessable(
                "User can only have one pending review per pull request", docs=_REVIEW_DOCS
            )
        commit_id = given.get("commit_id", pr.head_ref_oid)
        if commit_id != pr.head_ref_oid:
            return _unprocessable(
                "The commitOID is not part of the pull request", docs=_REVIEW_DOCS
            )
        if len(body) > MAX_BODY:
            return _too_long("PullRequestReview")
        for comment in comments:
            refusal = self._line_refusal(pr, comment)
            if refusal is not None:
                return refusal
        state = "PENDING" if event is None else _EVENTS[event]
        f = self._new_fields(body)
        review = Review(
            id=f"PRR_fake{f['seq']}",
            url=f"{pr.url}#pullrequestreview-{f['database_id']}",
            state=state,
            submitted_at=None if state == "PENDING" else f["created_at"],
            commit_id=pr.head_ref_oid,
            **f,
        )
        for comment in comments:
            g = self._new_fields(comment["body"])
            start = comment.get("start_line")
            review.inline.append(
                Inline(
                    id=f"PRRC_fake{g['seq']}",
                    url=f"{pr.url}#discussion_r{g['database_id']}",
                    path=comment["path"],
                    line=comment["line"],
                    original_line=comment["line"],
                    start_line=start,
                    original_start_line=start,
                    side=comment.get("side", "RIGHT"),
                    commit_id=pr.head_ref_oid,
                    **g,
                )
            )
        self._add_review(pr, review)
        return Outcome(200, _shapes.review(review, pr, ctx.api, self._host))

    def _add_review(self, pr: Pr, review: Review) -> None:
        for comment in review.inline:
            self._nodes.add_item(comment, pr)
        pr.reviews.append(review)
        self._nodes.add_item(review, pr)
        if review.state != "PENDING":
            self._nodes.touch(pr)

    def _reply(self, ctx: _Context, pr: Pr) -> Outcome:
        wanted = int(ctx.parts["id"])
        target = next(
            (c for r in self._visible_reviews(pr) for c in r.inline
             if c.database_id == wanted and not c.deleted),
            None,
        )  # fmt: skip
        if target is None:
            return Outcome(404, _NOT_FOUND)
        body = ctx.payload.get("body")
        if not isinstance(body, str):
            return _missing("body")
        if self._refused_by_lock(pr):
            return Outcome(403, _LOCKED)
        if len(body) > MAX_BODY:
            return _too_long("PullRequestReviewComment")
        # GitHub makes each reply a COMMENTED review of its own holding the reply.
        f = self._new_fields("")
        review = Review(
            id=f"PRR_fake{f['seq']}",
            url=f"{pr.url}#pullrequestreview-{f['database_id']}",
            state="COMMENTED",
            submitted_at=f["created_at"],
            commit_id=pr.head_ref_oid,
            **f,
        )
        g = self._new_fields(body)
        reply = Inline(
            id=f"PRRC_fake{g['seq']}",
            url=f"{pr.url}#discussion_r{g['database_id']}",
            path=target.path,
            line=target.line,
            original_line=target.original_line,
            start_line=target.start_line,
            original_start_line=target.original_start_line,
            outdated=target.outdated,
            side=target.side,
            commit_id=target.commit_id,
            in_reply_to=target.in_reply_to or target.database_id,
            **g,
        )
        review.inline.append(reply)
        self._add_review(pr, review)
        return Outcome(201, _shapes.review_comment(reply, review, pr, ctx.api, self._host))


def _updated(item: Item) -> datetime:
    """``updated_at`` as GitHub keeps it: to the second (``since`` compares with that)."""
    return (item.last_edited_at or item.created_at).replace(microsecond=0)


@dataclass(frozen=True)
class _Context:
    """One request's parts a handler reads."""

    path: str
    parts: Mapping[str, str]
    query: Mapping[str, str]
    payload: Any
    api: str  # the scheme, host and API prefix the request came to
