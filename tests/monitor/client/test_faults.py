"""Faults: 5xx, timeouts and connection errors retried with backoff; 401; rate limits."""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import httpx
import pytest

from review_monitor import AuthError, RateLimitedError, TransientError
from review_monitor._github import backoff_delay
from review_monitor.github import GitHubClient, RetryPolicy

Factory = Callable[..., GitHubClient]
Reply = Callable[..., httpx.Response]

pytestmark = pytest.mark.anyio

QUERY = "{ viewer { login } }"
OK = {"data": {"viewer": {"login": "octo"}}}


async def test_5xx_is_retried_until_success(
    make_client: Factory, script_class: Any, reply_fn: Reply
) -> None:
    script = script_class([reply_fn(502), reply_fn(503), reply_fn(200, OK)])

    result = await make_client(script).graphql(QUERY)

    assert (OK["data"], 3) == (result.data, script.calls)


async def test_retries_wait_on_the_clock_with_growing_bounded_backoff(
    make_client: Factory, script_class: Any, reply_fn: Reply, clock: Any
) -> None:
    script = script_class([reply_fn(500)])
    policy = RetryPolicy(attempts=4, base=timedelta(seconds=2), cap=timedelta(seconds=5))

    with pytest.raises(TransientError):
        await make_client(script, retry=policy).rest_get("/x")

    ceilings = [timedelta(seconds=s) for s in (2, 4, 5)]
    assert len(ceilings) == len(clock.sleeps)
    for ceiling, slept in zip(ceilings, clock.sleeps, strict=True):
        assert ceiling / 2 <= slept < ceiling


def test_backoff_jitter_differs_between_seeds() -> None:
    policy = RetryPolicy()

    delays = {backoff_delay(3, policy, random.Random(seed)) for seed in range(5)}

    assert 5 == len(delays)


async def test_5xx_gives_up_after_the_bound_with_transient_error(
    make_client: Factory, script_class: Any, reply_fn: Reply
) -> None:
    script = script_class([reply_fn(503)])

    with pytest.raises(TransientError) as caught:
        await make_client(script, retry=RetryPolicy(attempts=3)).graphql(QUERY)

    assert (503, 3) == (caught.value.status, script.calls)


async def test_timeout_is_retried(make_client: Factory, script_class: Any, reply_fn: Reply) -> None:
    script = script_class([httpx.ReadTimeout("slow"), reply_fn(200, OK)])

    result = await make_client(script).graphql(QUERY)

    assert (OK["data"], 2) == (result.data, script.calls)


async def test_connection_errors_outlasting_retries_raise_transient_error(
    make_client: Factory, script_class: Any
) -> None:
    script = script_class([httpx.ConnectError("refused")])

    with pytest.raises(TransientError) as caught:
        await make_client(script).rest_get("/x")

    assert (None, 4) == (caught.value.status, script.calls)


async def test_rest_get_without_retry_makes_exactly_one_attempt(
    make_client: Factory, script_class: Any, reply_fn: Reply
) -> None:
    script = script_class([reply_fn(502), reply_fn(200, {})])

    with pytest.raises(TransientError):
        await make_client(script).rest_get("/x", retry=False)

    assert 1 == script.calls


async def test_rest_get_without_retry_makes_one_attempt_on_timeout(
    make_client: Factory, script_class: Any, reply_fn: Reply
) -> None:
    script = script_class([httpx.ReadTimeout("slow"), reply_fn(200, {})])

    with pytest.raises(TransientError):
        await make_client(script).rest_get("/x", retry=False)

    assert 1 == script.calls


async def test_rest_post_is_not_repeated_after_it_may_have_reached_github(
    make_client: Factory, script_class: Any, reply_fn: Reply
) -> None:
    script = script_class([reply_fn(502), reply_fn(201, {})])

    with pytest.raises(TransientError):
        await make_client(script).rest_post("/x", {"body": "hi"})

    assert 1 == script.calls


async def test_rest_post_is_not_repeated_after_a_read_timeout(
    make_client: Factory, script_class: Any, reply_fn: Reply
) -> None:
    script = script_class([httpx.ReadTimeout("slow"), reply_fn(201, {})])

    with pytest.raises(TransientError):
        await make_client(script).rest_post("/x", {"body": "hi"})

    assert 1 == script.calls


