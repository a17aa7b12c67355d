"""The GitHub client: GraphQL and REST over httpx, with GitHub's error and rate-limit rules.

This is the only module of the project that imports httpx.

Rate limits: the client never sleeps on one.  It raises ``RateLimitedError`` carrying
``retry_at`` (GitHub's ``retry-after``, else ``x-ratelimit-reset`` when the limit is spent,
else at least a minute, doubling for each refusal in a row), and until then it refuses
every request of that scope without calling GitHub: a secondary limit blocks everything,
a spent primary limit blocks its own resource (``graphql`` or ``core``).  The poller and the
permission schedule own their timing, so a refused poll simply waits for its next turn and
nothing hangs.  5xx answers, timeouts and connection faults are retried here, with bounded
exponential backoff and jitter slept on the injected ``Clock``, then ``TransientError``; a
REST POST or a GraphQL mutation is retried only when the connection never opened, since a
repeat could post twice (``TransientError.maybe_sent`` says whether the failed request may
have reached GitHub); a PATCH is idempotent and retried.  ``rest_get(retry=False)`` is
exactly one attempt.

At debug level every HTTP request is one line on ``review_monitor.github``: the method,
the route template (``/repos/{owner}/{repo}/collaborators/{login}/permission``), the
status, the points it cost and how long it took, as the message and as the record's
fields ``method``, ``route``, ``status``, ``points``, ``duration_ms``.  Never a login, a
query string or a header: a URL can name a comment's author.
"""

from __future__ import annotations

import logging
import random
import re
import time
from collections.abc import Callable, Mapping
from datetime import datetime, timedelta
from typing import Any

import httpx
import msgspec

from ._api import GraphQLResult, RestResult
from ._clock import Clock, SystemClock
from ._config import GitHubConfig
from ._errors import AuthError, GraphQLError, RateLimitedError, TransientError
from ._etag import CachedAnswer, EtagCache
from ._ratelimit import (
    RateLimit,
    RateLimitVerdict,
    classify_graphql_errors,
    classify_refusal,
    parse_rate_limit,
)

__all__ = ["GitHubClient", "RetryPolicy", "backoff_delay", "endpoints", "route_template"]

_log = logging.getLogger("review_monitor.github")

TokenSource = str | Callable[[], str]

_HOST = re.compile(r"^[a-z0-9]([a-z0-9.-]*[a-z0-9])?(:[0-9]{1,5})?$")
# What an HTTP header value can carry; anything else must never reach httpx, whose
# error for an illegal header value would quote the value, i.e. the token.
_TOKEN = re.compile(r"^[\x21-\x7e]+$")
_MUTATION = re.compile(r"^(?:\s|,|#[^\n]*\n)*mutation\b")
_ALL = "*"  # the gate key of a secondary limit: it covers REST and GraphQL alike
_NOT_SENT = (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout)


class RetryPolicy(msgspec.Struct, frozen=True):
    """Bounded exponential backoff for 5xx, timeouts and connection faults."""

    attempts: int = 4  # HTTP attempts in all, the first included
    base: timedelta = timedelta(seconds=1)
    cap: timedelta = timedelta(seconds=30)


def backoff_delay(retry: int, policy: RetryPolicy, rng: random.Random) -> timedelta:
    """The wait before retry number ``retry`` (1-based): base * 2**(retry-1), capped, then
    scaled by a random factor in [0.5, 1) so many clients do not retry in step."""
    ceiling = min(policy.base * (1 << min(max(retry - 1, 0), 30)), policy.cap)
    return ceiling * (0.5 + rng.random() / 2)


