"""A flood no read could cover is a recorded gap, which ``status`` and ``explain`` show
(issue 25, item 1)."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from comment_wake.app._explain import render
from comment_wake.app._status import read_status, render_status
from comment_wake.service import read_gaps
from comment_wake.service.testing import ServiceRig
from comment_wake.wake import WakeConfig

pytestmark = pytest.mark.anyio

MINUTE = timedelta(minutes=1)


async def _bob_pushed_out_past_the_bound(tmp_path: Path) -> ServiceRig:
    """bob's comment, then 250 of mallory's; one gap page reads 100 of the 240 behind the
    window, so bob's comment is never listed to the look."""
    rig = ServiceRig(tmp_path, config=WakeConfig(gap_pages=1))
    rig.fake.set_permission(rig.pr.repo, "bob", "write")
    await rig.poll()
    await rig.clock.advance(MINUTE)
    rig.fake.post_comment(rig.pr, "bob", "Hold the merge.", node_id="IC_bob", at=rig.clock.now())
    for n in range(250):
        await rig.clock.advance(timedelta(milliseconds=100))
        rig.fake.post_comment(
            rig.pr, "mallory", f"spam {n}", node_id=f"IC_m{n}", at=rig.clock.now()
        )
    await rig.clock.advance(MINUTE)
    await rig.poll()
    return rig


async def test_a_flood_past_the_bound_is_stored_as_a_gap_with_pages_read_and_allowed(
    tmp_path: Path,
) -> None:
    rig = await _bob_pushed_out_past_the_bound(tmp_path)
    gaps = read_gaps(rig.store.sync, rig.pr)
    await rig.aclose()
    assert [("comments", 1, 1, "flood-gap")] == [
        (g.connection, g.pages_read, g.pages_allowed, g.reason) for g in gaps
    ]


async def test_the_gap_is_published_as_an_event(tmp_path: Path) -> None:
    rig = await _bob_pushed_out_past_the_bound(tmp_path)
    stored = read_gaps(rig.store.sync, rig.pr)
    await rig.aclose()
    published = [e for e in rig.events.events if type(e).__name__ == "FloodGap"]
    assert list(stored) == published


async def test_explain_of_a_comment_with_no_decision_prints_the_prs_gaps(tmp_path: Path) -> None:
    rig = await _bob_pushed_out_past_the_bound(tmp_path)
    gaps = read_gaps(rig.store.sync, rig.pr)
    await rig.aclose()
    text = render(rig.pr, "IC_bob", [], [], gaps)
    assert "octo-org/octo-repo#12 has 1 recorded flood gap(s)" in text
    assert "1 of 1 pages" in text


async def test_status_shows_the_prs_flood_gaps(tmp_path: Path) -> None:
    rig = await _bob_pushed_out_past_the_bound(tmp_path)
    rig.store.sync.add_watch("w-1", rig.pr, at=rig.clock.now())  # status lists watched PRs
    report = read_status(rig.store.sync, rig.config, rig.clock.now())
    await rig.aclose()
    (pr,) = report.prs
    shown = "flood gaps 1; the last: comments created" in render_status(report)
    assert (1, True) == (len(pr.gaps), shown)
