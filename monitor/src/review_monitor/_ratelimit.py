"""GitHub's rate limits as pure decisions: read the headers, classify a refusal, pick a wait.

Nothing here does I/O or reads a clock: ``now`` is always an argument.
"""

from __future__ import annotations

import email.utils
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

import msgspec

__all__ = [
    "RateLimit",
    "RateLimitVerdict",
    "classify_graphql_errors",
    "classify_refusal",
    "fallback_wait",
    "parse_rate_limit",
    "retry_after",
]

# The documented secondary-limit message, and the older wording GitHub Enterprise still sends.
_SECONDARY_PHRASES = ("secondary rate limit", "abuse detection")
_PRIMARY_PHRASES = ("api rate limit exceeded",)

MIN_SECONDARY_WAIT = timedelta(seconds=60)
MAX_SECONDARY_WAIT = timedelta(minutes=15)


class RateLimit(msgspec.Struct, frozen=True):
    """The primary limit of one resource (``graphql``, ``core``) as GitHub last reported it."""

    resource: str
    limit: int | None
    remaining: int | None
    used: int | None
    reset_at: datetime | None
    observed_at: datetime


class RateLimitVerdict(msgspec.Struct, frozen=True):
    """A refusal read as a rate limit: when the next call may go, and which limit it was."""

    retry_at: datetime
    secondary: bool
    reason: str


def _int(value: str | None) -> int | None:
    if value is None:
        return None
    try:
        return int(value.strip())
    except ValueError:
        return None


def _epoch(value: str | None) -> datetime | None:
    seconds = _int(value)
    if seconds is None or seconds < 0:
        return None
    try:
        return datetime.fromtimestamp(seconds, UTC)
    except (OverflowError, OSError, ValueError):
        return None


def parse_rate_limit(
    headers: Mapping[str, str], *, default_resource: str, now: datetime
) -> RateLimit | None:
    """Read ``x-ratelimit-*``; None when the answer carries none of them."""
    limit = _int(headers.get("x-ratelimit-limit"))
    remaining = _int(headers.get("x-ratelimit-remaining"))
    reset_at = _epoch(headers.get("x-ratelimit-reset"))
    if limit is None and remaining is None and reset_at is None:
        return None
    return RateLimit(
        resource=headers.get("x-ratelimit-resource", default_resource) or default_resource,
        limit=limit,
        remaining=remaining,
        used=_int(headers.get("x-ratelimit-used")),
        reset_at=reset_at,
        observed_at=now,
    )


def retry_after(headers: Mapping[str, str], now: datetime) -> datetime | None:
    """``retry-after`` as a time: delta-seconds or an HTTP date (RFC 9110)."""
    raw = headers.get("retry-after")
    if raw is None:
        return None
    seconds = _int(raw)
    if seconds is not None:
        return now + timedelta(seconds=max(seconds, 0))
    try:
        when = email.utils.parsedate_to_datetime(raw)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(when, now)


def _message(body: Any) -> str:
    if isinstance(body, dict):
        message = body.get("message")
        if isinstance(message, str):
            return message.casefold()
    return ""


def fallback_wait(strikes: int) -> timedelta:
    """At least a minute, doubling with each refusal in a row that named no time, capped."""
    return min(MIN_SECONDARY_WAIT * (1 << min(max(strikes - 1, 0), 16)), MAX_SECONDARY_WAIT)


def classify_refusal(
    status: int, headers: Mapping[str, str], body: Any, *, now: datetime, strikes: int
) -> RateLimitVerdict | None:
    """Decide whether a 403 or 429 is a rate limit and when to try again; None if it is not.

    GitHub's order: a ``retry-after`` is obeyed as given; with ``x-ratelimit-remaining: 0``
    the primary limit is spent until ``x-ratelimit-reset``; otherwise wait at least a
    minute, longer for each refusal in a row (``strikes`` counts this one).
    """
    if status not in (403, 429):
        return None
    message = _message(body)
    secondary_text = any(p in message for p in _SECONDARY_PHRASES)
    primary_text = any(p in message for p in _PRIMARY_PHRASES)
    spent = _int(headers.get("x-ratelimit-remaining")) == 0
    after = retry_after(headers, now)
    if status == 403 and after is None and not (spent or secondary_text or primary_text):
        return None  # an ordinary 403: no access, SSO, "Must have push access"
    return _verdict(headers, now, strikes, secondary=secondary_text or not (spent or primary_text))


def classify_graphql_errors(
    errors: list[dict[str, Any]], headers: Mapping[str, str], *, now: datetime, strikes: int
) -> RateLimitVerdict | None:
    """GraphQL reports both limits with HTTP 200: ``type: RATE_LIMITED`` or the message."""
    for error in errors:
        kind = error.get("type")
        message = _message(error)
        if any(p in message for p in _SECONDARY_PHRASES):
            return _verdict(headers, now, strikes, secondary=True)
        if kind == "RATE_LIMITED" or any(p in message for p in _PRIMARY_PHRASES):
            return _verdict(headers, now, strikes, secondary=False)
    return None


def _verdict(
    headers: Mapping[str, str], now: datetime, strikes: int, *, secondary: bool
) -> RateLimitVerdict:
    after = retry_after(headers, now)
    if after is not None:
        return RateLimitVerdict(after, secondary=secondary, reason="retry-after")
    reset = _epoch(headers.get("x-ratelimit-reset"))
    # A reset already past (our clock ahead of GitHub's) would mean retrying at once.
    if _int(headers.get("x-ratelimit-remaining")) == 0 and reset is not None and reset > now:
        return RateLimitVerdict(reset, secondary=secondary, reason="x-ratelimit-reset")
    return RateLimitVerdict(
        now + fallback_wait(strikes), secondary=secondary, reason="no time given"
    )
