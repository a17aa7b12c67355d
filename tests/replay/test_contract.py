"""The output contract's ordering within one instant (docs/scenarios.md, "Output"), pinned on
``sort_lines``; the rest of the contract is checked on every scenario's output by the
``problems`` fixture."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from comment_wake.replay import Line, ReplayResult, load_scenario, run_scenario, sort_lines

T = datetime(2026, 1, 5, 9, 2, tzinfo=UTC)
PR_A = "octo-org/a#1"
PR_B = "octo-org/b#1"


def _decision(seq: int, pr: str, comment: str, created: datetime, at: datetime = T) -> Line:
    fields = {"pr": pr, "comment": comment, "outcome": "skip", "reason": "bot", "detail": ""}
    return Line("decision", at, fields, seq, created)


def _other(kind: str, seq: int, pr: str | None = PR_A) -> Line:
    return Line(kind, T, {"pr": pr}, seq)


def _order(lines: list[Line]) -> list[tuple[str, Any]]:
    return [(line.type, line.fields.get("comment", line.seq)) for line in sort_lines(lines)]


def test_decisions_of_one_pr_and_instant_are_ordered_by_creation_time_across_steps() -> None:
    later = _decision(0, PR_A, "IC_late", T - timedelta(seconds=5))  # a first step's
    earlier = _decision(1, PR_A, "IC_early", T - timedelta(minutes=5))  # a second step's
    assert [("decision", "IC_early"), ("decision", "IC_late")] == _order([later, earlier])


def test_decisions_created_at_the_same_time_are_ordered_by_id() -> None:
    same = T - timedelta(seconds=30)
    lines = [_decision(0, PR_A, "IC_b", same), _decision(1, PR_A, "IC_a", same)]
    assert [("decision", "IC_a"), ("decision", "IC_b")] == _order(lines)


def test_decisions_are_grouped_by_pr_before_creation_time() -> None:
    lines = [
        _decision(0, PR_B, "IC_b_old", T - timedelta(minutes=9)),
        _decision(1, PR_A, "IC_a_new", T - timedelta(seconds=1)),
    ]
    assert [("decision", "IC_a_new"), ("decision", "IC_b_old")] == _order(lines)


def test_within_an_instant_decisions_come_before_wakes_notices_and_logs() -> None:
    lines = [
        _other("log", 0),
        _other("notice", 1),
        _other("wake", 2),
        _decision(3, PR_A, "IC_1", T - timedelta(seconds=1)),
    ]
    assert ["decision", "wake", "notice", "log"] == [line.type for line in sort_lines(lines)]


def test_an_earlier_instant_comes_first_whatever_the_type() -> None:
    early_log = Line("log", T - timedelta(seconds=1), {"pr": None}, 5)
    lines = [_decision(0, PR_A, "IC_1", T - timedelta(minutes=1)), early_log]
    assert ["log", "decision"] == [line.type for line in sort_lines(lines)]


@pytest.mark.anyio
async def test_the_replay_sorts_decisions_with_the_creation_times_the_service_gives(
    scenarios_dir: Path,
) -> None:
    scenario = load_scenario(scenarios_dir / "late-listing-same-second-and-3s-earlier.toml")
    result = await run_scenario(scenario)
    decisions = [line for line in result.lines if line.type == "decision"]
    assert all(line.created is not None for line in decisions)


def _result(*decided: tuple[str, str, str]) -> ReplayResult:
    lines = []
    for n, (comment, outcome, reason) in enumerate(decided):
        fields = {"pr": PR_A, "comment": comment, "outcome": outcome, "reason": reason}
        lines.append(Line("decision", T + timedelta(seconds=n), {**fields, "detail": ""}, n))
    return ReplayResult(tuple(lines), ())


@pytest.mark.parametrize(
    "decided",
    [
        [("IC_1", "held", "rate-limit"), ("IC_1", "held", "rate-limit")],
        [("IC_1", "wake", "writer"), ("IC_1", "retry", "lookup-failed")],
        [("IC_1", "held", "rate-limit"), ("IC_1", "retry", "lookup-failed")],
        [("IC_1", "drop", "bot")],
        [("IC_1", "skip", "writer")],
    ],
    ids=["held-twice", "after-final", "retry-after-held", "drop-reason", "skip-reason"],
)
def test_the_contract_check_refuses_a_decision_out_of_grammar(
    decided: list[tuple[str, str, str]], problems: Any
) -> None:
    assert [] != problems({}, _result(*decided))


def test_the_contract_check_accepts_retries_then_held_then_wake(problems: Any) -> None:
    decided = [
        ("IC_1", "retry", "lookup-failed"),
        ("IC_1", "retry", "lookup-failed"),
        ("IC_1", "held", "rate-limit"),
        ("IC_1", "wake", "writer"),
    ]
    assert [] == problems({}, _result(*decided))


def _woken(notice_chars: int) -> ReplayResult:
    fields = {"pr": PR_A, "worker": "w-1", "comments": ["IC_1"], "part": 1, "parts": 1}
    return ReplayResult((Line("wake", T, {**fields, "notice": "n" * notice_chars}, 0),), ())


def test_the_contract_check_refuses_a_wake_notice_longer_than_a_hook_takes(
    problems: Any,
) -> None:
    assert 1 == len(problems({}, _woken(9_501)))


def test_max_notice_chars_refuses_a_longer_wake_notice(problems: Any) -> None:
    expected = ["a wake notice of 8501 characters (at most 8500)"]
    assert expected == problems({"max_notice_chars": 8_500}, _woken(8_501))


def test_max_notice_chars_accepts_a_notice_of_exactly_that_length(problems: Any) -> None:
    assert [] == problems({"max_notice_chars": 8_500}, _woken(8_500))
