"""Fixtures for FakeGitHub's own tests."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest

from review_monitor.testing import FakeGitHub, FixedClock

START = datetime(2030, 1, 2, 3, 4, 5, tzinfo=UTC)


class Gql:
    """Post GraphQL to a FakeGitHub and return the decoded answer."""

    def __init__(self, client: httpx.Client) -> None:
        self.client = client

    def __call__(self, query: str, variables: dict[str, Any] | None = None) -> Any:
        answer = self.client.post("/graphql", json={"query": query, "variables": variables or {}})
        return answer.json()


@pytest.fixture
def clock() -> FixedClock:
    return FixedClock(START)


@pytest.fixture
def fake(clock: FixedClock) -> FakeGitHub:
    return FakeGitHub(clock=clock, viewer="octo-worker")


@pytest.fixture
def client(fake: FakeGitHub) -> Iterator[httpx.Client]:
    with httpx.Client(transport=fake.transport(), base_url="https://api.github.com") as c:
        yield c


@pytest.fixture
def gql(client: httpx.Client) -> Gql:
    return Gql(client)
