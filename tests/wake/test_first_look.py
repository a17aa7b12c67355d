"""The first look at a watched PR (issue 25, item 4; a deliberate departure from the
seed): what was created after the watch began, less the clock-skew allowance
(``WATCH_CLOCK_SKEW``, 2 minutes), is new; only what came before is ``skip baseline``."""

from __future__ import annotations

from typing import Any

from comment_wake.wake import Binding
from comment_wake.wake.testing import WakeSim
from review_monitor.seen import WATCH_CLOCK_SKEW


def watched(make_sim: Any, since: Any) -> WakeSim:
    sim: WakeSim = make_sim(baseline=False)
    sim.binding = Binding(sim.pr, "w-1", "orch-1", watched_since=since)
    return sim


def outcomes(sim: WakeSim, comment: str) -> list[tuple[str, str]]:
    return [(d.outcome, d.reason) for d in sim.decisions if d.comment == comment]


def test_the_allowance_is_two_minutes() -> None:
    assert 120 == WATCH_CLOCK_SKEW.total_seconds()


def test_a_comment_between_bind_and_the_first_look_wakes_the_worker(make_sim: Any, at: Any) -> None:
    sim = watched(make_sim, at(0))
    sim.comment("IC_1", "bob", at(30), "Posted right after the bind.")
    sim.poll(at(90))
    assert ([("wake", "writer")], ["IC_1"]) == (outcomes(sim, "IC_1"), sim.woken())


def test_a_review_between_bind_and_the_first_look_wakes_the_worker(make_sim: Any, at: Any) -> None:
    sim = watched(make_sim, at(0))
    sim.review("PRR_1", "bob", at(30), "Please split this function.")
    sim.poll(at(90))
    assert ["PRR_1"] == sim.woken()


def test_a_comment_within_the_allowance_before_the_bind_wakes_the_worker(
    make_sim: Any, at: Any
) -> None:
    sim = watched(make_sim, at(0))
    sim.comment("IC_1", "bob", at(-119), "Our clock ran ahead of GitHub's.")
    sim.poll(at(90))
    assert ["IC_1"] == sim.woken()


def test_a_comment_older_than_the_watch_less_the_allowance_is_skip_baseline(
    make_sim: Any, at: Any
) -> None:
    sim = watched(make_sim, at(0))
    sim.comment("IC_old", "bob", at(-120), "History.")
    sim.comment("IC_new", "bob", at(30), "News.")
    sim.poll(at(90))
    assert ([("skip", "baseline")], ["IC_new"]) == (outcomes(sim, "IC_old"), sim.woken())


def test_comments_from_days_of_downtime_after_the_bind_go_in_one_wake(
    make_sim: Any, at: Any
) -> None:
    sim = watched(make_sim, at(0))
    sim.comment("IC_1", "bob", at(hours=30), "First.")
    sim.comment("IC_2", "carol", at(hours=50), "Second.")
    sim.poll(at(hours=72))
    assert (["IC_1", "IC_2"], 1) == (sim.woken(), len(sim.notices))


def test_a_downtime_comment_after_a_wake_is_held_by_the_rate_limit(make_sim: Any, at: Any) -> None:
    sim = watched(make_sim, at(0))
    sim.comment("IC_1", "bob", at(hours=30), "First.")
    sim.poll(at(hours=72))
    sim.comment("IC_2", "carol", at(hours=72, seconds=5), "Second.")
    sim.poll(at(hours=72, seconds=10))
    assert [("held", "rate-limit")] == outcomes(sim, "IC_2")


def test_a_flood_of_downtime_comments_is_read_back_to_the_watch(make_sim: Any, at: Any) -> None:
    sim = watched(make_sim, at(0))
    sim.comment("IC_writer", "bob", at(minutes=10), "Before the flood.")
    sim.flood("IC_f", 25, "mallory", at(minutes=20))
    sim.poll(at(hours=2))
    assert (["IC_writer"], 1) == (sim.woken(), len(sim.gap_reads))


def test_a_rebind_starts_again_from_the_new_watch(make_sim: Any, at: Any) -> None:
    sim = watched(make_sim, at(0))
    sim.poll(at(10))
    sim.binding = Binding(sim.pr, "w-1", "orch-1", watched=False)
    sim.unwatch(at(20))
    sim.comment("IC_gap", "bob", at(30), "While nobody watched.")
    sim.binding = Binding(sim.pr, "w-2", "orch-1", watched_since=at(300))
    sim.comment("IC_after", "bob", at(310), "After the new bind.")
    sim.poll(at(320))
    assert ([("skip", "baseline")], ["IC_after"]) == (outcomes(sim, "IC_gap"), sim.woken())


def test_a_rebind_never_decides_again_what_the_old_watch_decided(make_sim: Any, at: Any) -> None:
    sim = watched(make_sim, at(0))
    sim.comment("IC_1", "bob", at(30), "Decided under the first watch.")
    sim.poll(at(40))
    # Watched again 20 s later: IC_1 is within the new watch's allowance.
    sim.binding = Binding(sim.pr, "w-1", "orch-1", watched_since=at(60))
    sim.poll(at(70))
    assert [("wake", "writer")] == outcomes(sim, "IC_1")
