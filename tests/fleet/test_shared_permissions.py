"""The fleet's shared permission cache on real PostgreSQL: one host's lookup serves every
other host until the answer is older than ``permission_ttl`` (issue 28, item 5)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import timedelta

import pytest

from review_monitor import GitHubConfig, MonitorConfig, PermissionAnswer, Permissions
from review_monitor._fleet import StorePermissions
from review_monitor.github import GitHubClient, RetryPolicy
from review_monitor.store import Store
from review_monitor.testing import FakeGitHub, FixedClock

pytestmark = pytest.mark.anyio

REPO = "octo-org/app"


@pytest.fixture
def clock() -> FixedClock:
    return FixedClock()


@pytest.fixture
def fake(clock: FixedClock) -> FakeGitHub:
    fake = FakeGitHub(clock=clock)
    fake.add_pr(REPO, 1)
    fake.set_permission(REPO, "alice", "write")
    return fake


@pytest.fixture
async def client(fake: FakeGitHub) -> AsyncIterator[GitHubClient]:
    async with GitHubClient(
        "test-token",
        GitHubConfig(api_url="https://api.github.test"),
        transport=fake.transport(),
        retry=RetryPolicy(attempts=1),
    ) as c:
        yield c


def _host(client: GitHubClient, store: Store, clock: FixedClock) -> Permissions:
    return Permissions(client, MonitorConfig(), shared=StorePermissions(store, clock))


def _asked(fake: FakeGitHub) -> int:
    return sum(1 for r in fake.requests if r.kind == "permission")


async def test_a_second_hosts_lookup_is_served_by_the_first_hosts_answer(
    postgres_url: str, client: GitHubClient, fake: FakeGitHub, clock: FixedClock
) -> None:
    with Store.open(postgres_url) as one, Store.open(postgres_url) as two:
        first = await _host(client, one, clock).lookup(REPO, "alice", clock.now())
        second = await _host(client, two, clock).lookup(REPO, "ALICE", clock.now())
    assert isinstance(first, PermissionAnswer)
    assert isinstance(second, PermissionAnswer)
    assert (1, True, "write", first.checked_at) == (
        _asked(fake),
        second.trusted,
        second.permission,
        second.checked_at,
    )


async def test_an_answer_older_than_the_ttl_is_asked_again(
    postgres_url: str, client: GitHubClient, fake: FakeGitHub, clock: FixedClock
) -> None:
    with Store.open(postgres_url) as one, Store.open(postgres_url) as two:
        await _host(client, one, clock).lookup(REPO, "alice", clock.now())
        clock.advance(MonitorConfig().permission_ttl + timedelta(seconds=1))
        await _host(client, two, clock).lookup(REPO, "alice", clock.now())
    assert 2 == _asked(fake)
