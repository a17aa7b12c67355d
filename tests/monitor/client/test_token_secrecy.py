"""The token never appears in an exception (message, repr, cause) or a log line."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import Any

import httpx
import pytest

from review_monitor import AuthError, GitHubConfig, PrRef
from review_monitor.github import (
    GitHubClient,
    RetryPolicy,
    ReviewLine,
    create_issue_comment,
    create_review,
    update_issue_comment,
)

Factory = Callable[..., GitHubClient]
Reply = Callable[..., httpx.Response]

QUERY = "{ viewer { login } }"


def _texts(exc: BaseException) -> list[str]:
    """Every text an exception and its chain can show (``GraphQLError.errors`` holds GitHub's
    own answer as data, not text)."""
    texts: list[str] = []
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        texts += [str(current), repr(current), *(repr(a) for a in current.args)]
        current = current.__cause__ or current.__context__
    return texts


def _faults(reply_fn: Reply, token: str) -> list[tuple[str, list[Any], Any]]:
    """(name, replies, call) for every error path; ``call`` gets the client."""
    secondary = {"message": "You have exceeded a secondary rate limit."}

    def graphql(c: GitHubClient) -> Awaitable[Any]:
        return c.graphql(QUERY, {"token_echo": token})

    def get(c: GitHubClient) -> Awaitable[Any]:
        return c.rest_get("/repos/o/r")

    def post(c: GitHubClient) -> Awaitable[Any]:
        return c.rest_post("/repos/o/r/issues/1/comments", {"body": token})

    def comment(c: GitHubClient) -> Awaitable[Any]:
        return create_issue_comment(c, PrRef("o", "r", 1), token)  # the body is the token too

    def edit(c: GitHubClient) -> Awaitable[Any]:
        return update_issue_comment(c, PrRef("o", "r", 1), 5, token)

    def review(c: GitHubClient) -> Awaitable[Any]:
        line = ReviewLine(path="a.py", line=1, body=token)
        return create_review(c, PrRef("o", "r", 1), commit_id="abc", body=token, comments=[line])

    echo = {"message": f"Bad credentials {token}"}  # even if GitHub echoed it back
    refusal = {"message": "Validation Failed", "errors": [token]}
    return [
        ("post refused", [reply_fn(422, refusal)], comment),
        ("post uncertain", [reply_fn(502, echo)], comment),
        ("post timeout", [httpx.ReadTimeout(f"timed out {token}")], review),
        ("review refused", [reply_fn(422, refusal)], review),
        ("edit exhausted", [reply_fn(502, echo)], edit),
        ("401 rest", [reply_fn(401, echo)], get),
        ("401 graphql", [reply_fn(401, echo)], graphql),
        ("5xx exhausted", [reply_fn(502, echo)], get),
        ("5xx post", [reply_fn(500, echo)], post),
        ("timeout", [httpx.ReadTimeout(f"timed out {token}")], graphql),
        ("connect error", [httpx.ConnectError(f"refused {token}")], post),
        ("secondary limit", [reply_fn(403, secondary, {"retry-after": "60"})], graphql),
        ("primary limit", [reply_fn(429, echo, {"x-ratelimit-remaining": "0"})], get),
        (
            "graphql errors, no data",
            [reply_fn(200, {"data": None, "errors": [{"type": "X", "message": token}]})],
            graphql,
        ),
        ("graphql not json", [httpx.Response(200, content=token.encode())], graphql),
        ("graphql 400", [reply_fn(400, echo)], graphql),
        ("foreign url", [reply_fn(200, {})], lambda c: c.rest_get(f"https://x.example/{token}")),
    ]


@pytest.mark.anyio
async def test_no_error_path_shows_the_token(
    make_client: Factory,
    script_class: Any,
    reply_fn: Reply,
    token: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    leaks: list[str] = []
    faults = _faults(reply_fn, token)
    for name, replies, call in faults:
        client = make_client(script_class(replies), retry=RetryPolicy(attempts=2))
        with pytest.raises(Exception) as caught:  # noqa: PT011 - every kind is under test
            await call(client)
        if any(token in text for text in _texts(caught.value)):
            leaks.append(name)
    # The gate's refusal of a call before retry_at is one more path.
    gated = make_client(script_class([reply_fn(429, {}, {"retry-after": "60"})]))
    with pytest.raises(Exception) as first:  # noqa: PT011
        await gated.graphql(QUERY)
    with pytest.raises(Exception) as refused:  # noqa: PT011
        await gated.rest_get("/x")

    assert [] == leaks
    assert all(token not in t for t in _texts(first.value) + _texts(refused.value))
    assert 17 == len(faults)
    assert token not in caplog.text
    assert all(token not in r.getMessage() for r in caplog.records)


@pytest.mark.anyio
async def test_partial_data_log_line_shows_no_error_text(
    make_client: Factory,
    script_class: Any,
    reply_fn: Reply,
    token: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    body = {"data": {"a": 1}, "errors": [{"type": "NOT_FOUND", "message": f"secret {token}"}]}

    await make_client(script_class([reply_fn(200, body)])).graphql(QUERY)

    lines = [
        r.getMessage()
        for r in caplog.records
        if r.name == "review_monitor.github" and r.levelno >= logging.WARNING
    ]
    assert [True] == ["NOT_FOUND" in line for line in lines]
    assert token not in caplog.text


@pytest.mark.anyio
@pytest.mark.parametrize("bad", ["ghp_has space", "ghp_new\nline", "", "ghp_tab\there"])
async def test_token_that_no_header_can_carry_is_refused_without_showing_it(
    make_client: Factory, script_class: Any, reply_fn: Reply, bad: str
) -> None:
    script = script_class([reply_fn(200, {})])
    client = make_client(script, token=bad)

    with pytest.raises(AuthError) as caught:
        await client.rest_get("/x")

    assert 0 == script.calls
    assert all(bad.strip() not in t for t in _texts(caught.value) if bad.strip())


def test_client_repr_shows_no_token(token: str, clock: Any) -> None:
    client = GitHubClient(token, GitHubConfig(), clock=clock)

    assert token not in repr(client)


@pytest.mark.anyio
async def test_retry_log_lines_show_no_token_and_one_line_per_fault(
    make_client: Factory,
    script_class: Any,
    reply_fn: Reply,
    token: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING, logger="review_monitor.github")
    script = script_class([reply_fn(502), reply_fn(503), reply_fn(200, {})])

    await make_client(script, retry=RetryPolicy(base=timedelta(seconds=1))).rest_get("/x")

    lines = [r.getMessage() for r in caplog.records if r.name == "review_monitor.github"]
    assert 2 == len(lines)
    assert all(token not in line for line in lines)


@pytest.mark.anyio
async def test_error_types_that_are_not_enum_names_are_logged_as_other(
    make_client: Factory,
    script_class: Any,
    reply_fn: Reply,
    token: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING, logger="review_monitor.github")
    body = {"data": {"a": 1}, "errors": [{"type": f"free text {token}", "message": "x"}]}

    await make_client(script_class([reply_fn(200, body)])).graphql(QUERY)

    lines = [r.getMessage() for r in caplog.records if r.name == "review_monitor.github"]
    assert ["GitHub GraphQL answered 1 error(s) beside partial data (types: OTHER)"] == lines