async def test_rest_post_is_retried_when_the_connection_never_opened(
    make_client: Factory, script_class: Any, reply_fn: Reply
) -> None:
    script = script_class([httpx.ConnectError("refused"), reply_fn(201, {"id": 1})])

    result = await make_client(script).rest_post("/x", {"body": "hi"})

    assert (201, 2) == (result.status, script.calls)


async def test_401_raises_auth_error(
    make_client: Factory, script_class: Any, reply_fn: Reply
) -> None:
    script = script_class([reply_fn(401, {"message": "Bad credentials"})])

    with pytest.raises(AuthError):
        await make_client(script).rest_get("/x")


async def test_graphql_401_raises_auth_error(
    make_client: Factory, script_class: Any, reply_fn: Reply
) -> None:
    script = script_class([reply_fn(401, {"message": "Bad credentials"})])

    with pytest.raises(AuthError):
        await make_client(script).graphql(QUERY)


async def test_ordinary_403_is_an_answer_not_a_rate_limit(
    make_client: Factory, script_class: Any, reply_fn: Reply
) -> None:
    body = {"message": "Must have push access to view collaborator permission."}
    script = script_class([reply_fn(403, body)])

    result = await make_client(script).rest_get("/x", retry=False)

    assert (403, body) == (result.status, result.body)


# -- rate limits ----------------------------------------------------------------------------


async def test_retry_after_sets_retry_at_of_a_secondary_limit(
    make_client: Factory, script_class: Any, reply_fn: Reply, clock: Any
) -> None:
    script = script_class([reply_fn(429, {"message": "slow down"}, {"retry-after": "30"})])

    with pytest.raises(RateLimitedError) as caught:
        await make_client(script).graphql(QUERY)

    expected = (clock.now() + timedelta(seconds=30), True)
    assert expected == (caught.value.retry_at, caught.value.secondary)


async def test_client_never_sleeps_on_a_rate_limit(
    make_client: Factory, script_class: Any, reply_fn: Reply, clock: Any
) -> None:
    script = script_class([reply_fn(429, {}, {"retry-after": "3600"})])

    with pytest.raises(RateLimitedError):
        await make_client(script).graphql(QUERY)

    assert ([], 1) == (clock.sleeps, script.calls)


async def test_no_request_reaches_github_before_retry_at(
    make_client: Factory, script_class: Any, reply_fn: Reply, clock: Any
) -> None:
    script = script_class([reply_fn(403, {}, {"retry-after": "30"}), reply_fn(200, OK)])
    client = make_client(script)
    with pytest.raises(RateLimitedError):
        await client.graphql(QUERY)
    clock.advance(timedelta(seconds=29))

    with pytest.raises(RateLimitedError) as caught:
        await client.rest_get("/x")

    assert (1, clock.now() + timedelta(seconds=1)) == (script.calls, caught.value.retry_at)


async def test_requests_go_again_once_retry_at_has_passed(
    make_client: Factory, script_class: Any, reply_fn: Reply, clock: Any
) -> None:
    script = script_class([reply_fn(403, {}, {"retry-after": "30"}), reply_fn(200, OK)])
    client = make_client(script)
    with pytest.raises(RateLimitedError):
        await client.graphql(QUERY)
    clock.advance(timedelta(seconds=30))

    result = await client.graphql(QUERY)

    assert (OK["data"], 2) == (result.data, script.calls)


async def test_spent_primary_limit_waits_until_reset(
    make_client: Factory, script_class: Any, reply_fn: Reply, clock: Any
) -> None:
    reset = clock.now() + timedelta(minutes=40)
    headers = {"x-ratelimit-remaining": "0", "x-ratelimit-reset": str(int(reset.timestamp()))}
    script = script_class([reply_fn(403, {"message": "API rate limit exceeded"}, headers)])

    with pytest.raises(RateLimitedError) as caught:
        await make_client(script).rest_get("/x")

    assert (reset, False) == (caught.value.retry_at, caught.value.secondary)


async def test_spent_rest_limit_does_not_block_graphql(
    make_client: Factory, script_class: Any, reply_fn: Reply, clock: Any
) -> None:
    reset = clock.now() + timedelta(minutes=40)
    headers = {"x-ratelimit-remaining": "0", "x-ratelimit-reset": str(int(reset.timestamp()))}
    script = script_class([reply_fn(403, {"message": "API rate limit exceeded"}, headers)])
    client = make_client(script)
    with pytest.raises(RateLimitedError):
        await client.rest_get("/x")
    script.replies = [reply_fn(200, OK)]

    result = await client.graphql(QUERY)

    assert OK["data"] == result.data


