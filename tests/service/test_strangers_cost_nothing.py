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
