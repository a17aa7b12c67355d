"""One rules table: the ``Reason`` literal agrees with it, and every decision carries the
trace of the rules its comment passed."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import get_args

from comment_wake.wake import RULES, Reason
from comment_wake.wake.testing import WakeSim

At = Callable[..., datetime]
MakeSim = Callable[..., WakeSim]

NAMES = tuple(rule.name for rule in RULES)
# Each reason once, where a rule first gives it ("blank" is given twice: raw, then shown).
TABLE_REASONS = list(dict.fromkeys(reason for rule in RULES for reason in rule.reasons))
BEFORE_WRITE_ACCESS = NAMES[: NAMES.index("write-access")]
# Reasons decided before the rules run, and those of the outcomes past them.
NOT_RULES = {"baseline", "flood-gap", "writer", "rate-limit", "operator-release"}


def traces(sim: WakeSim, comment: str) -> list[tuple[str, tuple[str, ...]]]:
    return [(d.outcome, d.rules) for d in sim.decisions if d.comment == comment]


def test_reason_literal_lists_the_tables_reasons_in_the_tables_order() -> None:
    assert TABLE_REASONS == [r for r in get_args(Reason) if r in TABLE_REASONS]


def test_reason_literal_adds_only_the_reasons_decided_outside_the_rules() -> None:
    assert NOT_RULES == set(get_args(Reason)) - set(TABLE_REASONS)


def test_rule_names_are_unique() -> None:
    assert sorted(set(NAMES)) == sorted(NAMES)


def test_a_woken_comment_passed_every_rule(make_sim: MakeSim, at: At) -> None:
    sim = make_sim()
    sim.comment("IC_1", "bob", at(0), "Please rebase.")
    sim.poll(at(30))
    assert [("wake", NAMES)] == traces(sim, "IC_1")


def test_a_bot_comment_passed_only_the_rules_before_bot(make_sim: MakeSim, at: At) -> None:
    sim = make_sim()
    sim.comment("IC_1", "ci[bot]", at(0), "Coverage report.", author_type="Bot")
    sim.poll(at(30))
    assert [("skip", ("bound", "open", "author", "minimized"))] == traces(sim, "IC_1")


def test_a_strangers_comment_passed_every_rule_before_write_access(
    make_sim: MakeSim, at: At
) -> None:
    sim = make_sim()
    sim.comment("IC_1", "mallory", at(0), "Merge it.")
    sim.poll(at(30))
    assert [("skip", BEFORE_WRITE_ACCESS)] == traces(sim, "IC_1")


def test_a_held_comment_passed_every_rule(make_sim: MakeSim, at: At) -> None:
    sim = make_sim()
    sim.comment("IC_1", "bob", at(0), "One.")
    sim.poll(at(10))
    sim.comment("IC_2", "bob", at(20), "Two.")
    sim.poll(at(30))  # within a minute of the first wake
    assert [("held", NAMES)] == traces(sim, "IC_2")


def test_a_retried_then_woken_comment_keeps_the_rules_it_passed_before(
    make_sim: MakeSim, at: At
) -> None:
    sim = make_sim()
    sim.lookup_failures["carol"] = 2
    sim.comment("IC_1", "carol", at(0), "Please rebase.")
    sim.poll(at(10))
    sim.poll(at(minutes=2))  # the first retry, due a minute after the failure, fails too
    sim.poll(at(minutes=5))  # the second, due two minutes later, is answered
    expected = [("retry", BEFORE_WRITE_ACCESS), ("retry", BEFORE_WRITE_ACCESS), ("wake", NAMES)]
    assert expected == traces(sim, "IC_1")


def test_a_retried_comment_skipped_when_unwatched_passed_every_rule_before_write_access(
    make_sim: MakeSim, at: At
) -> None:
    sim = make_sim()
    sim.lookup_failures["carol"] = 1
    sim.comment("IC_1", "carol", at(0), "Please rebase.")
    sim.poll(at(10))
    sim.unwatch(at(20))
    assert ("skip", BEFORE_WRITE_ACCESS) == traces(sim, "IC_1")[-1]


def test_a_baseline_decision_ran_no_rule(make_sim: MakeSim, at: At) -> None:
    sim = make_sim(baseline=False)
    sim.comment("IC_1", "bob", at(0), "Old news.")
    sim.poll(at(30))
    assert [("skip", ())] == traces(sim, "IC_1")
