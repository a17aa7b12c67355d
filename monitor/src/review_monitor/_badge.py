"""Reading badges, details, gaps, failing checks and adding reactions.

``parse_*`` functions are pure: GraphQL ``data`` in, model structs out, and bad values from
GitHub left off with one log line that names no author and quotes no text.  The ``async``
readers only build a document (``_queries``), send it through a ``GitHubApi`` and parse.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Collection, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, Literal

import msgspec

from ._api import GitHubApi, GraphQLResult
from ._errors import GraphQLError
from ._model import (
    Author,
    BadgeBatch,
    BadgeItem,
    CheckFailure,
    GapRead,
    InlineComment,
    ItemDetail,
    PageInfo,
    PrRef,
    PrStatus,
    SweepBatch,
)
from ._queries import (
    MAX_BADGE_PRS,
    MAX_CHECK_PRS,
    MAX_REACTIONS,
    add_reactions_query,
    badge_layout,
    badge_query,
    detail_query,
    failing_checks_batch_query,
    failing_checks_query,
    gap_query,
    inline_page_query,
)

__all__ = [
    "FAILING_CONCLUSIONS",
    "FAILING_STATES",
    "add_reactions",
    "parse_badge",
    "parse_details",
    "parse_failing_checks",
    "parse_time",
    "read_badges",
    "read_details",
    "read_failing_checks",
    "read_failing_checks_batch",
    "read_gap",
]

log = logging.getLogger("review_monitor.badge")

ErrorList = Sequence[Mapping[str, Any]]

FAILING_CONCLUSIONS = frozenset(
    {"ACTION_REQUIRED", "CANCELLED", "FAILURE", "STARTUP_FAILURE", "TIMED_OUT"}
)
FAILING_STATES = frozenset({"ERROR", "FAILURE"})

# A check's output can be 64 kB; a notice carries the start of it.
SUMMARY_LIMIT = 4000
MAX_INLINE_PAGES = 50
MAX_CHECK_PAGES = 10


def parse_time(value: object) -> datetime | None:
    """GitHub's ISO 8601 ``DateTime`` as an aware UTC datetime; None if it is not one."""
    if not isinstance(value, str) or len(value) > 40:
        return None
    try:
        t = datetime.fromisoformat(value)
    except ValueError:
        return None
    if t.tzinfo is None:
        return None
    return t.astimezone(UTC)


def _database_id(node: Mapping[str, Any]) -> int | None:
    full = node.get("fullDatabaseId")
    if isinstance(full, str) and full.isascii() and full.isdigit():
        return int(full)
    if isinstance(full, int) and not isinstance(full, bool):
        return full
    short = node.get("databaseId")
    if isinstance(short, int) and not isinstance(short, bool):
        return short
    return None


def _author(value: object) -> Author | None:
    if not isinstance(value, Mapping):
        return None
    login = value.get("login")
    if not isinstance(login, str) or not login:
        return None
    typename = value.get("__typename")
    return Author(login=login, type=typename if isinstance(typename, str) else "User")


def _item(kind: Literal["comment", "review"], node: object, where: str) -> BadgeItem | None:
    """One listed item; None when it is left off the badge (logged once)."""
    if not isinstance(node, Mapping) or not isinstance(node.get("id"), str):
        log.warning("%s: a listed %s has no id; left off the badge", where, kind)
        return None
    time_field = "createdAt" if kind == "comment" else "submittedAt"
    created = parse_time(node.get(time_field))
    if created is None:
        log.warning("%s: %s %s has no parseable time; left off the badge", where, kind, node["id"])
        return None
    state = node.get("state") if kind == "review" else None
    item = BadgeItem(
        kind=kind,
        id=node["id"],
        database_id=_database_id(node),
        created_at=created,
        author=_author(node.get("author")),
        viewer_did_author=node.get("viewerDidAuthor") is True,
        is_minimized=node.get("isMinimized") is True,
        state=state if isinstance(state, str) else None,
    )
    return item


