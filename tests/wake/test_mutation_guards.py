"""Cases found while proving the core (the mutation script and the stateful model test).

The first was a bug the stateful model test found (fixed in 9b75e5a): a comment listed
late behind a full window of comments already seen was never read.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from comment_wake.wake.testing import WakeSim

At = Callable[..., datetime]
MakeSim = Callable[..., WakeSim]


def list_by_creation_time(sim: WakeSim) -> None:
    """GitHub lists a connection by creation time, so a late comment sorts behind newer ones."""
    sim.items = dict(sorted(sim.items.items(), key=lambda kv: kv[1].item.created_at))


def test_comment_listed_late_behind_a_full_window_already_seen_is_still_delivered(
    make_sim: MakeSim, at: At
) -> None:
    """With ``gap_pages = 0`` the seed's rule applies (only what the listing shows is
    delivered); with the gap read the comment is above the floor and within reach."""
    sim = make_sim(gap_pages=3)
    sim.flood("IC_f", 12, "mallory", at(10))
    sim.poll(at(30))  # the window (10 of 12) is seen; the floor stays 5 minutes back
    sim.comment("IC_late", "bob", at(5), "Hold the merge.")  # listed 25 s late
    list_by_creation_time(sim)
    sim.poll(at(60))
    sim.poll(at(120))
    assert ["IC_late"] == sim.woken()


def test_comment_listed_late_behind_a_window_that_is_not_full_is_delivered(
    make_sim: MakeSim, at: At
) -> None:
    """The same late listing with room in the window: the grace window delivers it."""
    sim = make_sim()
    sim.flood("IC_f", 6, "mallory", at(10))
    sim.poll(at(30))
    sim.comment("IC_late", "bob", at(5), "Hold the merge.")
    list_by_creation_time(sim)
    sim.poll(at(60))
    assert ["IC_late"] == sim.woken()


def test_more_handled_than_the_capacity_inside_the_window_raises_the_floor(
    make_sim: MakeSim, at: At
) -> None:
    """70 comments handled within the floor lag, 8 per poll so no listing is ever full:
    the floor rises to the 6th oldest so the 64 handled above it are all kept by id."""
    sim = make_sim()
    for start in range(1, 71, 8):
        for n in range(start, min(start + 8, 71)):
            sim.comment(f"IC_{n}", "mallory", at(n), f"text {n}")
        sim.poll(at(start + 8))
    mark = sim.current_mark()
    assert mark is not None
    expected = (at(6), [f"IC_{n}" for n in range(7, 71)])
    assert expected == (mark.floor, [h.id for h in mark.handled])
