"""The default badge batch is the largest one that GitHub prices at one point."""

from __future__ import annotations

from review_monitor import MonitorConfig, PrRef
from review_monitor._queries import badge_query
from review_monitor.testing import query_cost


def _points(n: int) -> int:
    prs = [PrRef(owner="octo-org", name=f"repo{i % 3}", number=i + 1) for i in range(n)]
    document, variables = badge_query(prs)
    return query_cost(document, variables).points


def test_default_batch_costs_one_point_and_one_more_pr_costs_two() -> None:
    size = MonitorConfig().batch_size
    assert (1, 2) == (_points(size), _points(size + 1))
