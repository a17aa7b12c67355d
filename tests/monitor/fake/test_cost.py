"""GitHub's GraphQL cost formula and FakeGitHub's hourly budget."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import pytest

from review_monitor import PrRef
from review_monitor._queries import (
    MAX_CHECK_PRS,
    badge_query,
    detail_query,
    failing_checks_batch_query,
)
from review_monitor.testing import FakeGitHub, FixedClock, query_cost

# The documentation's worked example (rate limits and query limits for the GraphQL API).
WORKED_EXAMPLE = """
query {
  viewer {
    login
    repositories(first: 100) {
      edges { node { id
        issues(first: 50) {
          edges { node { id
            labels(first: 60) { edges { node { id name } } }
          } }
        }
      } }
    }
  }
}
"""


def _chain(sizes: list[int]) -> str:
    """Connections nested in one another, sized ``sizes``."""
    query = "id"
    for depth, size in reversed(list(enumerate(sizes))):
        query = f"c{depth}: comments(first: {size}) {{ nodes {{ {query} }} }}"
    return f"query {{ {query} }}"


def test_the_worked_example_needs_5101_requests_and_costs_51_points() -> None:
    cost = query_cost(WORKED_EXAMPLE)
    assert (5101, 51) == (cost.requests, cost.points)


def test_a_query_without_connections_costs_the_minimum_of_one() -> None:
    assert 1 == query_cost("query { viewer { login } }").points


@pytest.mark.parametrize(("requests", "points"), [(149, 1), (150, 2), (249, 2), (250, 3)])
def test_points_round_half_up(requests: int, points: int) -> None:
    aliases = " ".join(f"a{i}: comments(first: 1) {{ nodes {{ id }} }}" for i in range(requests))
    assert points == query_cost(f"query {{ {aliases} }}").points


def test_nested_connections_multiply_by_the_parents_size() -> None:
    assert 1 + 10 + 10 * 20 == query_cost(_chain([10, 20, 5])).requests


def test_sizes_given_as_variables_are_resolved() -> None:
    doc = """query($n: Int!) {
      a: comments(first: $n) { nodes { b: comments(last: $n) { nodes { id } } } } }"""
    assert 1 + 40 == query_cost(doc, {"n": 40}).requests


def test_a_badge_of_100_prs_costs_two_points() -> None:
    doc, variables = badge_query([PrRef("o", f"r{i % 5}", i + 1) for i in range(100)])
    assert (200, 2) == (query_cost(doc, variables).requests, query_cost(doc, variables).points)


def test_a_detail_read_of_30_items_costs_one_point() -> None:
    doc, variables = detail_query([f"id{i}" for i in range(30)])
    assert (30, 1) == (query_cost(doc, variables).requests, query_cost(doc, variables).points)


def test_a_batched_failing_checks_read_of_the_most_prs_costs_one_point() -> None:
    prs = [PrRef("o", f"r{i % 5}", i + 1) for i in range(MAX_CHECK_PRS)]
    doc, variables = failing_checks_batch_query(prs)
    assert (MAX_CHECK_PRS, 1) == (
        query_cost(doc, variables).requests,
        query_cost(doc, variables).points,
    )


def test_fake_answers_a_batched_failing_checks_read_per_pr(fake: FakeGitHub) -> None:
    one, two = fake.add_pr("octo/a", 1), fake.add_pr("octo/b", 2)
    run = fake.add_check_run(two, "tests", conclusion="FAILURE")
    doc, variables = failing_checks_batch_query([one, two])
    status, payload, _ = _post(fake, doc, variables)
    data = payload["data"]
    assert (200, None, [run], fake.head(two), 1) == (
        status,
        data["c0"]["pullRequest"]["statusCheckRollup"],
        [n["id"] for n in data["c1"]["pullRequest"]["statusCheckRollup"]["contexts"]["nodes"]],
        data["c1"]["pullRequest"]["statusCheckRollup"]["commit"]["oid"],
        data["rateLimit"]["cost"],
    )


def _post(fake: FakeGitHub, query: str, variables: dict[str, Any] | None = None) -> Any:
    answer = fake.handle(
        "POST", "/graphql", {}, json.dumps({"query": query, "variables": variables or {}}).encode()
    )
    return answer.status, json.loads(answer.body), answer.headers


def test_fake_charges_each_query_its_price_and_reports_it(fake: FakeGitHub) -> None:
    prs = [fake.add_pr(f"octo/r{i % 3}", i + 1) for i in range(100)]
    doc, variables = badge_query(prs)
    _, payload, headers = _post(fake, doc, variables)
    assert (2, 4998, "4998", "graphql") == (
        payload["data"]["rateLimit"]["cost"],
        payload["data"]["rateLimit"]["remaining"],
        headers["x-ratelimit-remaining"],
        headers["x-ratelimit-resource"],
    )


def _badge_of_100(fake: FakeGitHub) -> tuple[str, dict[str, Any]]:
    return badge_query([fake.add_pr("octo/repo", i + 1) for i in range(100)])


def test_the_budget_is_renewed_an_hour_after_it_started(
    fake: FakeGitHub, clock: FixedClock
) -> None:
    _post(fake, *_badge_of_100(fake))
    clock.advance(timedelta(minutes=59))
    before = fake.graphql_remaining
    clock.advance(timedelta(minutes=1))
    assert (4998, 5000) == (before, fake.graphql_remaining)


def test_an_exhausted_budget_answers_rate_limited_without_data(clock: FixedClock) -> None:
    fake = FakeGitHub(clock=clock, graphql_limit=3)
    query = _badge_of_100(fake)
    _post(fake, *query)
    status, payload, headers = _post(fake, *query)
    assert (200, "RATE_LIMITED", "0", None) == (
        status,
        payload["errors"][0]["type"],
        headers["x-ratelimit-remaining"],
        payload.get("data"),
    )


def test_a_connection_over_100_is_refused(fake: FakeGitHub) -> None:
    fake.add_pr("octo/repo", 1)
    query = """
    query { repository(owner: "octo", name: "repo") {
      pullRequest(number: 1) { comments(last: 101) { nodes { id } } } } }"""
    _, payload, _ = _post(fake, query)
    assert "EXCESSIVE_PAGINATION" == payload["errors"][0]["type"]


def test_a_connection_without_first_or_last_is_refused(fake: FakeGitHub) -> None:
    fake.add_pr("octo/repo", 1)
    query = """
    query { repository(owner: "octo", name: "repo") {
      pullRequest(number: 1) { comments { nodes { id } } } } }"""
    _, payload, _ = _post(fake, query)
    assert "MISSING_PAGINATION_BOUNDARIES" == payload["errors"][0]["type"]
