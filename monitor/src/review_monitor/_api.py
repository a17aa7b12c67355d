"""The seam between the monitor's logic and the GitHub client (``GitHubClient`` implements it)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any, Protocol

import msgspec

__all__ = ["GitHubApi", "GraphQLResult", "RestResult"]


class GraphQLResult(msgspec.Struct, frozen=True):
    """A GraphQL answer.  ``errors`` may sit beside partial ``data`` (GitHub answers HTTP 200)."""

    data: Any
    errors: tuple[dict[str, Any], ...] = ()
    cost: int | None = None  # rateLimit.cost, when the query asked for it
    remaining: int | None = None
    limit: int | None = None
    reset_at: datetime | None = None


class RestResult(msgspec.Struct, frozen=True):
    """One REST answer: the status, the decoded body and the headers that matter."""

    status: int
    body: Any  # decoded JSON, or None
    headers: Mapping[str, str] = msgspec.field(default_factory=dict)
    from_cache: bool = False  # a 304 answered from the ETag cache


class GitHubApi(Protocol):
    """What the monitor needs from GitHub.  ``host`` keys every cache."""

    @property
    def host(self) -> str: ...

    async def graphql(
        self, query: str, variables: Mapping[str, Any] | None = None
    ) -> GraphQLResult:
        """POST a query.  Raises ``GraphQLError`` when there are errors and no usable data,
        ``RateLimitedError``, ``TransientError`` (after bounded retries) or ``AuthError``."""
        ...

    async def rest_get(self, path: str, *, retry: bool = True) -> RestResult:
        """GET with the ETag cache.  ``retry=False``: one attempt (permission lookups).
        Answers every status as a ``RestResult`` except faults it raises for."""
        ...

    async def rest_post(self, path: str, body: Any) -> RestResult: ...
