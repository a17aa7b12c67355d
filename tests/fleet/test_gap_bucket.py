"""The identity's gap bucket (issue 28, section 5): a fleet owner's flood gap pages beyond
the first take a token each, and none is taken while the shared budget row says GraphQL
points are low.  The row is the same on both engines."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from comment_wake.service import SharedGapPages
from comment_wake.store import GapLimits, budget_low, open_store, spend_gap
from review_monitor.github import RateLimit
from review_monitor.store import SyncStore, record_budget

T0 = datetime(2026, 12, 4, 12, 0, tzinfo=UTC)
IDENTITY = "github.com"
BUDGET = "github.com:octocat"


def _graphql(remaining: int, reset_in: timedelta, limit: int | None = 5000) -> RateLimit:
    return RateLimit("graphql", limit, remaining, None, T0 + reset_in, T0)


def test_the_default_gap_bucket_holds_sixty_pages_an_hour_and_twenty_a_minute() -> None:
    limits = GapLimits()
    assert (60, 20) == (limits.per_hour, limits.per_minute)


def test_the_budget_is_low_below_a_fifth_of_the_limit_an_hour_before_the_reset() -> None:
    assert (True, False) == (
        budget_low(_graphql(999, timedelta(hours=1)), T0),
        budget_low(_graphql(1000, timedelta(hours=1)), T0),
    )


def test_the_budget_threshold_falls_with_the_part_of_the_hour_left() -> None:
    assert (True, False) == (
        budget_low(_graphql(499, timedelta(minutes=30)), T0),
        budget_low(_graphql(500, timedelta(minutes=30)), T0),
    )


def test_a_budget_row_whose_window_has_reset_is_not_low() -> None:
    assert not budget_low(_graphql(0, -timedelta(seconds=1)), T0)


def test_no_budget_row_is_not_low() -> None:
    assert not budget_low(None, T0)


def test_gap_pages_are_granted_up_to_the_minute_window_then_refused(
    any_store: SyncStore,
) -> None:
    limits = GapLimits(per_hour=6)  # two pages a minute
    granted = [spend_gap(any_store, IDENTITY, BUDGET, limits, T0) for _ in range(3)]
    assert [True, True, False] == granted


def test_a_refused_gap_page_is_granted_once_the_minute_refills(any_store: SyncStore) -> None:
    limits = GapLimits(per_hour=3)  # one page a minute
    first = spend_gap(any_store, IDENTITY, BUDGET, limits, T0)
    later = spend_gap(any_store, IDENTITY, BUDGET, limits, T0 + timedelta(minutes=1))
    assert (True, True) == (first, later)


def test_no_gap_page_is_granted_while_the_shared_budget_is_low(any_store: SyncStore) -> None:
    with any_store.write(at=T0) as tx:
        record_budget(tx, BUDGET, [_graphql(100, timedelta(minutes=30))])
    assert not spend_gap(any_store, IDENTITY, BUDGET, GapLimits(), T0)


def test_a_low_budget_of_another_identity_defers_nothing(any_store: SyncStore) -> None:
    with any_store.write(at=T0) as tx:
        record_budget(tx, "github.com:someone-else", [_graphql(100, timedelta(minutes=30))])
    assert spend_gap(any_store, IDENTITY, BUDGET, GapLimits(), T0)


async def _octocat() -> str | None:
    return "OctoCat"


@pytest.mark.anyio
async def test_shared_gap_pages_read_the_budget_row_of_the_tokens_login(tmp_path: Path) -> None:
    with open_store(tmp_path / "state.db") as store:
        with store.sync.write(at=T0) as tx:
            record_budget(tx, BUDGET, [_graphql(100, timedelta(minutes=30))])
        pages = SharedGapPages(store, host="github.com", viewer=_octocat, limits=GapLimits())
        granted = await pages(T0)
    assert not granted


@pytest.mark.anyio
async def test_shared_gap_pages_refuse_when_the_store_fails(tmp_path: Path) -> None:
    store = open_store(tmp_path / "state.db")
    store.close()  # every call now fails
    pages = SharedGapPages(store, host="github.com", viewer=_octocat, limits=GapLimits())
    assert not await pages(T0)
