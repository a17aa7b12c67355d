"""Fixtures for the query and reader tests: a FakeGitHub and a minimal ``GitHubApi`` on it."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
from graphql import GraphQLSchema, build_schema

from review_monitor import GraphQLError, TransientError
from review_monitor.github import GraphQLResult, RestResult
from review_monitor.testing import FakeGitHub, FixedClock

START = datetime(2030, 1, 2, 3, 4, 5, tzinfo=UTC)


class FakeApi:
    """Just enough of ``GitHubApi`` over an httpx client, following the protocol's rules:
    errors beside usable data are returned, errors with no usable data raise."""

    def __init__(self, client: httpx.AsyncClient, host: str = "github.com") -> None:
        self._client = client
        self._host = host

    @property
    def host(self) -> str:
        return self._host

    async def graphql(
        self, query: str, variables: Mapping[str, Any] | None = None
    ) -> GraphQLResult:
        answer = await self._client.post(
            "/graphql", json={"query": query, "variables": dict(variables or {})}
        )
        if answer.status_code != 200:
            raise TransientError(f"HTTP {answer.status_code}", status=answer.status_code)
        payload = answer.json()
        data = payload.get("data")
        errors = tuple(payload.get("errors") or ())
        usable = isinstance(data, dict) and any(
            v is not None for k, v in data.items() if k != "rateLimit"
        )
        if errors and not usable:
            raise GraphQLError("GraphQL errors", errors=list(errors), data=data)
        rate = data.get("rateLimit") if isinstance(data, dict) else None
        rate = rate if isinstance(rate, dict) else {}
        reset = rate.get("resetAt")
        return GraphQLResult(
            data=data,
            errors=errors,
            cost=rate.get("cost"),
            remaining=rate.get("remaining"),
            limit=rate.get("limit"),
            reset_at=datetime.fromisoformat(reset) if isinstance(reset, str) else None,
        )

    async def rest_get(self, path: str, *, retry: bool = True) -> RestResult:
        answer = await self._client.get(path)
        body = answer.json() if answer.content else None
        return RestResult(status=answer.status_code, body=body, headers=dict(answer.headers))

    async def rest_post(self, path: str, body: Any) -> RestResult:
        answer = await self._client.post(path, json=body)
        return RestResult(status=answer.status_code, body=answer.json() if answer.content else None)


@pytest.fixture
def clock() -> FixedClock:
    return FixedClock(START)


@pytest.fixture
def fake(clock: FixedClock) -> FakeGitHub:
    return FakeGitHub(clock=clock, viewer="octo-worker")


@pytest.fixture
async def api(fake: FakeGitHub) -> AsyncIterator[FakeApi]:
    async with httpx.AsyncClient(
        transport=fake.transport(), base_url="https://api.github.com"
    ) as client:
        yield FakeApi(client)


@pytest.fixture
def full_schema(shared_dir: Path) -> GraphQLSchema:
    """GitHub's full public schema (``../shared/github/schema.graphql``)."""
    schema = build_schema(
        (shared_dir / "github" / "schema.graphql").read_text(encoding="utf-8"),
        assume_valid_sdl=True,
    )
    # GitHub's schema breaks a rule graphql-core 3.3 checks before validating documents
    # (deprecated fields implementing non-deprecated interface fields); GitHub does not
    # apply that rule, so mark the schema checked.
    schema._validation_errors = []
    return schema
