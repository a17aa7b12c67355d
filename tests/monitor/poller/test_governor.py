"""The budget governor, without I/O."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from review_monitor._governor import BudgetGovernor

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
S = timedelta(seconds=1)


def governor() -> BudgetGovernor:
    return BudgetGovernor(base_interval=60 * S, budget_share=0.5, hourly_budget=5000)


def test_a_cheap_poll_keeps_the_base_interval() -> None:
    g = governor()
    for i in range(10):
        g.record(batch=i, cost=1, remaining=4000, reset_at=T0 + 1800 * S)
    pace = g.plan(10, T0)
    assert (60 * S, 600.0, False) == (pace.interval, pace.projected_per_hour, pace.stretched)


def test_a_round_over_the_hourly_share_is_stretched_to_fit() -> None:
    g = governor()
    for i in range(20):
        g.record(batch=i, cost=5, remaining=None, reset_at=None)
    pace = g.plan(20, T0)
    # 100 points a round, 2,500 an hour allowed: one round every 144 seconds.
    assert (144 * S, 2500.0) == (pace.interval, pace.projected_per_hour)


def test_a_batch_not_yet_measured_is_priced_at_the_mean_of_the_others() -> None:
    g = governor()
    g.record(batch=0, cost=30, remaining=None, reset_at=None)
    g.record(batch=1, cost=10, remaining=None, reset_at=None)
    assert 60.0 == g.plan(3, T0).round_cost


def test_little_remaining_budget_slows_the_poll_until_the_reset() -> None:
    g = governor()
    g.record(batch=0, cost=2, remaining=100, reset_at=T0 + 600 * S)
    # Half of 100 points over 600 seconds: a 2-point round every 24 s is fine, but
    # 10 batches (20 points) need 240 s.
    assert 240 * S == g.plan(10, T0).interval


def test_nothing_remaining_waits_for_the_reset() -> None:
    g = governor()
    g.record(batch=0, cost=1, remaining=0, reset_at=T0 + 900 * S)
    assert 900 * S == g.plan(1, T0).interval


def test_a_larger_budget_seen_in_remaining_is_used() -> None:
    g = governor()
    g.record(batch=0, cost=100, remaining=15000, reset_at=None)
    assert 7500.0 == g.plan(1, T0).allowed_per_hour


def test_stretching_is_said_once() -> None:
    g = governor()
    g.record(batch=0, cost=100, remaining=None, reset_at=None)
    first, second = g.plan(1, T0), g.plan(1, T0 + 144 * S)
    assert (True, None) == (first.note is not None and "stretching" in first.note, second.note)


def test_relaxing_is_said_once_more() -> None:
    g = governor()
    g.record(batch=0, cost=100, remaining=None, reset_at=None)
    g.plan(1, T0)
    g.record(batch=0, cost=1, remaining=None, reset_at=None)
    relaxed, after = g.plan(1, T0 + 144 * S), g.plan(1, T0 + 204 * S)
    assert ("poll budget: back to the 1m poll interval (60 points an hour)", None) == (
        relaxed.note,
        after.note,
    )


def _greedy_hints(g: BudgetGovernor, hours: int) -> list[datetime]:
    """Spend one point on a hint as soon as the governor allows, for ``hours``."""
    spent: list[datetime] = []
    t = T0
    while True:
        t = g.hint_ready_at(t, 1.0)
        if t >= T0 + hours * 3600 * S:
            return spent
        g.spend_hint(1.0, t)
        spent.append(t)


def test_a_burst_of_hints_runs_at_once_up_to_a_tenth_of_the_hint_share() -> None:
    spent = _greedy_hints(governor(), 1)
    assert ([T0] * 50, T0 + 8 * S) == (spent[:50], spent[50])


def test_hinted_polls_spend_at_most_the_hint_share_in_any_hour() -> None:
    spent = _greedy_hints(governor(), 3)
    busiest = max(sum(1 for u in spent if t <= u <= t + 3600 * S) for t in spent)
    assert 500 == busiest  # hint_share 0.1 of 5000 points


def test_the_hint_share_grows_with_the_budget_github_reports() -> None:
    g = governor()
    g.record(batch=None, cost=1, remaining=15000, reset_at=None)
    assert 1500 == g.hint_points_per_hour


def test_the_stretch_note_says_the_remaining_budget_is_unknown_before_github_said_it() -> None:
    g = governor()
    g.record(batch=0, cost=100, remaining=None, reset_at=None)
    note = g.plan(1, T0).note or ""
    assert (True, False) == (
        note.endswith(
            "(100 points a round, 2500 points an hour allowed, GitHub has not said "
            "yet how many points are left)"
        ),
        "None" in note,
    )


def test_the_stretch_note_gives_the_remaining_budget_github_reported() -> None:
    g = governor()
    g.record(batch=0, cost=100, remaining=4200, reset_at=None)
    note = g.plan(1, T0).note or ""
    assert note.endswith("an hour allowed, 4200 points left)")
