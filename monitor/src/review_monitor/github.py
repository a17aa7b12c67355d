"""Talking to GitHub: the client, its seam, and the reads and writes the monitor makes.

``GitHubClient`` is the only httpx user (ETag cache, rate limits, retries, never a token
in a log line or an error); ``GitHubApi`` is the seam listeners and tests use.  The
badge, detail, gap and check reads each turn one GraphQL query into frozen structs;
``all_documents`` lists every query the monitor sends (checked against GitHub's schema by
``python -m review_monitor queries``).  The posting calls (``create_issue_comment``,
``create_review``, ``reply_to_review_comment``, ``update_issue_comment``, the ``list_*``
reads and ``pull_head``) post on a PR over REST and find a post again.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from review_monitor._lazy import lazy_exports

if TYPE_CHECKING:
    from ._api import GitHubApi, GraphQLResult, RestResult
    from ._badge import (
        add_reactions,
        parse_badge,
        parse_details,
        parse_failing_checks,
        read_badges,
        read_details,
        read_failing_checks,
        read_failing_checks_batch,
        read_gap,
    )
    from ._github import GitHubClient, RetryPolicy, route_template
    from ._posts import (
        MAX_BODY_CHARS,
        Listed,
        Posted,
        PostError,
        PostRefused,
        PostsApi,
        PostUncertain,
        PostUnexpected,
        RefusalKind,
        ReviewLine,
        create_issue_comment,
        create_review,
        get_review,
        list_issue_comments,
        list_review_comments,
        list_reviews,
        pull_head,
        reply_to_review_comment,
        update_issue_comment,
    )
    from ._queries import all_documents
    from ._ratelimit import RateLimit
    from ._token import find_token

__all__ = [
    "MAX_BODY_CHARS",
    "GitHubApi",
    "GitHubClient",
    "GraphQLResult",
    "Listed",
    "PostError",
    "PostRefused",
    "PostUncertain",
    "PostUnexpected",
    "Posted",
    "PostsApi",
    "RateLimit",
    "RefusalKind",
    "RestResult",
    "RetryPolicy",
    "ReviewLine",
    "add_reactions",
    "all_documents",
    "create_issue_comment",
    "create_review",
    "find_token",
    "get_review",
    "list_issue_comments",
    "list_review_comments",
    "list_reviews",
    "parse_badge",
    "parse_details",
    "parse_failing_checks",
    "pull_head",
    "read_badges",
    "read_details",
    "read_failing_checks",
    "read_failing_checks_batch",
    "read_gap",
    "reply_to_review_comment",
    "route_template",
    "update_issue_comment",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    globals(),
    {
        "._api": ("GitHubApi", "GraphQLResult", "RestResult"),
        "._badge": (
            "add_reactions",
            "parse_badge",
            "parse_details",
            "parse_failing_checks",
            "read_badges",
            "read_details",
            "read_failing_checks",
            "read_failing_checks_batch",
            "read_gap",
        ),
        "._github": ("GitHubClient", "RetryPolicy", "route_template"),
        "._posts": (
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
            "reply_to_review_comment",
            "update_issue_comment",
        ),
        "._queries": ("all_documents",),
        "._ratelimit": ("RateLimit",),
        "._token": ("find_token",),
    },
)
