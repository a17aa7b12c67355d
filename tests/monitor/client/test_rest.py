"""REST over the client: the ETag cache, POST, and where requests go."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest

from review_monitor import GitHubConfig
from review_monitor._github import endpoints
from review_monitor.github import GitHubClient, RestResult

Factory = Callable[..., GitHubClient]
Reply = Callable[..., httpx.Response]


@pytest.mark.parametrize(
    ("config", "expected"),
    [
        (GitHubConfig(), ("https://api.github.com", "https://api.github.com/graphql")),
        (
            GitHubConfig(host="ghe.example.com"),
            ("https://ghe.example.com/api/v3", "https://ghe.example.com/api/graphql"),
        ),
        (
            GitHubConfig(host="octo.ghe.com"),
            ("https://api.octo.ghe.com", "https://api.octo.ghe.com/graphql"),
        ),
        (
            GitHubConfig(host="ghe.example.com", api_url="http://127.0.0.1:9/"),
            ("http://127.0.0.1:9", "http://127.0.0.1:9/graphql"),
        ),
    ],
    ids=["github.com", "enterprise-server", "ghe.com", "explicit-api-url"],
)
def test_endpoints_follow_the_host(config: GitHubConfig, expected: tuple[str, str]) -> None:
    assert expected == endpoints(config)


def test_endpoints_refuse_a_host_with_a_path() -> None:
    with pytest.raises(ValueError, match="not a host name"):
        endpoints(GitHubConfig(host="evil.example/path"))


@pytest.mark.anyio
async def test_rest_get_decodes_body_and_keeps_headers(
    make_client: Factory, script_class: Any, reply_fn: Reply
) -> None:
    script = script_class([reply_fn(200, {"a": 1}, {"x-thing": "y"})])

    result = await make_client(script).rest_get("/repos/o/r")

    assert (200, {"a": 1}, "y", False) == (
        result.status,
        result.body,
        result.headers["x-thing"],
        result.from_cache,
    )
    assert "http://127.0.0.1:8765/repos/o/r" == str(script.requests[0].url)


@pytest.mark.anyio
async def test_rest_get_answers_404_as_a_result(
    make_client: Factory, script_class: Any, reply_fn: Reply
) -> None:
    script = script_class([reply_fn(404, {"message": "Not Found"})])

    result = await make_client(script).rest_get("/repos/o/r")

    assert (404, {"message": "Not Found"}) == (result.status, result.body)


@pytest.mark.anyio
async def test_rest_get_sends_if_none_match_with_the_cached_etag(
    make_client: Factory, script_class: Any, reply_fn: Reply
) -> None:
    script = script_class([reply_fn(200, {"a": 1}, {"etag": '"abc"'}), reply_fn(304)])
    client = make_client(script)

    await client.rest_get("/repos/o/r")
    await client.rest_get("/repos/o/r")

    assert ["", '"abc"'] == [r.headers.get("if-none-match", "") for r in script.requests]


@pytest.mark.anyio
async def test_rest_get_304_returns_the_cached_body_from_cache(
    make_client: Factory, script_class: Any, reply_fn: Reply
) -> None:
    script = script_class([reply_fn(200, {"a": 1}, {"etag": '"abc"'}), reply_fn(304)])
    client = make_client(script)

    await client.rest_get("/repos/o/r")
    second = await client.rest_get("/repos/o/r")

    assert RestResult(200, {"a": 1}, second.headers, from_cache=True) == second


@pytest.mark.anyio
async def test_etag_cache_is_per_url(
    make_client: Factory, script_class: Any, reply_fn: Reply
) -> None:
    script = script_class(
        [reply_fn(200, {"a": 1}, {"etag": '"abc"'}), reply_fn(200, {"b": 2}, {"etag": '"def"'})]
    )
    client = make_client(script)

    await client.rest_get("/repos/o/r")
    await client.rest_get("/repos/o/other")

    assert "if-none-match" not in script.requests[1].headers


@pytest.mark.anyio
async def test_etag_cache_is_per_host(
    make_client: Factory, script_class: Any, reply_fn: Reply, clock: Any
) -> None:
    script = script_class([reply_fn(200, {"a": 1}, {"etag": '"abc"'})])
    one = make_client(script, config=GitHubConfig(host="a.example", api_url="http://x"))
    other = make_client(script, config=GitHubConfig(host="b.example", api_url="http://x"))

    await one.rest_get("/repos/o/r")
    await other.rest_get("/repos/o/r")

    assert "if-none-match" not in script.requests[1].headers


@pytest.mark.anyio
async def test_rest_post_sends_json_body_and_returns_answer(
    make_client: Factory, script_class: Any, reply_fn: Reply
) -> None:
    script = script_class([reply_fn(201, {"id": 9})])

    result = await make_client(script).rest_post("/repos/o/r/issues/1/comments", {"body": "hi"})

    assert (201, {"id": 9}) == (result.status, result.body)
    assert ("POST", {"body": "hi"}) == (script.requests[0].method, script.body(0))


@pytest.mark.anyio
async def test_rest_get_accepts_an_absolute_url_on_the_api(
    make_client: Factory, script_class: Any, reply_fn: Reply
) -> None:
    script = script_class([reply_fn(200, [])])

    await make_client(script).rest_get("http://127.0.0.1:8765/repos/o/r/issues?page=2")

    assert "http://127.0.0.1:8765/repos/o/r/issues?page=2" == str(script.requests[0].url)


@pytest.mark.anyio
async def test_rest_get_refuses_to_send_the_token_to_another_origin(
    make_client: Factory, script_class: Any, reply_fn: Reply
) -> None:
    script = script_class([reply_fn(200, [])])

    with pytest.raises(ValueError, match="outside"):
        await make_client(script).rest_get("http://127.0.0.1:8765.evil.example/x")

    assert 0 == script.calls


@pytest.mark.anyio
async def test_client_does_not_follow_redirects(
    make_client: Factory, script_class: Any, reply_fn: Reply
) -> None:
    script = script_class([reply_fn(302, None, {"location": "https://elsewhere.example/"})])

    result = await make_client(script).rest_get("/repos/o/r")

    assert (302, 1) == (result.status, script.calls)


@pytest.mark.anyio
async def test_rest_get_tracks_the_core_rate_limit(
    make_client: Factory, script_class: Any, reply_fn: Reply
) -> None:
    headers = {"x-ratelimit-remaining": "4999", "x-ratelimit-limit": "5000"}
    script = script_class([reply_fn(200, {}, {**headers, "x-ratelimit-resource": "core"})])
    client = make_client(script)

    await client.rest_get("/repos/o/r")

    assert 4999 == client.rate_limits["core"].remaining


@pytest.mark.anyio
async def test_token_provider_is_read_for_each_request(
    make_client: Factory, script_class: Any, reply_fn: Reply
) -> None:
    tokens = iter(["ghp_first", "ghp_second"])
    script = script_class([reply_fn(200, {})])
    client = make_client(script, token=lambda: next(tokens))

    await client.rest_get("/a")
    await client.rest_get("/b")

    assert ["Bearer ghp_first", "Bearer ghp_second"] == [
        r.headers["authorization"] for r in script.requests
    ]