def endpoints(config: GitHubConfig) -> tuple[str, str]:
    """The REST base URL and the GraphQL URL for a configuration.

    github.com: ``https://api.github.com``; GHE.com (data residency): ``https://api.HOST``;
    GitHub Enterprise Server: ``https://HOST/api/v3`` and ``https://HOST/api/graphql``;
    an explicit ``api_url`` serves both, GraphQL at ``{api_url}/graphql``.
    """
    if config.api_url:
        base = config.api_url.rstrip("/")
        if not base.startswith(("https://", "http://")):
            raise ValueError(f"api_url must start with https:// or http://, not {base!r}")
        return base, f"{base}/graphql"
    host = config.host.strip().lower()
    if not _HOST.match(host):
        raise ValueError(
            f"not a host name: {config.host!r}; write it as github.com or ghe.example.com"
        )
    if host in ("github.com", "api.github.com"):
        return "https://api.github.com", "https://api.github.com/graphql"
    if host.endswith(".ghe.com"):
        return f"https://api.{host}", f"https://api.{host}/graphql"
    return f"https://{host}/api/v3", f"https://{host}/api/graphql"


def _decode(content: bytes) -> Any:
    if not content:
        return None
    try:
        return msgspec.json.decode(content)
    except msgspec.DecodeError:
        return None


def _parse_time(value: Any) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        return None
    return parsed if parsed.tzinfo is not None else None


def _usable(data: Any) -> bool:
    """Partial data is usable when at least one top-level field came back."""
    return isinstance(data, dict) and any(v is not None for v in data.values())


_ERROR_TYPE = re.compile(r"^[A-Z][A-Z_]{0,39}$")
# A path segment that names a person (a comment's author, in a permission lookup).  Log
# lines and error messages name the route, never the person: the rules forbid a
# warning that carries a comment's author.
_PERSON_SEGMENT = re.compile(r"(?<=/collaborators/)[^/?#]+|(?<=/users/)[^/?#]+")


def loggable_path(path: str) -> str:
    """``path`` with any login in it replaced by ``{login}``, and no query string."""
    return _PERSON_SEGMENT.sub("{login}", path.split("?", 1)[0])


# The words of GitHub's REST routes that name no one; every other segment of a path is
# replaced by a placeholder named after the segment before it.
_ROUTE_WORDS = frozenset(
    [
        "api",
        "v3",
        "graphql",
        "user",
        "users",
        "repos",
        "orgs",
        "collaborators",
        "permission",
        "issues",
        "pulls",
        "comments",
        "reactions",
        "reviews",
        "replies",
        "commits",
        "check-runs",
        "check-suites",
        "status",
        "statuses",
        "rate_limit",
        "events",
        "timeline",
        "labels",
        "requested_reviewers",
        "files",
        "installation",
        "app",
        "meta",
        "branches",
    ]
)
_PLACEHOLDERS = {
    "users": "{login}",
    "collaborators": "{login}",
    "orgs": "{org}",
    "issues": "{issue_number}",
    "pulls": "{pull_number}",
    "comments": "{comment_id}",
    "reviews": "{review_id}",
    "commits": "{ref}",
    "check-runs": "{check_run_id}",
    "check-suites": "{check_suite_id}",
    "statuses": "{ref}",
}


_NAMES_SOMEONE = frozenset({"users", "collaborators", "orgs"})  # a login follows, always


def route_template(path: str) -> str:
    """The route of ``path`` with everything that names someone or something replaced:
    ``/repos/o/r/collaborators/alice/permission?x=1`` becomes
    ``/repos/{owner}/{repo}/collaborators/{login}/permission``.  Only GitHub's own route
    words survive; no query string, no fragment."""
    bare = re.split(r"[?#]", path, maxsplit=1)[0]
    parts = [p for p in bare.split("/") if p]
    out: list[str] = []
    for i, part in enumerate(parts):
        before = parts[i - 1] if i else ""
        if i >= 1 and parts[0] == "repos" and i <= 2:
            out.append("{owner}" if i == 1 else "{repo}")
        elif part in _ROUTE_WORDS and not (before in _NAMES_SOMEONE and out[-1] == before):
            out.append(part)
        else:
            out.append(_PLACEHOLDERS.get(before, "{id}"))
    return "/" + "/".join(out)


