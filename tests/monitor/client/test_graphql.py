"""GraphQL over the client: GitHub's error semantics and the rateLimit figures."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest

from review_monitor import GraphQLError, RateLimitedError
from review_monitor.github import GitHubClient, GraphQLResult

pytestmark = pytest.mark.anyio

QUERY = "query Q($n: Int!) { viewer { login } }"


async def test_graphql_posts_query_and_variables_with_bearer_token(
    make_client: Callable[..., GitHubClient],
    script_class: Any,
    reply_fn: Callable[..., httpx.Response],
    token: str,
) -> None:
    script = script_class([reply_fn(200, {"data": {"viewer": {"login": "octo"}}})])
    client = make_client(script)

    await client.graphql(QUERY, {"n": 3})

    request = script.requests[0]
    assert ("POST", "http://127.0.0.1:8765/graphql") == (request.method, str(request.url))
    assert {"query": QUERY, "variables": {"n": 3}} == script.body(0)
    assert f"Bearer {token}" == request.headers["authorization"]


async def test_graphql_returns_data(
    make_client: Callable[..., GitHubClient],
    script_class: Any,
    reply_fn: Callable[..., httpx.Response],
) -> None:
    script = script_class([reply_fn(200, {"data": {"viewer": {"login": "octo"}}})])

    result = await make_client(script).graphql(QUERY)

    assert GraphQLResult(data={"viewer": {"login": "octo"}}) == result


async def test_graphql_returns_partial_data_beside_errors(
    make_client: Callable[..., GitHubClient],
    script_class: Any,
    reply_fn: Callable[..., httpx.Response],
) -> None:
    error = {"type": "NOT_FOUND", "path": ["b"], "message": "Could not resolve"}
    script = script_class([reply_fn(200, {"data": {"a": {"n": 1}, "b": None}, "errors": [error]})])

    result = await make_client(script).graphql(QUERY)

    assert ({"a": {"n": 1}, "b": None}, (error,)) == (result.data, result.errors)


async def test_graphql_raises_when_errors_come_without_data(
    make_client: Callable[..., GitHubClient],
    script_class: Any,
    reply_fn: Callable[..., httpx.Response],
) -> None:
    error = {"type": "FORBIDDEN", "message": "Resource not accessible"}
    script = script_class([reply_fn(200, {"data": None, "errors": [error]})])

    with pytest.raises(GraphQLError) as caught:
        await make_client(script).graphql(QUERY)

    assert [error] == caught.value.errors


async def test_graphql_raises_when_every_field_of_data_is_null(
    make_client: Callable[..., GitHubClient],
    script_class: Any,
    reply_fn: Callable[..., httpx.Response],
) -> None:
    error = {"type": "NOT_FOUND", "message": "Could not resolve"}
    script = script_class([reply_fn(200, {"data": {"a": None}, "errors": [error]})])

    with pytest.raises(GraphQLError):
        await make_client(script).graphql(QUERY)


async def test_graphql_raises_on_a_body_that_is_not_json(
    make_client: Callable[..., GitHubClient], script_class: Any
) -> None:
    script = script_class([httpx.Response(200, content=b"<html>oops</html>")])

    with pytest.raises(GraphQLError):
        await make_client(script).graphql(QUERY)


async def test_graphql_reads_rate_limit_field_into_result(
    make_client: Callable[..., GitHubClient],
    script_class: Any,
    reply_fn: Callable[..., httpx.Response],
) -> None:
    data = {
        "viewer": {"login": "octo"},
        "rateLimit": {
            "cost": 3,
            "remaining": 4990,
            "limit": 5000,
            "resetAt": "2030-01-02T04:00:00Z",
        },
    }
    script = script_class([reply_fn(200, {"data": data})])

    result = await make_client(script).graphql(QUERY)

    expected = (3, 4990, 5000, datetime(2030, 1, 2, 4, 0, tzinfo=UTC))
    assert expected == (result.cost, result.remaining, result.limit, result.reset_at)


async def test_graphql_reads_rate_limit_headers_when_field_absent(
    make_client: Callable[..., GitHubClient],
    script_class: Any,
    reply_fn: Callable[..., httpx.Response],
) -> None:
    reset = datetime(2030, 1, 2, 4, 0, tzinfo=UTC)
    headers = {
        "x-ratelimit-limit": "5000",
        "x-ratelimit-remaining": "4321",
        "x-ratelimit-used": "679",
        "x-ratelimit-reset": str(int(reset.timestamp())),
        "x-ratelimit-resource": "graphql",
    }
    script = script_class([reply_fn(200, {"data": {"viewer": None, "x": 1}}, headers)])
    client = make_client(script)

    result = await client.graphql(QUERY)

    assert (None, 4321, 5000, reset) == (
        result.cost,
        result.remaining,
        result.limit,
        result.reset_at,
    )
    assert client.rate_limit is not None
    assert (4321, 679) == (client.rate_limit.remaining, client.rate_limit.used)


async def test_graphql_rate_limited_error_type_raises_rate_limited(
    make_client: Callable[..., GitHubClient],
    script_class: Any,
    reply_fn: Callable[..., httpx.Response],
    clock: Any,
) -> None:
    reset = clock.now() + timedelta(minutes=20)
    headers = {"x-ratelimit-remaining": "0", "x-ratelimit-reset": str(int(reset.timestamp()))}
    body = {"errors": [{"type": "RATE_LIMITED", "message": "API rate limit exceeded"}]}
    script = script_class([reply_fn(200, body, headers)])

    with pytest.raises(RateLimitedError) as caught:
        await make_client(script).graphql(QUERY)

    assert (reset, False) == (caught.value.retry_at, caught.value.secondary)


async def test_graphql_secondary_limit_message_at_http_200_is_secondary(
    make_client: Callable[..., GitHubClient],
    script_class: Any,
    reply_fn: Callable[..., httpx.Response],
) -> None:
    body = {"errors": [{"message": "You have exceeded a secondary rate limit. Please wait."}]}
    script = script_class([reply_fn(200, body)])

    with pytest.raises(RateLimitedError) as caught:
        await make_client(script).graphql(QUERY)

    assert caught.value.secondary


async def test_graphql_http_error_without_graphql_body_raises(
    make_client: Callable[..., GitHubClient],
    script_class: Any,
    reply_fn: Callable[..., httpx.Response],
) -> None:
    script = script_class([reply_fn(400, {"message": "Problems parsing JSON"})])

    with pytest.raises(GraphQLError):
        await make_client(script).graphql(QUERY)
