"""The sweep read against FakeGitHub: one point for many PRs, halving when GitHub balks."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import pytest

from review_monitor import PrRef
from review_monitor._queries import sweep_query
from review_monitor.github import GitHubClient, RetryPolicy, read_badges
from review_monitor.poll import Sweeper, SweepRefused, read_sweep
from review_monitor.testing import FakeGitHub, Fault, FixedClock

START = datetime(2030, 1, 2, 3, 0, tzinfo=UTC)

pytestmark = pytest.mark.anyio


@pytest.fixture
def clock() -> FixedClock:
    return FixedClock(START)


@pytest.fixture
def fake(clock: FixedClock) -> FakeGitHub:
    return FakeGitHub(clock=clock, graphql_limit=1_000_000)


@pytest.fixture
async def api(fake: FakeGitHub, clock: FixedClock) -> AsyncIterator[GitHubClient]:
    retry = RetryPolicy(attempts=1)
    async with GitHubClient("t0ken", transport=fake.transport(), clock=clock, retry=retry) as c:
        yield c


async def node_ids(api: GitHubClient, prs: list[PrRef]) -> list[str]:
    ids: list[str] = []
    for k in range(0, len(prs), 74):
        batch = await read_badges(api, prs[k : k + 74])
        ids += [batch.statuses[pr].node_id for pr in prs[k : k + 74]]
    return ids


def opened(fake: FakeGitHub, count: int) -> list[PrRef]:
    return [fake.add_pr(f"octo-org/repo-{i % 7}", i + 1) for i in range(count)]


async def test_a_sweep_of_1000_prs_is_one_request_that_costs_one_point(
    fake: FakeGitHub, api: GitHubClient
) -> None:
    ids = await node_ids(api, opened(fake, 1000))
    before = len(fake.requests)
    batch = await read_sweep(api, ids)
    sent = fake.requests[before:]
    assert (1, 1, 1000) == (len(sent), sent[0].cost, len(batch.entries))


async def test_a_sweep_shows_what_the_badge_shows(fake: FakeGitHub, api: GitHubClient) -> None:
    pr = opened(fake, 1)[0]
    fake.add_check_run(pr, "ci", conclusion="FAILURE")
    fake.post_comment(pr, "alice", "hello")
    status = (await read_badges(api, [pr])).statuses[pr]
    batch = await read_sweep(api, [status.node_id])
    assert {status.node_id: ("FAILURE", status.updated_at, status.head_ref_oid)} == {
        k: (e.check_state, e.updated_at, e.head_ref_oid) for k, e in batch.entries.items()
    }


async def test_a_comment_moves_the_prs_updated_at(
    fake: FakeGitHub, api: GitHubClient, clock: FixedClock
) -> None:
    pr = opened(fake, 1)[0]
    node = (await read_badges(api, [pr])).statuses[pr].node_id
    clock.advance(timedelta(minutes=3))
    fake.post_comment(pr, "alice", "hello")
    batch = await read_sweep(api, [node])
    assert START + timedelta(minutes=3) == batch.entries[node].updated_at


async def test_an_id_that_resolves_to_nothing_is_missing(
    fake: FakeGitHub, api: GitHubClient
) -> None:
    ids = await node_ids(api, opened(fake, 2))
    batch = await read_sweep(api, [ids[0], "PR_gone", ids[1]])
    assert (["PR_gone"], {ids[0], ids[1]}) == (list(batch.missing), set(batch.entries))


def test_fakegithub_refuses_more_than_100_ids_in_one_nodes_field(fake: FakeGitHub) -> None:
    document = "query Sweep($s0: [ID!]!) { s0: nodes(ids: $s0) { id } }"
    body = {"query": document, "variables": {"s0": [f"PR_{i}" for i in range(101)]}}
    answer = json.loads(fake.handle("POST", "/graphql", {}, json.dumps(body).encode()).body)
    assert (False, "You may not provide more than 100 node ids; you provided 101.") == (
        "data" in answer,
        answer["errors"][0]["message"],
    )


def test_the_sweep_document_never_asks_more_than_100_ids_in_one_field() -> None:
    _, variables = sweep_query([f"PR_{i}" for i in range(1000)])
    assert [100] * 10 == [len(v) for v in variables.values()]


async def test_a_timed_out_sweep_is_read_again_as_two_halves_and_the_size_kept(
    fake: FakeGitHub, api: GitHubClient
) -> None:
    ids = await node_ids(api, opened(fake, 400))
    sweeper = Sweeper(lambda chunk: read_sweep(api, chunk))
    fake.inject(Fault.time_out(kind="sweep"))
    first, requests = await sweeper.sweep(ids)
    second, again = await sweeper.sweep(ids)
    assert (400, 3, 200, 400, 2) == (
        len(first.entries),
        requests,
        sweeper.size,
        len(second.entries),
        again,
    )


async def test_a_sweep_with_a_nodes_field_nulled_is_halved(
    fake: FakeGitHub, api: GitHubClient
) -> None:
    ids = await node_ids(api, opened(fake, 150))
    sweeper = Sweeper(lambda chunk: read_sweep(api, chunk))
    error = {
        "type": "RESOURCE_LIMITS_EXCEEDED",
        "message": "Resource limits exceeded",
        "path": ["s1"],
    }
    fake.inject(Fault.graphql_errors(error, kind="sweep"))
    batch, requests = await sweeper.sweep(ids)
    assert (150, 3, 75) == (len(batch.entries), requests, sweeper.size)


async def test_a_partial_answer_is_refused_by_read_sweep(
    fake: FakeGitHub, api: GitHubClient
) -> None:
    ids = await node_ids(api, opened(fake, 150))
    fake.inject(
        Fault.graphql_errors({"message": "Something went wrong", "path": ["s0"]}, kind="sweep")
    )
    with pytest.raises(SweepRefused):
        await read_sweep(api, ids)


async def test_a_one_id_sweep_that_keeps_failing_leaves_that_id_unread(
    fake: FakeGitHub, api: GitHubClient
) -> None:
    ids = await node_ids(api, opened(fake, 2))
    sweeper = Sweeper(lambda chunk: read_sweep(api, chunk))
    fake.inject(Fault.time_out(kind="sweep", times=2))
    batch, requests = await sweeper.sweep(ids)
    assert ((ids[0],), {ids[1]}, 3) == (batch.unread, set(batch.entries), requests)


async def test_an_item_listed_late_is_left_out_until_its_listing(
    fake: FakeGitHub, api: GitHubClient, clock: FixedClock
) -> None:
    pr = opened(fake, 1)[0]
    fake.post_comment(pr, "alice", "late", listed_late=timedelta(seconds=20))
    before = len((await read_badges(api, [pr])).statuses[pr].comments)
    clock.advance(timedelta(seconds=20))
    after = len((await read_badges(api, [pr])).statuses[pr].comments)
    assert (0, 1) == (before, after)


async def test_a_sweep_github_keeps_refusing_gives_up_after_a_bounded_number_of_requests(
    fake: FakeGitHub, api: GitHubClient
) -> None:
    ids = await node_ids(api, opened(fake, 1000))
    sweeper = Sweeper(lambda chunk: read_sweep(api, chunk))
    fake.inject(Fault.time_out(kind="sweep", times=10_000))
    batch, requests = await sweeper.sweep(ids)
    # 2 * ceil(log2(1000)) + 2 = 22 refusals, then the 23rd ends the sweep; GitHub being
    # down says nothing about the size, which stays.
    assert (23, 1000, {}, 1000) == (requests, len(batch.unread), batch.entries, sweeper.size)
