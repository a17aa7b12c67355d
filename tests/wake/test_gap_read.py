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
    assert [("comments", mark_floor, 20)] == [
        (g.connection, g.stop, g.max_pages) for g in sim.gap_reads
    ]


def test_gap_read_bound_hit_skips_the_rest_with_one_warning(make_sim: MakeSim, at: At) -> None:
    sim = make_sim(gap_pages=1)
    sim.comment("IC_pushed", "bob", at(0), "Hold the merge.")
    sim.flood("IC_f", 250, "mallory", at(1))
    sim.comment("IC_after", "bob", at(300), "Also rename the flag.")
    sim.poll(at(330))
    sim.delete_prefix("IC_f")
    sim.poll(at(400))
    warnings = [line for line in sim.logs if line.level == "warning"]
    assert (["IC_after"], [], 1) == (sim.woken(), outcomes(sim, "IC_pushed"), len(warnings))


def test_gap_read_bound_hit_warning_gives_counts_and_times(make_sim: MakeSim, at: At) -> None:
    sim = make_sim(gap_pages=1)
    sim.flood("IC_f", 250, "mallory", at(1))
    sim.poll(at(330))
    # 250 flood comments: the window lists the last 10, one page reads 100 behind it,
    # back to the 141st (created at 141 s); the last look saw everything to the floor.
    expected = (
        "a flood on octo-org/octo-repo#12 outran the comments gap read: 100 comments read "
        "in 1 of 1 pages allowed (1 pages a poll, 1 of 200 pages in the last hour); it "
        "reached back to 2025-06-02T09:02:21Z, not to 2025-06-02T08:54:00Z, so comments "
        "created between 2025-06-02T08:54:00Z and 2025-06-02T09:02:21Z may have been skipped"
    )
    assert [("warning", expected)] == [(line.level, line.message) for line in sim.logs]


def test_gap_read_off_keeps_the_seed_info_line(make_sim: MakeSim, at: At) -> None:
    sim = make_sim(gap_pages=0)
    sim.flood("IC_f", 15, "mallory", at(10))
    sim.poll(at(60))
    assert ["info"] == [line.level for line in sim.logs]


def test_gap_bound_grows_with_the_stretched_interval(make_sim: MakeSim, at: At) -> None:
    sim = make_sim()
    sim.interval = sim.monitor.poll_interval * 5  # the governor stretched 60 s to 5 min
    sim.flood("IC_f", 15, "mallory", at(10))
    sim.poll(at(60))
    assert [100] == [g.max_pages for g in sim.gap_reads]


def test_gap_bound_is_capped_by_the_hourly_pages_left(make_sim: MakeSim, at: At) -> None:
    sim = make_sim(gap_pages_per_hour=60)
    sim.interval = sim.monitor.poll_interval * 60  # stretched to an hour: 1,200 pages
    sim.flood("IC_a", 5_000, "mallory", at(1), every_s=0)
    sim.poll(at(60))  # reads the 4,990 behind the window in 50 pages
    sim.flood("IC_b", 15, "mallory", at(70))
    sim.poll(at(120))
    assert [60, 10] == [g.max_pages for g in sim.gap_reads]


def test_gap_pages_spent_leave_the_hourly_cap_after_an_hour(make_sim: MakeSim, at: At) -> None:
    sim = make_sim(gap_pages_per_hour=60)
    sim.interval = sim.monitor.poll_interval * 60
    sim.flood("IC_a", 5_000, "mallory", at(1), every_s=0)
    sim.poll(at(60))
    sim.flood("IC_b", 15, "mallory", at(3700))
    sim.poll(at(3720))
    assert [60, 60] == [g.max_pages for g in sim.gap_reads]


def test_gap_cap_spent_skips_with_a_warning(make_sim: MakeSim, at: At) -> None:
    sim = make_sim(gap_pages_per_hour=30)
    sim.flood("IC_a", 5_000, "mallory", at(1), every_s=0)
    sim.poll(at(60))  # the bound is hit: 20 pages, 10 left this hour
    sim.flood("IC_b", 2_000, "mallory", at(400), every_s=0)
    sim.poll(at(420))  # 10 pages, none left
    sim.flood("IC_c", 2_000, "mallory", at(800), every_s=0)
    sim.poll(at(820))
    expected = (
        "a flood on octo-org/octo-repo#12 outran the comments gap read: the 30 gap pages "
        "an hour it may read on this PR are spent (30 in the last hour); it reached back "
        "to 2025-06-02T09:13:20Z, not to 2025-06-02T09:06:40Z, so comments created "
        "between 2025-06-02T09:06:40Z and 2025-06-02T09:13:20Z may have been skipped"
    )
    assert ([20, 10], expected) == ([g.max_pages for g in sim.gap_reads], sim.logs[-1].message)
