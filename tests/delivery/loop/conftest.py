"""Fixtures for the delivery-loop tests: a real store, a fixed clock, FakeGitHub reactions."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from comment_wake.delivery import DeliveryConfig, DeliveryLoop
from comment_wake.store import open_store
from review_monitor import GitHubConfig, Gone, PrRef, Publisher
from review_monitor.github import GitHubClient, RetryPolicy
from review_monitor.store import Store
from review_monitor.testing import FakeGitHub, FixedClock, InMemoryPublisher

LoopFactory = Callable[..., DeliveryLoop]


@pytest.fixture
def clock() -> FixedClock:
    return FixedClock()


@pytest.fixture
def store(tmp_path: Path, clock: FixedClock) -> Iterator[Store]:
    with open_store(tmp_path / "state.db", clock=clock) as s:
        yield s


@pytest.fixture
def fake(clock: FixedClock) -> FakeGitHub:
    return FakeGitHub(clock=clock)


@pytest.fixture
def pr(fake: FakeGitHub) -> PrRef:
    """The PR ``make_notice`` writes about (o/r#7), opened on the fake."""
    return fake.add_pr("o/r", 7)


@pytest.fixture
async def github(fake: FakeGitHub) -> AsyncIterator[GitHubClient]:
    async with GitHubClient(
        "test-token",
        GitHubConfig(api_url="https://api.github.test"),
        transport=fake.transport(),
        retry=RetryPolicy(attempts=1),
    ) as client:
        yield client


@pytest.fixture
def publishers() -> dict[str, InMemoryPublisher]:
    return {"w-42": InMemoryPublisher(), "w-7": InMemoryPublisher(), "orch": InMemoryPublisher()}


@pytest.fixture
def make_loop(
    store: Store, clock: FixedClock, publishers: dict[str, InMemoryPublisher]
) -> LoopFactory:
    """A loop routing by ``publishers`` with orchestrator ``orch``; keywords pass through."""

    def route(worker: str) -> Publisher | Gone | None:
        return publishers.get(worker)

    def build(**overrides: Any) -> DeliveryLoop:
        options: dict[str, Any] = {
            "route": route,
            "clock": clock,
            "config": DeliveryConfig(),
            "rng": random.Random(3),
            "orchestrator_of": lambda worker: ("orch", publishers["orch"]),
        }
        options.update(overrides)
        return DeliveryLoop(store, **options)

    return build
