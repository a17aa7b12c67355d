"""A watch started again (the worker's ``pr_review_monitor unwatch`` then ``watch``, or an
archived worker bound again) begins from a fresh first look at the new watch's start:
what came before it, less the clock-skew allowance, is history."""

from __future__ import annotations

from typing import Any

from comment_wake.wake import Binding
from comment_wake.wake.testing import WakeSim


def watch(sim: WakeSim, since: Any) -> None:
    sim.binding = Binding(sim.pr, "w-1", "orch-1", watched_since=since)


def outcomes(sim: WakeSim, comment: str) -> list[tuple[str, str]]:
    return [(d.outcome, d.reason) for d in sim.decisions if d.comment == comment]


def test_a_comment_posted_while_unwatched_never_wakes_after_watch(make_sim: Any, at: Any) -> None:
    sim = make_sim()
    watch(sim, at(-120))
    sim.poll(at(0))
    sim.binding = Binding(sim.pr, "w-1", "orch-1", watched=False)
    sim.unwatch(at(5))
    sim.comment("IC_1", "bob", at(10), "Posted while unwatched.")
    # Watched again more than the clock-skew allowance (2 minutes) after the comment.
    watch(sim, at(200))
    sim.poll(at(210))
    assert ([("skip", "baseline")], []) == (outcomes(sim, "IC_1"), sim.woken())


def test_a_comment_after_the_new_watch_wakes(make_sim: Any, at: Any) -> None:
    sim = make_sim()
    watch(sim, at(-120))
    sim.poll(at(0))
    watch(sim, at(20))
    sim.poll(at(30))
    sim.comment("IC_2", "bob", at(40), "After the new watch.")
    sim.poll(at(50))
    assert ["IC_2"] == sim.woken()


def test_held_comments_of_the_old_watch_are_dropped_when_the_unwatch_was_missed(
    make_sim: Any, at: Any
) -> None:
    sim = make_sim()
    watch(sim, at(-120))
    sim.comment("IC_1", "bob", at(0), "One.")
    sim.poll(at(10))
    sim.comment("IC_2", "bob", at(20), "Two.")
    sim.poll(at(30))  # held by the one-minute gap
    watch(sim, at(40))  # unwatched and watched again between two looks
    sim.poll(at(50))
    assert ([("held", "rate-limit"), ("drop", "unbound")], ["IC_1"]) == (
        outcomes(sim, "IC_2"),
        sim.woken(),
    )


def test_a_new_watch_keeps_the_rate_limit_windows(make_sim: Any, at: Any) -> None:
    sim = make_sim()
    watch(sim, at(-120))
    sim.comment("IC_1", "bob", at(0), "One.")
    sim.poll(at(10))
    watch(sim, at(20))
    sim.poll(at(25))
    sim.comment("IC_2", "bob", at(30), "Two.")
    sim.poll(at(40))  # 30 s after the last wake: held, not woken
    assert [("held", "rate-limit")] == outcomes(sim, "IC_2")