def _graphql_cost(content: bytes) -> int | None:
    """``data.rateLimit.cost`` of a GraphQL answer, when the query asked for it."""
    body = _decode(content)
    data = body.get("data") if isinstance(body, dict) else None
    field = data.get("rateLimit") if isinstance(data, dict) else None
    cost = field.get("cost") if isinstance(field, dict) else None
    return cost if isinstance(cost, int) and not isinstance(cost, bool) else None


def _error_types(errors: list[dict[str, Any]]) -> str:
    """The errors' types for a log line: GitHub's enum names only, never free text."""
    kinds = set()
    for error in errors:
        kind = error.get("type")
        kinds.add(kind if isinstance(kind, str) and _ERROR_TYPE.match(kind) else "OTHER")
    return ", ".join(sorted(kinds))


class GitHubClient:
    """``GitHubApi`` over HTTP.  Use as ``async with GitHubClient(...) as gh:`` or ``aclose()``.

    ``token`` is the token itself or a callable that returns it (read before every request,
    so a rotated token is picked up).  ``transport`` is the httpx seam: tests pass
    ``httpx.MockTransport``.  ``clock`` serves every wait and every timestamp; ``rng`` the
    retry jitter.
    """

    def __init__(
        self,
        token: TokenSource,
        config: GitHubConfig | None = None,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        clock: Clock | None = None,
        rng: random.Random | None = None,
        retry: RetryPolicy | None = None,
        etag_entries: int = 2048,
        user_agent: str = "pr-review-monitor",
    ) -> None:
        self._config = config or GitHubConfig()
        self._rest_base, self._graphql_url = endpoints(self._config)
        self._host = self._config.host.strip().lower()
        self._token = token
        self._clock: Clock = clock or SystemClock()
        self._rng = rng or random.Random()
        self._retry = retry or RetryPolicy()
        if self._retry.attempts < 1:
            raise ValueError("RetryPolicy.attempts must be at least 1")
        self._etags = EtagCache(etag_entries)
        self._user_agent = user_agent
        self._http = httpx.AsyncClient(
            transport=transport,
            timeout=httpx.Timeout(self._config.timeout.total_seconds()),
            follow_redirects=False,
        )
        self._rate_limits: dict[str, RateLimit] = {}
        self._gates: dict[str, RateLimitVerdict] = {}
        self._strikes = 0  # rate-limit refusals in a row that named no time

    # -- the GitHubApi protocol -------------------------------------------------------------

    @property
    def host(self) -> str:
        return self._host

    async def graphql(
        self, query: str, variables: Mapping[str, Any] | None = None
    ) -> GraphQLResult:
        payload: dict[str, Any] = {"query": query}
        if variables:
            payload["variables"] = dict(variables)
        # A query may be repeated after a fault; a mutation that may have reached GitHub may not.
        is_query = _MUTATION.match(query) is None
        response = await self._send(
            "POST", self._graphql_url, "graphql", json=payload, retry=True, idempotent=is_query
        )
        status = response.status_code
        body = _decode(response.content)
        self._refuse_auth("POST", "/graphql", status)
        self._raise_rate_limit("POST", "/graphql", "graphql", response, body)
        if status != 200 or not isinstance(body, dict):
            _log.warning("GitHub POST /graphql answered HTTP %d without a GraphQL body", status)
            raise GraphQLError(
                f"GitHub GraphQL answered HTTP {status} without a GraphQL body",
                errors=[],
                data=None,
            )
        raw_errors = body.get("errors") or []
        errors = (
            [e for e in raw_errors if isinstance(e, dict)] if isinstance(raw_errors, list) else []
        )
        data = body.get("data")
        if errors:
            verdict = classify_graphql_errors(
                errors, response.headers, now=self._clock.now(), strikes=self._strikes + 1
            )
            if verdict is not None:
                self._block("POST", "/graphql", "graphql", verdict)
        figures = self._read_rate_limit_field(data)
        self._strikes = 0
        if errors and not _usable(data):
            _log.warning(
                "GitHub GraphQL answered %d error(s) and no data (types: %s)",
                len(errors),
                _error_types(errors),
            )
            raise GraphQLError(
                f"GitHub GraphQL answered {len(errors)} error(s) and no data "
                f"(types: {_error_types(errors)})",
                errors=errors,
                data=data,
            )
        if errors:
            _log.warning(
                "GitHub GraphQL answered %d error(s) beside partial data (types: %s)",
                len(errors),
                _error_types(errors),
            )
        latest = self._rate_limits.get("graphql")
        return GraphQLResult(
            data=data,
            errors=tuple(errors),
            cost=figures.get("cost"),
            remaining=figures.get("remaining", latest.remaining if latest else None),
            limit=figures.get("limit", latest.limit if latest else None),
            reset_at=figures.get("reset_at", latest.reset_at if latest else None),
        )

    async def rest_get(self, path: str, *, retry: bool = True) -> RestResult:
        url = self._rest_url(path)
        cached = self._etags.get(self._host, url)
        extra = {"If-None-Match": cached.etag} if cached is not None else {}
        response = await self._send("GET", url, "core", headers=extra, retry=retry, idempotent=True)
        status = response.status_code
        headers = dict(response.headers)
        if status == 304 and cached is not None:
            self._strikes = 0
            if cached.link is not None and "link" not in response.headers:
                headers["link"] = cached.link
            return RestResult(cached.status, cached.body, headers, from_cache=True)
        body = _decode(response.content)
        self._refuse_auth("GET", path, status)
        self._raise_rate_limit("GET", path, "core", response, body)
        self._strikes = 0
        etag = response.headers.get("etag")
        if status == 200 and etag:
            link = response.headers.get("link")
            self._etags.put(
                self._host, url, CachedAnswer(etag=etag, status=status, body=body, link=link)
            )
        elif status != 200:
            self._etags.drop(self._host, url)
        return RestResult(status, body, headers)

    async def rest_post(self, path: str, body: Any) -> RestResult:
        url = self._rest_url(path)
        # A POST that may have reached GitHub is never repeated: it could post twice.
        response = await self._send("POST", url, "core", json=body, retry=True, idempotent=False)
        status = response.status_code
        answer = _decode(response.content)
        self._refuse_auth("POST", path, status)
        self._raise_rate_limit("POST", path, "core", response, answer)
        self._strikes = 0
        return RestResult(status, answer, dict(response.headers))

    async def rest_patch(self, path: str, body: Any) -> RestResult:
        """PATCH ``body`` to ``path``.  A PATCH that sets a field is idempotent (the same
        request twice leaves the same state), so faults are retried as a GET's are."""
        url = self._rest_url(path)
        response = await self._send("PATCH", url, "core", json=body, retry=True, idempotent=True)
        status = response.status_code
        answer = _decode(response.content)
        self._refuse_auth("PATCH", path, status)
        self._raise_rate_limit("PATCH", path, "core", response, answer)
        self._strikes = 0
        return RestResult(status, answer, dict(response.headers))

    # -- rate-limit figures -----------------------------------------------------------------

    @property
    def rate_limit(self) -> RateLimit | None:
        """The GraphQL primary limit as last reported (the budget the badge poll spends)."""
        return self._rate_limits.get("graphql")

    @property
    def rate_limits(self) -> Mapping[str, RateLimit]:
        """Every resource's primary limit as last reported, keyed ``graphql``, ``core``, ..."""
        return dict(self._rate_limits)

    def blocked_until(self, resource: str = "graphql") -> datetime | None:
        """When requests of ``resource`` may go to GitHub again; None when they may now."""
        now = self._clock.now()
        times = [
            gate.retry_at
            for key, gate in self._gates.items()
            if key in (resource, _ALL) and gate.retry_at > now
        ]
        return max(times) if times else None

    # -- lifecycle --------------------------------------------------------------------------

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> GitHubClient:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    def __repr__(self) -> str:
        return f"GitHubClient(host={self._host!r}, api={self._rest_base!r})"

    # -- internals --------------------------------------------------------------------------

    def _bearer(self) -> str:
        token = self._token() if callable(self._token) else self._token
        token = token.strip()
        if not _TOKEN.match(token):
            raise AuthError(
                "the GitHub token is empty or holds characters an HTTP header cannot carry; "
                "check GH_TOKEN, GITHUB_TOKEN or `gh auth token`"
            )
        return f"Bearer {token}"

    def _rest_url(self, path: str) -> str:
        if path.startswith(("https://", "http://")):
            # Pagination links are absolute; the token goes to GitHub's own API only.
            if not path.startswith(self._rest_base + "/"):
                raise ValueError(f"refusing to send the token to a URL outside {self._rest_base}")
            return path
        if not path.startswith("/"):
            path = "/" + path
        return self._rest_base + path

    def _check_gate(self, method: str, where: str, resource: str) -> None:
        now = self._clock.now()
        for key in (_ALL, resource):
            gate = self._gates.get(key)
            if gate is None:
                continue
            if gate.retry_at <= now:
                del self._gates[key]
                continue
            raise RateLimitedError(
                f"GitHub rate limit: {method} {where} not sent before {gate.retry_at.isoformat()}",
                retry_at=gate.retry_at,
                secondary=gate.secondary,
            )

    def _block(self, method: str, where: str, resource: str, verdict: RateLimitVerdict) -> None:
        self._strikes += 1
        key = _ALL if verdict.secondary else resource
        current = self._gates.get(key)
        if current is None or current.retry_at < verdict.retry_at:
            self._gates[key] = verdict
        kind = "secondary" if verdict.secondary else "primary"
        _log.warning(
            "GitHub %s rate limit on %s %s; next call at %s (%s)",
            kind,
            method,
            where,
            verdict.retry_at.isoformat(),
            verdict.reason,
        )
        raise RateLimitedError(
            f"GitHub {kind} rate limit on {method} {where}; "
            f"retry at {verdict.retry_at.isoformat()}",
            retry_at=verdict.retry_at,
            secondary=verdict.secondary,
        )

    def _raise_rate_limit(
        self, method: str, where: str, resource: str, response: httpx.Response, body: Any
    ) -> None:
        verdict = classify_refusal(
            response.status_code,
            response.headers,
            body,
            now=self._clock.now(),
            strikes=self._strikes + 1,
        )
        if verdict is not None:
            self._block(method, where, resource, verdict)

    def _refuse_auth(self, method: str, where: str, status: int) -> None:
        if status == 401:
            _log.warning("GitHub refused the token (401) on %s %s", method, where)
            raise AuthError(
                "GitHub refused the token (401 Bad credentials); check GH_TOKEN, GITHUB_TOKEN "
                "or `gh auth token`"
            )

    def _observe(self, response: httpx.Response, resource: str) -> None:
        now = self._clock.now()
        figures = parse_rate_limit(response.headers, default_resource=resource, now=now)
        if figures is None:
            return
        self._rate_limits[figures.resource] = figures
        if figures.remaining == 0 and figures.reset_at is not None and figures.reset_at > now:
            # Spent: the next call would be refused, so none goes before the reset.
            gate = self._gates.get(resource)
            if gate is None or gate.retry_at < figures.reset_at:
                self._gates[resource] = RateLimitVerdict(
                    figures.reset_at, secondary=False, reason="x-ratelimit-remaining is 0"
                )

    def _log_request(
        self,
        method: str,
        url: str,
        resource: str,
        status: int | None,
        response: httpx.Response | None,
        started: float,
        fault: str = "",
    ) -> None:
        """The debug line of one HTTP request: the route template, never the URL."""
        if not _log.isEnabledFor(logging.DEBUG):
            return
        ms = round((time.perf_counter() - started) * 1000)
        route = (
            "/graphql"
            if url == self._graphql_url
            else route_template(url.removeprefix(self._rest_base))
        )
        points: int | None
        if response is None or status is None:
            points = None
        elif resource == "graphql":
            points = _graphql_cost(response.content)
        else:
            points = 0 if status == 304 else 1  # GitHub does not charge a 304
        spent = "points unknown" if points is None else f"{points} point(s)"
        answer = f"HTTP {status}" if status is not None else f"no answer ({fault})"
        _log.debug(
            "GitHub %s %s: %s, %s, %d ms",
            method,
            route,
            answer,
            spent,
            ms,
            extra={
                "method": method,
                "route": route,
                "status": status,
                "points": points,
                "duration_ms": ms,
            },
        )

    def _read_rate_limit_field(self, data: Any) -> dict[str, Any]:
        """``rateLimit { cost remaining resetAt limit }`` when the query asked for it."""
        field = data.get("rateLimit") if isinstance(data, dict) else None
        if not isinstance(field, dict):
            return {}
        figures: dict[str, Any] = {}
        for name, key in (("cost", "cost"), ("remaining", "remaining"), ("limit", "limit")):
            value = field.get(key)
            if isinstance(value, int) and not isinstance(value, bool):
                figures[name] = value
        reset_at = _parse_time(field.get("resetAt"))
        if reset_at is not None:
            figures["reset_at"] = reset_at
        if "remaining" in figures:
            previous = self._rate_limits.get("graphql")
            self._rate_limits["graphql"] = RateLimit(
                resource="graphql",
                limit=figures.get("limit", previous.limit if previous else None),
                remaining=figures["remaining"],
                used=previous.used if previous else None,
                reset_at=figures.get("reset_at", previous.reset_at if previous else None),
                observed_at=self._clock.now(),
            )
        return figures

    async def _send(
        self,
        method: str,
        url: str,
        resource: str,
        *,
        headers: Mapping[str, str] | None = None,
        json: Any = None,
        retry: bool,
        idempotent: bool,
    ) -> httpx.Response:
        where = loggable_path(url.removeprefix(self._rest_base) or "/")
        attempts = self._retry.attempts if retry else 1
        attempt = 0
        reached = False  # whether some attempt may have reached GitHub
        while True:
            attempt += 1
            self._check_gate(method, where, resource)
            request_headers = {
                "Authorization": self._bearer(),
                "Accept": "application/vnd.github+json",
                "X-GitHub-Api-Version": "2022-11-28",
                "User-Agent": self._user_agent,
                **(headers or {}),
            }
            status: int | None = None
            # A duration of real I/O, not a wait: measured on the process's own clock.
            started = time.perf_counter()
            try:
                response = await self._http.request(method, url, headers=request_headers, json=json)
            except httpx.TransportError as exc:
                fault = (
                    "a timeout" if isinstance(exc, httpx.TimeoutException) else type(exc).__name__
                )
                self._log_request(method, url, resource, None, None, started, fault)
                unsent = isinstance(exc, _NOT_SENT)
                reached = reached or not unsent
                may_retry = idempotent or unsent
            else:
                self._log_request(method, url, resource, response.status_code, response, started)
                self._observe(response, resource)
                if response.status_code < 500:
                    return response
                status = response.status_code
                fault = f"HTTP {status}"
                reached = True
                may_retry = idempotent
            if not may_retry or attempt >= attempts:
                _log.warning(
                    "GitHub %s %s failed with %s after %d attempt(s)", method, where, fault, attempt
                )
                raise TransientError(
                    f"GitHub {method} {where} failed with {fault} after {attempt} attempt(s)",
                    status=status,
                    maybe_sent=reached,
                )
            delay = backoff_delay(attempt, self._retry, self._rng)
            _log.warning(
                "GitHub %s %s failed with %s; retry %d of %d in %.1fs",
                method,
                where,
                fault,
                attempt,
                attempts - 1,
                delay.total_seconds(),
            )
            await self._clock.sleep_until(self._clock.now() + delay)
