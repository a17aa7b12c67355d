"""Talking to GitHub: the client, its seam, and the reads and writes the monitor makes.

``GitHubClient`` is the only httpx user (ETag cache, rate limits, retries, never a token
in a log line or an error); ``GitHubApi`` is the seam listeners and tests use.  The
badge, detail, gap and check reads each turn one GraphQL query into frozen structs;
``all_documents`` lists every query the monitor sends (checked against GitHub's schema by
``python -m review_monitor queries``).
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
        read_gap,
    )
    from ._github import GitHubClient, RetryPolicy, route_template
    from ._queries import all_documents
    from ._ratelimit import RateLimit
    from ._token import find_token

__all__ = [
    "GitHubApi",
    "GitHubClient",
    "GraphQLResult",
    "RateLimit",
    "RestResult",
    "RetryPolicy",
    "add_reactions",
    "all_documents",
    "find_token",
    "parse_badge",
    "parse_details",
    "parse_failing_checks",
    "read_badges",
    "read_details",
    "read_failing_checks",
    "read_gap",
    "route_template",
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
            "read_gap",
        ),
        "._github": ("GitHubClient", "RetryPolicy", "route_template"),
        "._queries": ("all_documents",),
        "._ratelimit": ("RateLimit",),
        "._token": ("find_token",),
    },
)
