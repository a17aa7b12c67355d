"""Fixtures for the GitHub client tests: a virtual clock and a scripted HTTP transport."""

from __future__ import annotations

import json
import random
from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

import anyio
import httpx
import pytest

from review_monitor import GitHubConfig
from review_monitor.github import GitHubClient, GraphQLResult, RestResult, RetryPolicy

# A recognisable token: no test may ever find it in a message, a repr or a log line.
TOKEN = "ghp_SENTINELtoken0123456789abcdefghijklmnop"
START = datetime(2030, 1, 2, 3, 4, 5, tzinfo=UTC)
API = "http://127.0.0.1:8765"


class FakeClock:
    """Virtual time: ``sleep_until`` jumps ``now`` forward and records the wait."""

    def __init__(self, start: datetime = START) -> None:
        self.current = start
        self.sleeps: list[timedelta] = []

    def now(self) -> datetime:
        return self.current

    async def sleep_until(self, t: datetime) -> None:
        if t > self.current:
            self.sleeps.append(t - self.current)
            self.current = t
        await anyio.lowlevel.checkpoint()

    def advance(self, delta: timedelta) -> None:
        self.current += delta


Reply = httpx.Response | Exception | Callable[[httpx.Request], httpx.Response]


def reply(
    status: int = 200, body: Any = None, headers: dict[str, str] | None = None
) -> httpx.Response:
    content = b"" if body is None else json.dumps(body).encode()
    return httpx.Response(status, content=content, headers=headers or {})


class Script:
    """A transport handler answering from a list, in order, and recording every request.

    When the list runs out it keeps giving the last reply.
    """

    def __init__(self, replies: Iterable[Reply] = ()) -> None:
        self.replies = list(replies)
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        if not self.replies:
            raise AssertionError(f"unexpected request {request.method} {request.url}")
        item = self.replies.pop(0) if len(self.replies) > 1 else self.replies[0]
        if isinstance(item, Exception):
            raise item
        if isinstance(item, httpx.Response):
            return item
        return item(request)

    @property
    def calls(self) -> int:
        return len(self.requests)

    def body(self, index: int) -> Any:
        return json.loads(self.requests[index].content)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


ClientFactory = Callable[..., GitHubClient]


@pytest.fixture
async def make_client(clock: FakeClock) -> AsyncIterator[ClientFactory]:
    """Build clients on a ``Script`` (closed after the test); keyword overrides pass through."""
    made: list[GitHubClient] = []

    def build(script: Script, **overrides: Any) -> GitHubClient:
        options: dict[str, Any] = {
            "config": GitHubConfig(api_url=API),
            "transport": httpx.MockTransport(script),
            "clock": clock,
            "rng": random.Random(7),
            "retry": RetryPolicy(attempts=4),
        }
        options.update(overrides)
        token = options.pop("token", TOKEN)
        client = GitHubClient(token, **options)
        made.append(client)
        return client

    yield build
    for client in made:
        await client.aclose()


@pytest.fixture
def token() -> str:
    return TOKEN


@pytest.fixture
def script_class() -> type[Script]:
    return Script


@pytest.fixture
def reply_fn() -> Callable[..., httpx.Response]:
    return reply


class FakeApi:
    """A ``GitHubApi`` whose ``rest_get`` answers from a script and records its calls."""

    def __init__(self, replies: Iterable[RestResult | Exception] = (), host: str = "github.com"):
        self.replies = list(replies)
        self.calls: list[tuple[str, bool]] = []
        self._host = host

    @property
    def host(self) -> str:
        return self._host

    async def graphql(
        self, query: str, variables: Mapping[str, Any] | None = None
    ) -> GraphQLResult:
        raise AssertionError("the permissions component never sends GraphQL")

    async def rest_get(self, path: str, *, retry: bool = True) -> RestResult:
        self.calls.append((path, retry))
        item = self.replies.pop(0) if len(self.replies) > 1 else self.replies[0]
        if isinstance(item, Exception):
            raise item
        return item

    async def rest_post(self, path: str, body: Any) -> RestResult:
        raise AssertionError("the permissions component never posts")


@pytest.fixture
def fake_api_class() -> type[FakeApi]:
    return FakeApi