def _listing(
    kind: Literal["comment", "review"], conn: object, window: int, where: str
) -> tuple[tuple[BadgeItem, ...], PageInfo, datetime | None]:
    """Items oldest first, page info, and from when the listing is whole (None: from the
    start, because it did not come back full or said there is nothing before it)."""
    if not isinstance(conn, Mapping):
        return (), PageInfo(), None
    raw_nodes = conn.get("nodes")
    nodes: list[object] = list(raw_nodes) if isinstance(raw_nodes, list) else []
    info = conn.get("pageInfo")
    page = PageInfo()
    if isinstance(info, Mapping):
        cursor = info.get("startCursor")
        page = PageInfo(
            has_previous_page=info.get("hasPreviousPage") is True,
            start_cursor=cursor if isinstance(cursor, str) else None,
        )
    items = [i for i in (_item(kind, n, where) for n in nodes) if i is not None]
    whole_from: datetime | None = None
    # A full window may have pushed older items out, unless GitHub says nothing precedes it.
    pushed_out = len(nodes) >= window and not (
        isinstance(info, Mapping) and info.get("hasPreviousPage") is False
    )
    if pushed_out and items:
        whole_from = min(i.created_at for i in items)
    return tuple(items), page, whole_from


def _str(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _pr_status(pr: PrRef, node: Mapping[str, Any], c_window: int, r_window: int) -> PrStatus:
    where = str(pr)
    title, url, state = _str(node.get("title")), _str(node.get("url")), _str(node.get("state"))
    head = _str(node.get("headRefOid"))
    if title is None or url is None or state is None or head is None:
        raise ValueError("a required field is missing")
    if not isinstance(node.get("merged"), bool) or not isinstance(node.get("isDraft"), bool):
        raise ValueError("merged or isDraft is not a boolean")
    rollup = node.get("statusCheckRollup")
    raw_comments, raw_reviews = node.get("comments"), node.get("reviews")
    comments, c_page, c_from = _listing("comment", raw_comments, c_window, where)
    reviews, r_page, r_from = _listing("review", raw_reviews, r_window, where)
    listed = sum(
        len(nodes)
        for conn in (raw_comments, raw_reviews)
        if isinstance(conn, Mapping) and isinstance(nodes := conn.get("nodes"), list)
    )
    froms = [t for t in (c_from, r_from) if t is not None]
    return PrStatus(
        pr=pr,
        title=title,
        url=url,
        state=state,
        merged=node["merged"],
        is_draft=node["isDraft"],
        head_ref_oid=head,
        review_decision=_str(node.get("reviewDecision")),
        check_state=_str(rollup.get("state")) if isinstance(rollup, Mapping) else None,
        comments=comments,
        reviews=reviews,
        person_comments_from=max(froms) if froms else None,
        comments_page=c_page,
        reviews_page=r_page,
        node_id=_str(node.get("id")) or "",
        updated_at=parse_time(node.get("updatedAt")),
        left_off=listed - len(comments) - len(reviews),
    )


def _error_paths(errors: ErrorList) -> dict[tuple[str, ...], str]:
    """Each error's path prefix (aliases only) and its type."""
    out: dict[tuple[str, ...], str] = {}
    for e in errors:
        path = e.get("path")
        if isinstance(path, list):
            key = tuple(str(p) for p in path)
            kind = e.get("type")
            out[key] = kind if isinstance(kind, str) else "ERROR"
    return out


def _error_under(paths: Mapping[tuple[str, ...], str], prefix: tuple[str, ...]) -> str | None:
    """The type of an error at or under ``prefix``, NOT_FOUND first; None if none."""
    found = [t for p, t in paths.items() if p[: len(prefix)] == prefix or prefix[: len(p)] == p]
    if not found:
        return None
    return "NOT_FOUND" if "NOT_FOUND" in found else found[0]


def parse_badge(
    data: object,
    prs: Sequence[PrRef],
    *,
    comments_window: int,
    reviews_window: int,
    errors: ErrorList = (),
) -> BadgeBatch:
    """Parse a badge answer for ``prs`` (built by ``badge_query`` with the same PRs).

    A PR answered null with no error, or with a NOT_FOUND error, is ``missing``.  A PR whose
    answer carries another error, or is malformed, is in neither ``statuses`` nor
    ``missing``: it failed this time, and its listeners must not be called.
    """
    layout = badge_layout(prs)
    root = data if isinstance(data, Mapping) else {}
    paths = _error_paths(errors)
    statuses: dict[PrRef, PrStatus] = {}
    missing: list[PrRef] = []
    for pr, (repo_alias, pr_alias) in layout.aliases.items():
        repo = root.get(repo_alias)
        node = repo.get(pr_alias) if isinstance(repo, Mapping) else None
        error = _error_under(paths, (repo_alias, pr_alias))
        if not isinstance(node, Mapping):
            if error in (None, "NOT_FOUND"):
                missing.append(pr)
            else:
                log.warning("%s: badge not read this time (GraphQL error %s)", pr, error)
            continue
        if error is not None and error != "NOT_FOUND":
            log.warning("%s: badge not read this time (GraphQL error %s)", pr, error)
            continue
        try:
            spelled = repo.get("nameWithOwner") if isinstance(repo, Mapping) else None
            as_github = pr.spelled(spelled) if isinstance(spelled, str) else pr
            statuses[pr] = _pr_status(as_github, node, comments_window, reviews_window)
        except ValueError as exc:
            log.warning("%s: badge not read this time (%s)", pr, exc)
    return BadgeBatch(statuses=statuses, missing=tuple(missing), **rate_limit_field(root))


def rate_limit_field(root: Mapping[str, Any]) -> dict[str, Any]:
    """``cost``, ``remaining`` and ``reset_at`` from an answer's ``rateLimit`` field (None
    where it is absent or malformed)."""
    rate = root.get("rateLimit")
    rate = rate if isinstance(rate, Mapping) else {}
    cost, remaining = rate.get("cost"), rate.get("remaining")
    return {
        "cost": cost if isinstance(cost, int) else None,
        "remaining": remaining if isinstance(remaining, int) else None,
        "reset_at": parse_time(rate.get("resetAt")),
    }


def rate_figures(result: GraphQLResult, parsed: BadgeBatch | SweepBatch) -> dict[str, Any]:
    """The rate figures of a parsed answer, the client's where it read them (its
    ``rateLimit`` field or headers), for ``msgspec.structs.replace``."""
    return {
        "cost": result.cost if result.cost is not None else parsed.cost,
        "remaining": result.remaining if result.remaining is not None else parsed.remaining,
        "reset_at": result.reset_at or parsed.reset_at,
    }


async def graphql_answer(
    api: GitHubApi, document: str, variables: Mapping[str, Any]
) -> GraphQLResult:
    """Send a query; an answer whose only errors are NOT_FOUND is an answer, not a fault."""
    try:
        return await api.graphql(document, variables)
    except GraphQLError as exc:
        if exc.errors and all(e.get("type") == "NOT_FOUND" for e in exc.errors):
            return GraphQLResult(data=exc.data, errors=tuple(exc.errors))
        raise


async def read_badges(
    api: GitHubApi,
    prs: Sequence[PrRef],
    *,
    comments_window: int = 10,
    reviews_window: int = 20,
) -> BadgeBatch:
    """The badges of up to 100 PRs on ``api.host`` in one query."""
    if len(prs) > MAX_BADGE_PRS:
        raise ValueError(f"read_badges reads at most {MAX_BADGE_PRS} PRs, not {len(prs)}")
    other = [str(p) for p in prs if p.host != api.host]
    if other:
        raise ValueError(f"PRs on another host than {api.host}: {', '.join(other)}")
    if not prs:
        return BadgeBatch(statuses={})
    document, variables = badge_query(
        prs, comments_window=comments_window, reviews_window=reviews_window
    )
    result = await graphql_answer(api, document, variables)
    batch = parse_badge(
        result.data,
        prs,
        comments_window=comments_window,
        reviews_window=reviews_window,
        errors=result.errors,
    )
    return msgspec.structs.replace(batch, **rate_figures(result, batch))


def _inline(node: object) -> InlineComment | None:
    if not isinstance(node, Mapping):
        return None
    item_id, path = _str(node.get("id")), _str(node.get("path"))
    body, url = _str(node.get("body")), _str(node.get("url"))
    if item_id is None or path is None or body is None or url is None:
        return None
    return InlineComment(
        id=item_id,
        database_id=_database_id(node),
        path=path,
        line=_line(node.get("line")),
        original_line=_line(node.get("originalLine")),
        body=body,
        url=url,
        start_line=_line(node.get("startLine")),
        original_start_line=_line(node.get("originalStartLine")),
        outdated=node.get("outdated") is True,
    )


def _line(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _inline_page(conn: object) -> tuple[list[InlineComment], str | None]:
    """A page of inline comments and the cursor of the next page, if any."""
    if not isinstance(conn, Mapping):
        return [], None
    nodes = conn.get("nodes")
    out = [c for c in (_inline(n) for n in nodes or ()) if c is not None]
    info = conn.get("pageInfo")
    after = None
    if isinstance(info, Mapping) and info.get("hasNextPage") is True:
        after = _str(info.get("endCursor"))
    return out, after


def parse_details(data: object, ids: Sequence[str]) -> tuple[dict[str, ItemDetail], dict[str, str]]:
    """Details of a ``detail_query`` answer for ``ids``, and for each review whose inline
    comments go on, the cursor of their next page.  An id answered null is left out."""
    root = data if isinstance(data, Mapping) else {}
    details: dict[str, ItemDetail] = {}
    more: dict[str, str] = {}
    for k, item_id in enumerate(ids):
        node = root.get(f"d{k}")
        if not isinstance(node, Mapping):
            continue
        typename = node.get("__typename")
        body, url = _str(node.get("body")), _str(node.get("url"))
        if body is None or url is None:
            continue
        edited = parse_time(node.get("lastEditedAt"))
        hidden = node.get("isMinimized") is True
        if typename == "IssueComment":
            details[item_id] = ItemDetail(
                id=item_id,
                kind="comment",
                body=body,
                url=url,
                last_edited_at=edited,
                is_minimized=hidden,
            )
        elif typename == "PullRequestReview":
            inline, after = _inline_page(node.get("comments"))
            details[item_id] = ItemDetail(
                id=item_id,
                kind="review",
                body=body,
                url=url,
                last_edited_at=edited,
                inline=tuple(inline),
                is_minimized=hidden,
            )
            if after is not None:
                more[item_id] = after
    return details, more


async def read_details(
    api: GitHubApi,
    ids: Sequence[str],
    *,
    batch: int = 30,
    inline_window: int = 20,
    first_page_only: Collection[str] = (),
) -> dict[str, ItemDetail]:
    """Bodies of comments and reviews (and reviews' inline comments), by node id.

    ``ceil(len(ids) / batch)`` queries, plus one per further page of a review with more than
    ``inline_window`` inline comments, except for the reviews in ``first_page_only``: those
    are read to their first page, and their ``more_inline`` holds the rest's cursor (a
    stranger's review of 1,100 inline comments costs one point, not 51, before anyone
    knows whether its author may write).  An id missing from the answer was deleted (or
    could not be read this time)."""
    if not 1 <= batch <= 100:
        raise ValueError(f"batch must be from 1 to 100, not {batch}")
    unique = list(dict.fromkeys(ids))
    details: dict[str, ItemDetail] = {}
    for start in range(0, len(unique), batch):
        chunk = unique[start : start + batch]
        document, variables = detail_query(chunk, inline_window=inline_window)
        result = await graphql_answer(api, document, variables)
        found, more = parse_details(result.data, chunk)
        for review_id, after in more.items():
            if review_id in first_page_only:
                found[review_id] = msgspec.structs.replace(found[review_id], more_inline=after)
            else:
                found[review_id] = await _more_inline(
                    api, found[review_id], after, inline_window=inline_window
                )
        details.update(found)
    return details


async def _more_inline(
    api: GitHubApi, review: ItemDetail, after: str, *, inline_window: int
) -> ItemDetail:
    inline = list(review.inline)
    cursor: str | None = after
    pages = 0
    while cursor is not None and pages < MAX_INLINE_PAGES:
        pages += 1
        document, variables = inline_page_query(review.id, cursor, inline_window=inline_window)
        result = await graphql_answer(api, document, variables)
        node = result.data.get("node") if isinstance(result.data, Mapping) else None
        page, cursor = _inline_page(node.get("comments") if isinstance(node, Mapping) else None)
        inline.extend(page)
    return ItemDetail(
        id=review.id,
        kind=review.kind,
        body=review.body,
        url=review.url,
        last_edited_at=review.last_edited_at,
        inline=tuple(inline),
        is_minimized=review.is_minimized,
    )


async def read_gap(
    api: GitHubApi,
    pr: PrRef,
    connection: Literal["comments", "reviews"],
    before_cursor: str,
    *,
    stop_at: datetime,
    max_pages: int,
    more: Callable[[], Awaitable[bool]] | None = None,
) -> GapRead:
    """Read a connection backwards from ``before_cursor`` in pages of 100, until an item at
    or before ``stop_at``, the start of the listing, or ``max_pages``.  ``items`` holds
    everything read, oldest first (items at or before ``stop_at`` included).  ``more``,
    when given, is asked before each page after the first: False stops the read there,
    incomplete (a fleet owner's gap bucket, or a low shared budget)."""
    kind: Literal["comment", "review"] = "comment" if connection == "comments" else "review"
    items: list[BadgeItem] = []
    cursor: str | None = before_cursor
    pages = 0
    complete = False
    reached: datetime | None = None
    where = f"{pr} (gap read)"
    while cursor is not None and pages < max_pages:
        if pages and more is not None and not await more():
            break
        document, variables = gap_query(pr, connection, cursor)
        result = await graphql_answer(api, document, variables)
        pages += 1
        root = result.data if isinstance(result.data, Mapping) else {}
        repo = root.get("repository")
        node = repo.get("pullRequest") if isinstance(repo, Mapping) else None
        conn = node.get(connection) if isinstance(node, Mapping) else None
        if not isinstance(conn, Mapping):
            break
        page, info, _ = _listing(kind, conn, 100, where)
        items[:0] = page
        if page:
            oldest = min(i.created_at for i in page)
            reached = oldest if reached is None else min(reached, oldest)
        if reached is not None and reached <= stop_at:
            complete = True
            break
        if not info.has_previous_page:
            complete = True
            break
        cursor = info.start_cursor
    return GapRead(items=tuple(items), reached=reached, complete=complete, pages=pages)


def _summary(*parts: object) -> str:
    text = "\n\n".join(p.strip() for p in parts if isinstance(p, str) and p.strip())
    if len(text) > SUMMARY_LIMIT:
        return text[:SUMMARY_LIMIT] + "\n[output cut]"
    return text


def parse_failing_checks(nodes: Sequence[object]) -> list[CheckFailure]:
    """The failing check runs and status contexts among ``contexts.nodes``."""
    out: list[CheckFailure] = []
    for node in nodes:
        if not isinstance(node, Mapping):
            continue
        typename, item_id = node.get("__typename"), _str(node.get("id"))
        if item_id is None:
            continue
        if typename == "CheckRun":
            conclusion, name = _str(node.get("conclusion")), _str(node.get("name"))
            if conclusion in FAILING_CONCLUSIONS and name is not None:
                out.append(
                    CheckFailure(
                        id=item_id,
                        name=name,
                        conclusion=conclusion,
                        summary=_summary(node.get("title"), node.get("summary"), node.get("text")),
                        url=_str(node.get("detailsUrl")) or _str(node.get("url")) or "",
                    )
                )
        elif typename == "StatusContext":
            state, name = _str(node.get("state")), _str(node.get("context"))
            if state in FAILING_STATES and name is not None:
                out.append(
                    CheckFailure(
                        id=item_id,
                        name=name,
                        conclusion=state,
                        summary=_summary(node.get("description")),
                        url=_str(node.get("targetUrl")) or "",
                    )
                )
    return out


def _contexts(pull: object) -> Mapping[str, Any] | None:
    """``statusCheckRollup.contexts`` of a ``pullRequest`` answer (None: no rollup)."""
    rollup = pull.get("statusCheckRollup") if isinstance(pull, Mapping) else None
    conn = rollup.get("contexts") if isinstance(rollup, Mapping) else None
    return conn if isinstance(conn, Mapping) else None


def _next_cursor(conn: Mapping[str, Any]) -> str | None:
    info = conn.get("pageInfo")
    if not (isinstance(info, Mapping) and info.get("hasNextPage") is True):
        return None
    return _str(info.get("endCursor"))


async def read_failing_checks(
    api: GitHubApi, pr: PrRef, *, after: str | None = None, pages: int = MAX_CHECK_PAGES
) -> tuple[CheckFailure, ...]:
    """The failing checks on a PR's current head commit (the contexts, paginated), from
    the page after ``after`` on, at most ``pages`` pages."""
    failures: list[CheckFailure] = []
    for _ in range(pages):
        document, variables = failing_checks_query(pr, after=after)
        result = await graphql_answer(api, document, variables)
        root = result.data if isinstance(result.data, Mapping) else {}
        repo = root.get("repository")
        conn = _contexts(repo.get("pullRequest") if isinstance(repo, Mapping) else None)
        if conn is None:
            break
        failures.extend(parse_failing_checks(conn.get("nodes") or ()))
        after = _next_cursor(conn)
        if after is None:
            break
    return tuple(failures)


async def read_failing_checks_batch(
    api: GitHubApi, prs: Sequence[PrRef]
) -> dict[PrRef, tuple[CheckFailure, ...]]:
    """The failing checks on the head commits of ``prs``: the first page of each PR's
    contexts in one query per ``MAX_CHECK_PRS`` PRs, and a PR whose contexts go on read to
    their end with ``read_failing_checks``.  A PR GitHub did not answer (gone, or no
    access) is left out."""
    unique = list(dict.fromkeys(prs))
    found: dict[PrRef, tuple[CheckFailure, ...]] = {}
    for start in range(0, len(unique), MAX_CHECK_PRS):
        chunk = unique[start : start + MAX_CHECK_PRS]
        document, variables = failing_checks_batch_query(chunk)
        result = await graphql_answer(api, document, variables)
        root = result.data if isinstance(result.data, Mapping) else {}
        for k, pr in enumerate(chunk):
            repo = root.get(f"c{k}")
            pull = repo.get("pullRequest") if isinstance(repo, Mapping) else None
            if not isinstance(pull, Mapping):
                continue
            conn = _contexts(pull)
            if conn is None:  # no checks on the head commit
                found[pr] = ()
                continue
            failures = parse_failing_checks(conn.get("nodes") or ())
            after = _next_cursor(conn)
            if after is not None:
                more = await read_failing_checks(api, pr, after=after, pages=MAX_CHECK_PAGES - 1)
                failures.extend(more)
            found[pr] = tuple(failures)
    return found


async def add_reactions(
    api: GitHubApi, subject_ids: Sequence[str], content: str
) -> dict[str, bool]:
    """React with ``content`` (``EYES``, ``THUMBS_UP``...) to each subject; True where
    GitHub confirmed it.  One mutation per 30 subjects."""
    unique = list(dict.fromkeys(subject_ids))
    done: dict[str, bool] = {}
    for start in range(0, len(unique), MAX_REACTIONS):
        chunk = unique[start : start + MAX_REACTIONS]
        document, variables = add_reactions_query(chunk, content)
        try:
            result = await api.graphql(document, variables)
            data, errors = result.data, result.errors
        except GraphQLError as exc:
            data, errors = exc.data, tuple(exc.errors)
        root = data if isinstance(data, Mapping) else {}
        paths = _error_paths(errors)
        for k, subject in enumerate(chunk):
            answer = root.get(f"a{k}")
            ok = (
                isinstance(answer, Mapping)
                and isinstance(answer.get("reaction"), Mapping)
                and _error_under(paths, (f"a{k}",)) is None
            )
            done[subject] = ok
    return done
