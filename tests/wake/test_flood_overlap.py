"""Floods judged by overlap: a listing that shares an id with the last one needs no flood
read, the late-listing check reads one page a ``floor_lag``, and what no read covers is a
recorded ``FloodGap`` (issue 25, item 1)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta

from comment_wake.wake import FloodGap, decode_mark
from comment_wake.wake.testing import WakeSim

At = Callable[..., datetime]
MakeSim = Callable[..., WakeSim]


def trickle(sim: WakeSim, at: At, start_s: int, minutes: int) -> int:
    """mallory comments every 10 s and the PR is looked at after each (a hinted look);
    returns the next free second."""
    t = start_s
    for n in range(minutes * 6):
        sim.comment(f"IC_t{t}_{n}", "mallory", at(t), "lgtm")
        sim.poll(at(t + 1))
        t += 10
    return t


def test_a_trickle_spends_nothing_of_the_hourly_flood_budget(make_sim: MakeSim, at: At) -> None:
    sim = make_sim()
    trickle(sim, at, 0, 40)
    assert sim.mark is not None
    assert () == decode_mark(sim.mark).gap_spent


def test_the_late_listing_check_reads_one_page_per_floor_lag(make_sim: MakeSim, at: At) -> None:
    sim = make_sim()
    trickle(sim, at, 0, 40)
    # 40 minutes of looks every 10 s: one page at most every 5 minutes (the floor lag).
    expected = [1] * 8
    assert expected == [g.max_pages for g in sim.gap_reads]


def test_a_writer_pushed_out_after_a_long_trickle_is_still_woken(make_sim: MakeSim, at: At) -> None:
    sim = make_sim()
    t = trickle(sim, at, 0, 35)
    sim.comment("IC_writer", "bob", at(t), "Stop: the migration is wrong.")
    sim.flood("IC_burst", 10, "mallory", at(t + 1))
    sim.poll(at(t + 20))
    assert (["IC_writer"], []) == (sim.woken(), sim.flood_gaps)


def test_a_comment_listed_late_behind_an_overlapping_window_is_found_by_the_late_check(
    make_sim: MakeSim, at: At
) -> None:
    sim = make_sim()
    t = trickle(sim, at, 0, 6)  # the late-listing check read its page at 6:42
    sim.comment("IC_late", "bob", at(t), "Please also bump the version.", listed=False)
    t = trickle(sim, at, t + 1, 2)  # the window moves past it before GitHub lists it
    sim.items["IC_late"].listed = True
    trickle(sim, at, t, 4)  # the next check, at 11:42, reads back to 1:42
    assert ["IC_late"] == sim.woken()


def test_a_flood_the_bound_cannot_read_over_records_a_gap(make_sim: MakeSim, at: At) -> None:
    sim = make_sim(gap_pages=1)
    sim.flood("IC_f", 250, "mallory", at(1))
    sim.poll(at(330))
    expected = FloodGap(
        at=at(330),
        pr=sim.pr,
        connection="comments",
        start=at(-60) - timedelta(minutes=5),
        end=at(141),
        pages_read=1,
        pages_allowed=1,
    )
    assert [expected] == sim.flood_gaps


def test_a_flood_with_the_gap_read_off_records_a_gap_with_no_pages(
    make_sim: MakeSim, at: At
) -> None:
    sim = make_sim(gap_pages=0)
    sim.flood("IC_f", 15, "mallory", at(10))
    sim.poll(at(60))
    assert [("comments", at(15), 0, 0)] == [
        (g.connection, g.end, g.pages_read, g.pages_allowed) for g in sim.flood_gaps
    ]


def test_a_flood_the_gap_read_covers_records_no_gap(make_sim: MakeSim, at: At) -> None:
    sim = make_sim()
    sim.flood("IC_f", 15, "mallory", at(10))
    sim.poll(at(60))
    assert [] == sim.flood_gaps
