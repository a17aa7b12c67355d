"""Held comments are read again at their release (issue 13, item 4), an operator may
release them early (issue 14), and a clock stepped backwards holds a wake no longer than
the windows' lengths (issue 13, item 8)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta

from comment_wake.wake import RULES
from comment_wake.wake.testing import WakeSim

At = Callable[..., datetime]
MakeSim = Callable[..., WakeSim]

NAMES = tuple(rule.name for rule in RULES)


def held_sim(make_sim: MakeSim, at: At, **config: object) -> WakeSim:
    """IC_1 wakes at 0:10; IC_2 (bob) is held at 0:30 until 1:10."""
    sim = make_sim(**config)
    sim.comment("IC_1", "bob", at(0), "One.")
    sim.poll(at(10))
    sim.comment("IC_2", "bob", at(20), "Two.")
    sim.poll(at(30))
    return sim


def finals(sim: WakeSim, comment: str) -> list[tuple[str, str]]:
    return [(d.outcome, d.reason) for d in sim.final(comment)]


def test_a_held_comment_deleted_before_its_release_is_dropped_deleted(
    make_sim: MakeSim, at: At
) -> None:
    sim = held_sim(make_sim, at)
    sim.delete("IC_2")
    sim.tick(at(70))
    assert [("drop", "deleted")] == finals(sim, "IC_2")


def test_a_deleted_held_comment_wakes_nobody(make_sim: MakeSim, at: At) -> None:
    sim = held_sim(make_sim, at)
    sim.delete("IC_2")
    sim.tick(at(70))
    assert ["IC_1"] == sim.woken()


def test_a_dropped_deleted_comment_passed_the_rules_before_exists(
    make_sim: MakeSim, at: At
) -> None:
    sim = held_sim(make_sim, at)
    sim.delete("IC_2")
    sim.tick(at(70))
    assert NAMES[: NAMES.index("exists")] == sim.final("IC_2")[0].rules


def test_a_held_comment_minimized_before_its_release_is_skipped_minimized(
    make_sim: MakeSim, at: At
) -> None:
    sim = held_sim(make_sim, at)
    sim.minimize("IC_2")
    sim.tick(at(70))
    assert [("skip", "minimized")] == finals(sim, "IC_2")


def test_a_held_comment_edited_before_its_release_wakes_with_the_current_text(
    make_sim: MakeSim, at: At
) -> None:
    sim = held_sim(make_sim, at)
    sim.edit("IC_2", "Two, edited.")
    sim.tick(at(70))
    assert "Two, edited." in sim.notices[-1].text


def test_a_held_comment_edited_before_its_release_loses_its_old_text(
    make_sim: MakeSim, at: At
) -> None:
    sim = held_sim(make_sim, at)
    sim.edit("IC_2", "Rewritten.")
    sim.tick(at(70))
    assert "Two." not in sim.notices[-1].text


def test_a_held_comment_whose_author_lost_write_access_is_skipped_not_writer(
    make_sim: MakeSim, at: At
) -> None:
    sim = held_sim(make_sim, at)
    sim.permissions["bob"] = "read"
    sim.tick(at(70))
    assert [("skip", "not-writer")] == finals(sim, "IC_2")


def test_the_release_reads_every_held_comment_in_one_reread(make_sim: MakeSim, at: At) -> None:
    sim = held_sim(make_sim, at)
    sim.comment("IC_3", "carol", at(40), "Three.")
    sim.poll(at(50))
    sim.tick(at(70))
    assert ["IC_2", "IC_3"] == sim.rereads


def test_a_failed_reread_keeps_the_comment_held(make_sim: MakeSim, at: At) -> None:
    sim = held_sim(make_sim, at)
    sim.reread_failures = 1
    sim.tick(at(70))  # the read fails: nothing is committed
    assert (["IC_1"], ["IC_2"]) == (sim.woken(), [h.item.id for h in sim.current_mark().held])  # type: ignore[union-attr]


def test_a_failed_reread_is_retried_and_then_released(make_sim: MakeSim, at: At) -> None:
    sim = held_sim(make_sim, at)
    sim.reread_failures = 1
    sim.tick(at(70))
    sim.poll(at(90))
    assert ["IC_1", "IC_2"] == sim.woken()


def test_a_failed_lookup_at_release_keeps_the_comment_held_without_a_decision(
    make_sim: MakeSim, at: At
) -> None:
    sim = held_sim(make_sim, at)
    sim.lookup_failures["bob"] = 1
    sim.tick(at(70))
    assert ([("held", "rate-limit")], ["IC_2"]) == (
        [(d.outcome, d.reason) for d in sim.decisions if d.comment == "IC_2"],
        [h.item.id for h in sim.current_mark().held],  # type: ignore[union-attr]
    )


def test_a_failed_lookup_at_release_is_retried_on_the_schedule(make_sim: MakeSim, at: At) -> None:
    sim = held_sim(make_sim, at)
    sim.lookup_failures["bob"] = 1
    sim.tick(at(70))
    assert at(70) + timedelta(minutes=1) == sim.due()


def test_a_held_comment_woken_after_a_failed_lookup_at_release(make_sim: MakeSim, at: At) -> None:
    sim = held_sim(make_sim, at)
    sim.lookup_failures["bob"] = 1
    sim.tick(at(70))
    sim.tick(at(130))
    assert ["IC_1", "IC_2"] == sim.woken()


def test_a_lookup_failing_at_every_retry_of_a_release_skips_lookup_failed(
    make_sim: MakeSim, at: At
) -> None:
    sim = held_sim(make_sim, at)
    sim.lookup_failures["bob"] = 99
    for minute in (70 / 60, 2.2, 4.3, 8.4, 16.5):
        sim.tick(at(minutes=minute))
    assert [("skip", "lookup-failed")] == finals(sim, "IC_2")


def test_an_operator_release_wakes_before_the_rate_limit_would(make_sim: MakeSim, at: At) -> None:
    sim = held_sim(make_sim, at)
    sim.tick(at(40), release=True)
    assert [("wake", "operator-release")] == finals(sim, "IC_2")


def test_an_operator_release_counts_in_the_rate_limit_windows(make_sim: MakeSim, at: At) -> None:
    sim = held_sim(make_sim, at)
    sim.tick(at(40), release=True)
    assert (at(10), at(40)) == sim.current_mark().wakes  # type: ignore[union-attr]


def test_an_operator_release_reads_the_held_comments_again(make_sim: MakeSim, at: At) -> None:
    sim = held_sim(make_sim, at)
    sim.delete("IC_2")
    sim.tick(at(40), release=True)
    assert [("drop", "deleted")] == finals(sim, "IC_2")


def test_a_release_the_rate_limit_allows_is_a_writer_wake(make_sim: MakeSim, at: At) -> None:
    sim = held_sim(make_sim, at)
    sim.tick(at(70), release=True)
    assert [("wake", "writer")] == finals(sim, "IC_2")


def test_after_the_clock_steps_back_the_next_wake_waits_at_most_the_min_gap(
    make_sim: MakeSim, at: At
) -> None:
    sim = make_sim()
    sim.comment("IC_1", "bob", at(0), "One.")
    sim.poll(at(hours=5))  # woken at 14:00
    sim.comment("IC_2", "bob", at(20), "Two.")
    sim.poll(at(30))  # the clock stepped back five hours: held
    sim.tick(at(90))  # one minute later (the gap), not five hours
    assert ["IC_1", "IC_2"] == sim.woken()


def test_after_the_clock_steps_back_a_wake_holds_the_hour_window_for_its_length(
    make_sim: MakeSim, at: At
) -> None:
    sim = make_sim(wakes_per_hour=1)
    sim.comment("IC_1", "bob", at(0), "One.")
    sim.poll(at(hours=5))
    sim.comment("IC_2", "bob", at(20), "Two.")
    sim.poll(at(30))  # the clock stepped back: the future wake counts as made now
    assert at(30) + timedelta(minutes=60) == sim.due()
