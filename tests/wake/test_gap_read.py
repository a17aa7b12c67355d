"""The gap read: after a flood, read back to the floor so a person's comment is not lost."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from comment_wake.wake.testing import WakeSim

At = Callable[..., datetime]
MakeSim = Callable[..., WakeSim]


def outcomes(sim: WakeSim, comment: str) -> list[tuple[str, str]]:
    return [(d.outcome, d.reason) for d in sim.decisions if d.comment == comment]


def test_gap_read_delivers_a_comment_a_flood_pushed_out_of_the_listing(
    make_sim: MakeSim, at: At
) -> None:
    sim = make_sim()
    sim.comment("IC_pushed", "bob", at(0), "Hold the merge.")
    sim.flood("IC_f", 15, "mallory", at(10))
    sim.comment("IC_after", "bob", at(30), "Also rename the flag.")
    sim.poll(at(60))
    infos = [line for line in sim.logs if line.level == "info"]
    assert (["IC_pushed", "IC_after"], [], 1) == (sim.woken(), infos, len(sim.gap_reads))


def test_gap_read_stops_at_the_floor(make_sim: MakeSim, at: At) -> None:
    sim = make_sim()
    sim.flood("IC_f", 15, "mallory", at(10))
    sim.poll(at(60))
    mark_floor = at(-60) - sim.config.floor_lag
    assert [("comments", "comment-cursor", mark_floor, 3)] == [
        (g.connection, g.cursor, g.stop, g.max_pages) for g in sim.gap_reads
    ]


def test_gap_read_bound_hit_skips_the_rest_with_one_info_line(make_sim: MakeSim, at: At) -> None:
    sim = make_sim(gap_pages=1)
    sim.comment("IC_pushed", "bob", at(0), "Hold the merge.")
    sim.flood("IC_f", 250, "mallory", at(1))
    sim.comment("IC_after", "bob", at(300), "Also rename the flag.")
    sim.poll(at(330))
    sim.delete_prefix("IC_f")
    sim.poll(at(400))
    infos = [line for line in sim.logs if line.level == "info"]
    assert (["IC_after"], [], 1) == (sim.woken(), outcomes(sim, "IC_pushed"), len(infos))


def test_gap_read_flood_and_delete_does_not_redeliver(make_sim: MakeSim, at: At) -> None:
    sim = make_sim()
    sim.comment("IC_old", "bob", at(0), "Deploy to staging.")
    sim.poll(at(30))
    sim.flood("IC_f", 100, "mallory", at(40))
    sim.poll(at(200))
    sim.delete_prefix("IC_f")
    sim.poll(at(400))
    assert [("wake", "writer")] == outcomes(sim, "IC_old")


def test_gap_is_read_again_only_while_a_late_listing_could_hide_behind_the_window(
    make_sim: MakeSim, at: At
) -> None:
    """GitHub may list a comment up to floor_lag late, so a look less than floor_lag after
    the last one reads behind a full window again; a later one does not."""
    sim = make_sim()
    sim.flood("IC_f", 12, "mallory", at(0))
    reads = []
    for t in (20, 120, 330, 400):
        sim.poll(at(t))
        reads.append(len(sim.gap_reads))
    assert [1, 2, 3, 3] == reads


def test_a_timer_step_reads_the_gap_too_while_a_late_listing_could_hide(
    make_sim: MakeSim, at: At
) -> None:
    sim = make_sim()
    sim.lookup_failures["bob"] = 1
    sim.flood("IC_f", 15, "mallory", at(10))
    sim.comment("IC_after", "bob", at(30), "Please rebase.")
    sim.poll(at(60))
    sim.tick(at(120))
    assert (2, ["IC_after"]) == (len(sim.gap_reads), sim.woken())


def test_a_second_gap_read_stops_where_the_last_look_saw_everything(
    make_sim: MakeSim, at: At
) -> None:
    sim = make_sim()
    sim.flood("IC_f", 12, "mallory", at(0))
    sim.poll(at(250))
    sim.poll(at(400))
    # Everything created before the 250 s look less floor_lag was listed by then.
    assert at(250) - sim.config.floor_lag == sim.gap_reads[-1].stop


def test_gap_pages_zero_reads_no_gap(make_sim: MakeSim, at: At) -> None:
    sim = make_sim(gap_pages=0)
    sim.flood("IC_f", 15, "mallory", at(10))
    sim.poll(at(60))
    assert [] == sim.gap_reads
