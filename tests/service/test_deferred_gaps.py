"""Fleet mode: a flood's gap pages beyond the first wait on the identity's gap bucket and
shared budget (issue 28, section 5).  A refused page defers the read: the span is recorded
as deferred, stays above the floor, and a later look reads it, so nothing is lost."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from comment_wake.events import CommentDecided
from comment_wake.service import describe_gap, read_gaps
from comment_wake.service.testing import ServiceRig
from comment_wake.wake import WakeConfig, decode_mark

pytestmark = pytest.mark.anyio

MINUTE = timedelta(minutes=1)


class Gate:
    """The gap pages gate, opened and closed by the test; counts what it was asked."""

    def __init__(self) -> None:
        self.open = False
        self.asked = 0

    async def __call__(self, now: datetime) -> bool:
        self.asked += 1
        return self.open


BOB_AT = datetime(2026, 1, 5, 9, 1, tzinfo=UTC)  # the rig starts at 9:00


async def _bob_behind_a_flood(tmp_path: Path, gate: Gate) -> ServiceRig:
    """bob's comment, then 250 of mallory's: reaching bob takes three gap pages, of which
    the gate refuses every one beyond the first."""
    rig = ServiceRig(tmp_path, config=WakeConfig(gap_pages=5), gap_pages=gate)
    rig.fake.set_permission(rig.pr.repo, "bob", "write")
    await rig.poll()
    await rig.clock.advance(MINUTE)
    assert BOB_AT == rig.clock.now()
    rig.fake.post_comment(rig.pr, "bob", "Hold the merge.", node_id="IC_bob", at=BOB_AT)
    for n in range(250):
        await rig.clock.advance(timedelta(milliseconds=100))
        rig.fake.post_comment(
            rig.pr, "mallory", f"spam {n}", node_id=f"IC_m{n}", at=rig.clock.now()
        )
    await rig.clock.advance(MINUTE)
    await rig.poll()
    return rig


def _bob_decided(rig: ServiceRig) -> list[str]:
    return [
        e.outcome
        for e in rig.events.events
        if isinstance(e, CommentDecided) and e.comment == "IC_bob"
    ]


async def test_a_refused_gap_page_records_the_gap_as_deferred_after_the_first_page(
    tmp_path: Path,
) -> None:
    rig = await _bob_behind_a_flood(tmp_path, Gate())
    gaps = read_gaps(rig.store.sync, rig.pr)
    await rig.aclose()
    assert [("comments", 1, True)] == [(g.connection, g.pages_read, g.deferred) for g in gaps]


async def test_a_deferred_gap_leaves_its_comment_undecided_for_now(tmp_path: Path) -> None:
    rig = await _bob_behind_a_flood(tmp_path, Gate())
    decided = _bob_decided(rig)
    await rig.aclose()
    assert [] == decided


async def test_a_deferred_gap_keeps_the_floor_below_the_span_it_left_unread(
    tmp_path: Path,
) -> None:
    rig = await _bob_behind_a_flood(tmp_path, Gate())
    blob = rig.stored_mark()
    await rig.aclose()
    assert blob is not None
    floor = decode_mark(blob).floor
    assert floor is not None
    assert floor < BOB_AT


async def test_a_deferred_gap_is_read_at_its_timer_once_pages_are_allowed_and_bob_wakes(
    tmp_path: Path,
) -> None:
    gate = Gate()
    rig = await _bob_behind_a_flood(tmp_path, gate)
    due = rig.wake.due(rig.pr)
    assert due is not None
    gate.open = True
    await rig.clock.advance(due - rig.clock.now())
    await rig.wake.look(rig.pr, rig.clock.now())
    decided = _bob_decided(rig)
    await rig.aclose()
    assert ["wake"] == decided


async def test_without_a_gate_a_single_host_reads_the_whole_gap_at_once(tmp_path: Path) -> None:
    rig = ServiceRig(tmp_path, config=WakeConfig(gap_pages=5))
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
    decided, gaps = _bob_decided(rig), read_gaps(rig.store.sync, rig.pr)
    await rig.aclose()
    assert (["wake"], ()) == (decided, gaps)


async def test_a_deferred_gap_read_again_decides_no_comment_twice(tmp_path: Path) -> None:
    gate = Gate()
    rig = await _bob_behind_a_flood(tmp_path, gate)
    due = rig.wake.due(rig.pr)
    assert due is not None
    gate.open = True
    await rig.clock.advance(due - rig.clock.now())
    await rig.wake.look(rig.pr, rig.clock.now())
    decided = Counter(e.comment for e in rig.events.events if isinstance(e, CommentDecided))
    await rig.aclose()
    assert (251, {1}) == (len(decided), set(decided.values()))


async def test_a_deferred_gap_is_described_as_read_later(tmp_path: Path) -> None:
    rig = await _bob_behind_a_flood(tmp_path, Gate())
    (gap,) = read_gaps(rig.store.sync, rig.pr)
    await rig.aclose()
    assert "the gap read was deferred after 1 page(s)" in describe_gap(gap)
