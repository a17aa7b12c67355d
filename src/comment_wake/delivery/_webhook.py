"""The ``webhook`` publisher: a signed POST of the notice."""

from __future__ import annotations

import math
from collections.abc import Mapping
from datetime import timedelta

import anyio
import httpx
import msgspec

from review_monitor import (
    Busy,
    Clock,
    Delivered,
    Gone,
    Notice,
    PublishOutcome,
    Refused,
    SystemClock,
)

from ._errors import WebhookError
from ._signature import sign
from ._text import SESSION_ID_PATTERN, printable_tail
from ._webhook_url import safe_url, webhook_url_problem

__all__ = ["BUSY_STATUSES", "GONE_STATUSES", "WebhookPublisher"]

BUSY_STATUSES = frozenset({409, 423, 429, 503})
"""HTTP statuses a webhook receiver answers with to say the worker is busy."""
GONE_STATUSES = frozenset({404, 410})
"""HTTP statuses a webhook receiver answers with to say the worker is gone."""
_USER_AGENT = "comment-wake/1"
_RESERVED = frozenset(
    {
        "content-type",
        "idempotency-key",
        "x-comment-wake-timestamp",
        "x-comment-wake-signature-256",
    }
)


class _Answer(msgspec.Struct):
    session_id: str | None = None


def _session_id(body: bytes) -> str | None:
    try:
        answer = msgspec.json.decode(body, type=_Answer)
    except msgspec.DecodeError:
        return None  # a 2xx with any other body is still delivered
    sid = answer.session_id
    return sid if sid is not None and SESSION_ID_PATTERN.fullmatch(sid) else None


def _retry_after(value: str | None) -> timedelta | None:
    """A ``Retry-After`` of whole seconds (an HTTP date is not honoured: clocks differ)."""
    if value and value.strip().isdigit():
        return timedelta(seconds=int(value.strip()))
    return None


class WebhookPublisher:
    """POSTs each notice as JSON to ``url``, signed with ``secret``.

    Headers: ``X-Comment-Wake-Timestamp`` (Unix seconds), ``X-Comment-Wake-Signature-256``
    (``sha256=`` HMAC-SHA256 of ``timestamp + "." + body``), ``Idempotency-Key`` (the
    notice's key).  Status: 2xx delivered (a JSON body ``{"session_id": ...}`` reports a
    new session id); 409, 423, 429, 503 busy; 404, 410 gone; any other 3xx or 4xx refused;
    5xx, timeouts and connection faults raise ``WebhookError``.  The secret never appears
    in a log, an error or the ``repr``.
    """

    def __init__(
        self,
        url: str,
        secret: str | bytes,
        *,
        timeout: float = 30.0,
        headers: Mapping[str, str] | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        clock: Clock | None = None,
    ) -> None:
        problem = webhook_url_problem(url)
        if problem is not None:
            raise ValueError(f"{problem}: {safe_url(url)!r}")
        if not secret:
            raise ValueError("webhook secret must not be empty")
        extra = dict(headers or {})
        clash = sorted(h for h in extra if h.lower() in _RESERVED)
        if clash:
            raise ValueError(f"webhook headers may not set {', '.join(clash)}")
        self._url = url
        self._secret = secret
        self._timeout = timeout
        self._headers = extra
        self._transport = transport
        self._clock: Clock = clock or SystemClock()
        self.safe_url = safe_url(url)

    def __repr__(self) -> str:
        return f"WebhookPublisher(url={self.safe_url!r}, secret=<hidden>)"

    def request_headers(self, notice: Notice, body: bytes) -> dict[str, str]:
        """The headers of the POST for ``notice`` (``body`` is its encoded JSON)."""
        timestamp = str(math.floor(self._clock.now().timestamp()))
        return {
            **self._headers,
            "Content-Type": "application/json",
            "User-Agent": _USER_AGENT,
            "Idempotency-Key": notice.key,
            "X-Comment-Wake-Timestamp": timestamp,
            "X-Comment-Wake-Signature-256": sign(self._secret, timestamp, body),
        }

    async def publish(self, notice: Notice) -> PublishOutcome:
        body = msgspec.json.encode(notice)
        request = httpx.Request(
            "POST",
            self._url,
            content=body,
            headers=self.request_headers(notice, body),
            extensions={"timeout": httpx.Timeout(self._timeout).as_dict()},
        )
        # The transport is called directly, not through a client: httpx's client logs every
        # request URL at INFO, and a receiver's URL may carry a token in its query.
        transport = self._transport or httpx.AsyncHTTPTransport()
        try:
            with anyio.fail_after(self._timeout):
                response = await transport.handle_async_request(request)
                try:
                    content = await response.aread()
                finally:
                    await response.aclose()
        except (TimeoutError, httpx.TimeoutException):
            raise WebhookError(f"POST {self.safe_url} timed out") from None
        except httpx.HTTPError as exc:
            raise WebhookError(f"POST {self.safe_url} failed: {type(exc).__name__}") from None
        finally:
            if self._transport is None:
                await transport.aclose()
        return self._outcome(response.status_code, response.headers, content)

    def _outcome(self, status: int, headers: httpx.Headers, content: bytes) -> PublishOutcome:
        said = printable_tail(content[:4096], limit=200)
        reason = f"HTTP {status}" + (f": {said}" if said else "")
        if 200 <= status < 300:
            return Delivered(session_id=_session_id(content))
        if status in BUSY_STATUSES:
            return Busy(reason, retry_after=_retry_after(headers.get("Retry-After")))
        if status in GONE_STATUSES:
            return Gone(reason)
        if status >= 500:
            raise WebhookError(f"POST {self.safe_url} answered {status}", status=status)
        return Refused(reason)