async def test_secondary_limit_blocks_graphql_and_rest_alike(
    make_client: Factory, script_class: Any, reply_fn: Reply
) -> None:
    body = {"message": "You have exceeded a secondary rate limit."}
    script = script_class([reply_fn(403, body), reply_fn(200, {})])
    client = make_client(script)
    with pytest.raises(RateLimitedError):
        await client.graphql(QUERY)

    with pytest.raises(RateLimitedError):
        await client.rest_get("/x")

    assert 1 == script.calls


async def test_secondary_limit_without_a_time_waits_a_minute_then_longer(
    make_client: Factory, script_class: Any, reply_fn: Reply, clock: Any
) -> None:
    body = {"message": "You have exceeded a secondary rate limit."}
    script = script_class([reply_fn(403, body)])
    client = make_client(script)
    waits = []
    for _ in range(3):
        with pytest.raises(RateLimitedError) as caught:
            await client.graphql(QUERY)
        assert caught.value.retry_at is not None
        waits.append(caught.value.retry_at - clock.now())
        clock.current = caught.value.retry_at

    assert [timedelta(seconds=s) for s in (60, 120, 240)] == waits


async def test_a_success_resets_the_growing_wait(
    make_client: Factory, script_class: Any, reply_fn: Reply, clock: Any
) -> None:
    body = {"message": "You have exceeded a secondary rate limit."}
    script = script_class([reply_fn(403, body), reply_fn(200, OK), reply_fn(403, body)])
    client = make_client(script)
    with pytest.raises(RateLimitedError) as first:
        await client.graphql(QUERY)
    assert first.value.retry_at is not None
    clock.current = first.value.retry_at
    await client.graphql(QUERY)

    with pytest.raises(RateLimitedError) as again:
        await client.graphql(QUERY)

    assert again.value.retry_at == clock.now() + timedelta(seconds=60)


async def test_a_spent_budget_on_a_success_blocks_the_next_call(
    make_client: Factory, script_class: Any, reply_fn: Reply, clock: Any
) -> None:
    reset = clock.now() + timedelta(minutes=5)
    headers = {"x-ratelimit-remaining": "0", "x-ratelimit-reset": str(int(reset.timestamp()))}
    script = script_class([reply_fn(200, OK, headers), reply_fn(200, OK)])
    client = make_client(script)
    await client.graphql(QUERY)

    with pytest.raises(RateLimitedError) as caught:
        await client.graphql(QUERY)

    assert (1, reset) == (script.calls, caught.value.retry_at)
    assert reset == client.blocked_until("graphql")


async def test_rate_limit_is_not_retried_inside_the_client(
    make_client: Factory, script_class: Any, reply_fn: Reply
) -> None:
    script = script_class([reply_fn(429, {}, {"retry-after": "1"}), reply_fn(200, OK)])

    with pytest.raises(RateLimitedError):
        await make_client(script).graphql(QUERY)

    assert 1 == script.calls


async def test_a_304_also_resets_the_growing_wait(
    make_client: Factory, script_class: Any, reply_fn: Reply, clock: Any
) -> None:
    body = {"message": "You have exceeded a secondary rate limit."}
    script = script_class(
        [
            reply_fn(200, {}, {"etag": '"e"'}),
            reply_fn(403, body),
            reply_fn(304),
            reply_fn(403, body),
        ]
    )
    client = make_client(script)
    await client.rest_get("/x")
    with pytest.raises(RateLimitedError) as first:
        await client.rest_get("/x")
    assert first.value.retry_at is not None
    clock.current = first.value.retry_at
    await client.rest_get("/x")

    with pytest.raises(RateLimitedError) as again:
        await client.rest_get("/x")

    assert again.value.retry_at == clock.now() + timedelta(seconds=60)


async def test_graphql_mutation_is_not_repeated_after_it_may_have_reached_github(
    make_client: Factory, script_class: Any, reply_fn: Reply
) -> None:
    script = script_class([reply_fn(502), reply_fn(200, OK)])
    mutation = "# name: react\nmutation($id: ID!) { addReaction(input: {subjectId: $id}) { x } }"

    with pytest.raises(TransientError):
        await make_client(script).graphql(mutation, {"id": "X"})

    assert 1 == script.calls
