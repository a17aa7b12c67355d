"""A stranger's comment is decided before any of the fence's rendering runs: the raw
``blank`` check is one linear scan, and only a writer's comment is cleaned or fenced
(issue: a 64 KiB ``](`` comment once cost the daemon half a minute of CPU, from anyone)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from types import FrameType
from typing import Any

import pytest

from comment_wake.service.testing import ServiceRig

pytestmark = pytest.mark.anyio

# The fence's only code a stranger's text may reach: the raw blank check.
_ALLOWED = {"is_blank", "<module>"}


@contextmanager
def _fence_calls() -> Iterator[list[str]]:
    """The names of the fence's Python functions called inside the block."""
    calls: list[str] = []

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        if event == "call" and "untrusted_fence" in frame.f_code.co_filename:
            calls.append(frame.f_code.co_name)

    sys.setprofile(profile)
    try:
        yield calls
    finally:
        sys.setprofile(None)


async def _decide(rig: ServiceRig, author: str, body: str) -> list[str]:
    await rig.poll()
    await rig.clock.advance(timedelta(seconds=10))
    rig.fake.post_comment(rig.pr, author, body, node_id="IC_1")
    await rig.clock.advance(timedelta(minutes=1))
    with _fence_calls() as calls:
        await rig.poll()
    return calls


async def test_a_strangers_64_kib_link_flood_is_decided_not_writer_without_fencing(
    rig: ServiceRig,
) -> None:
    calls = await _decide(rig, "mallory", "](" * 32_768)
    assert [("IC_1", "skip", "not-writer")] == rig.events.outcomes()
    assert set() == set(calls) - _ALLOWED


async def test_a_writers_comment_is_fenced(rig: ServiceRig) -> None:
    # The probe above sees the fence when it runs: a writer's comment is fenced.
    calls = await _decide(rig, "bob", "Please rebase.")
    assert [("IC_1", "wake", "writer")] == rig.events.outcomes()
    assert "fence" in calls


async def test_a_strangers_hidden_only_comment_is_not_writer_not_blank(rig: ServiceRig) -> None:
    await _decide(rig, "mallory", "<!-- only a hidden note -->")
    assert [("IC_1", "skip", "not-writer")] == rig.events.outcomes()


async def _review_points(rig: ServiceRig, author: str, inline: int) -> int:
    """The GraphQL points of detail reads spent deciding one review with ``inline`` inline
    comments."""
    await rig.poll()
    await rig.clock.advance(timedelta(seconds=10))
    rig.fake.post_review(
        rig.pr,
        author,
        body="A few notes.",
        inline=[("src/app.py", n, f"nit {n}") for n in range(1, inline + 1)],
        node_id="PRR_1",
    )
    await rig.clock.advance(timedelta(minutes=1))
    rig.fake.clear_requests()
    await rig.poll()
    return sum(r.cost for r in rig.fake.requests if r.kind == "detail")


async def test_a_strangers_review_of_1100_inline_comments_costs_at_most_two_detail_points(
    rig: ServiceRig,
) -> None:
    points = await _review_points(rig, "mallory", 1_100)
    assert [("PRR_1", "skip", "not-writer")] == rig.events.outcomes()
    assert points <= 2, f"{points} detail points"


async def test_a_writers_review_is_read_in_full_before_it_wakes(rig: ServiceRig) -> None:
    await _review_points(rig, "bob", 45)  # three pages of 20
    texts = [e.notice.text for e in rig.store.sync.entries(statuses=("pending",))]
    assert (True, [("PRR_1", "wake", "writer")]) == (
        any("nit 45" in t for t in texts),
        rig.events.outcomes(),
    )


async def test_a_writers_review_blank_on_its_first_page_wakes_with_its_later_text(
    rig: ServiceRig,
) -> None:
    await rig.poll()
    await rig.clock.advance(timedelta(seconds=10))
    blank_page = [("src/app.py", n, "\u200b") for n in range(1, 21)]  # the first 20: invisible
    rig.fake.post_review(
        rig.pr, "bob", body="", inline=[*blank_page, ("src/app.py", 21, "rename this")]
    )
    await rig.clock.advance(timedelta(minutes=1))
    await rig.poll()
    [entry] = rig.store.sync.entries(statuses=("pending",))
    assert (["wake"], True) == (
        [outcome for _, outcome, _ in rig.events.outcomes()],
        "rename this" in entry.notice.text,
    )
