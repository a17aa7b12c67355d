"""The pure rate-limit rules and the ETag cache, without HTTP."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from review_monitor._etag import CachedAnswer, EtagCache
from review_monitor._ratelimit import (
    RateLimit,
    RateLimitVerdict,
    classify_graphql_errors,
    classify_refusal,
    fallback_wait,
    parse_rate_limit,
    retry_after,
)

NOW = datetime(2030, 1, 2, 3, 0, 0, tzinfo=UTC)
RESET = NOW + timedelta(minutes=30)
SPENT = {"x-ratelimit-remaining": "0", "x-ratelimit-reset": str(int(RESET.timestamp()))}
SECONDARY = {"message": "You have exceeded a secondary rate limit. Please wait a few minutes."}


def test_parse_rate_limit_reads_every_header() -> None:
    headers = {
        "x-ratelimit-limit": "5000",
        "x-ratelimit-remaining": "12",
        "x-ratelimit-used": "4988",
        "x-ratelimit-reset": str(int(RESET.timestamp())),
        "x-ratelimit-resource": "graphql",
    }

    figures = parse_rate_limit(headers, default_resource="core", now=NOW)

    assert RateLimit("graphql", 5000, 12, 4988, RESET, NOW) == figures


def test_parse_rate_limit_without_headers_is_none() -> None:
    assert None is parse_rate_limit({}, default_resource="core", now=NOW)


def test_parse_rate_limit_ignores_garbage_values() -> None:
    headers = {"x-ratelimit-remaining": "lots", "x-ratelimit-limit": "5000"}

    figures = parse_rate_limit(headers, default_resource="core", now=NOW)

    assert RateLimit("core", 5000, None, None, None, NOW) == figures


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("42", NOW + timedelta(seconds=42)),
        ("Wed, 02 Jan 2030 03:05:00 GMT", NOW + timedelta(minutes=5)),
        ("Wed, 02 Jan 2030 02:00:00 GMT", NOW),
        ("soon", None),
    ],
    ids=["seconds", "http-date", "past-date", "garbage"],
)
def test_retry_after_reads_seconds_or_a_date(value: str, expected: datetime | None) -> None:
    assert expected == retry_after({"retry-after": value}, NOW)


def test_retry_after_wins_over_everything() -> None:
    headers = {**SPENT, "retry-after": "10"}

    verdict = classify_refusal(429, headers, SECONDARY, now=NOW, strikes=1)

    assert RateLimitVerdict(NOW + timedelta(seconds=10), True, "retry-after") == verdict


def test_spent_primary_waits_for_reset() -> None:
    verdict = classify_refusal(
        403, SPENT, {"message": "API rate limit exceeded"}, now=NOW, strikes=1
    )

    assert RateLimitVerdict(RESET, False, "x-ratelimit-reset") == verdict


def test_secondary_message_without_time_waits_at_least_a_minute() -> None:
    verdict = classify_refusal(403, {}, SECONDARY, now=NOW, strikes=1)

    assert RateLimitVerdict(NOW + timedelta(seconds=60), True, "no time given") == verdict


def test_bare_429_is_a_secondary_limit() -> None:
    verdict = classify_refusal(429, {}, None, now=NOW, strikes=1)

    assert verdict is not None
    assert verdict.secondary


@pytest.mark.parametrize("status", [200, 404, 500])
def test_other_statuses_are_not_rate_limits(status: int) -> None:
    assert None is classify_refusal(status, SPENT, SECONDARY, now=NOW, strikes=1)


def test_plain_403_is_not_a_rate_limit() -> None:
    body = {"message": "Must have push access to view collaborator permission."}

    assert None is classify_refusal(
        403, {"x-ratelimit-remaining": "4000"}, body, now=NOW, strikes=1
    )


def test_fallback_wait_doubles_and_is_capped() -> None:
    waits = [fallback_wait(k).total_seconds() for k in (1, 2, 3, 4, 5, 50)]

    assert [60, 120, 240, 480, 900, 900] == waits


def test_graphql_rate_limited_type_is_primary() -> None:
    errors = [{"type": "RATE_LIMITED", "message": "API rate limit exceeded for user"}]

    verdict = classify_graphql_errors(errors, SPENT, now=NOW, strikes=1)

    assert RateLimitVerdict(RESET, False, "x-ratelimit-reset") == verdict


def test_graphql_other_errors_are_not_rate_limits() -> None:
    errors = [{"type": "NOT_FOUND", "message": "Could not resolve to a PullRequest"}]

    assert None is classify_graphql_errors(errors, SPENT, now=NOW, strikes=1)


def test_etag_cache_drops_the_least_recently_used() -> None:
    cache = EtagCache(max_entries=2)
    for url in ("/a", "/b"):
        cache.put("github.com", url, CachedAnswer('"e"', 200, url))
    cache.get("github.com", "/a")

    cache.put("github.com", "/c", CachedAnswer('"e"', 200, "/c"))

    assert [True, False, True] == [
        cache.get("github.com", u) is not None for u in ("/a", "/b", "/c")
    ]


def test_etag_cache_key_includes_host() -> None:
    cache = EtagCache()
    cache.put("github.com", "/a", CachedAnswer('"e"', 200, 1))

    assert None is cache.get("ghe.example.com", "/a")


def test_spent_primary_with_a_past_reset_still_waits_a_minute() -> None:
    past = {"x-ratelimit-remaining": "0", "x-ratelimit-reset": str(int(NOW.timestamp()) - 5)}

    verdict = classify_refusal(
        403, past, {"message": "API rate limit exceeded"}, now=NOW, strikes=1
    )

    assert RateLimitVerdict(NOW + timedelta(seconds=60), False, "no time given") == verdict
