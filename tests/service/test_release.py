"""Held comments at their release, through the real service (issue 13, item 4; issue 14's
``release``): one fresh re-read, never the prefetched bodies; the permission asked again
only past the cache's lifetime; a failed re-read keeps them held; a recorded release
request is applied by the next look and deleted with the mark it moves."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator, Sequence
from datetime import timedelta
from pathlib import Path

import pytest

from comment_wake.service import CommentWake
from comment_wake.service.testing import ServiceRig
from comment_wake.store import release_requests, request_release
from comment_wake.wake import WakeConfig, decode_mark
from review_monitor import ItemDetail, Observation
from review_monitor.testing import Fault

pytestmark = pytest.mark.anyio

MINUTE = timedelta(minutes=1)


@pytest.fixture
async def held(tmp_path: Path) -> AsyncIterator[ServiceRig]:
    """bob's IC_1 woke the worker; carol's IC_2 is held for 15 minutes (longer than the
    ten-minute permission cache)."""
    rig = ServiceRig(tmp_path, config=WakeConfig(wake_min_gap=timedelta(minutes=15)))
    for login in ("bob", "carol"):
        rig.fake.set_permission(rig.pr.repo, login, "write")
    await rig.poll()  # the baseline
    await rig.clock.advance(timedelta(seconds=10))
    rig.fake.post_comment(rig.pr, "bob", "One.", node_id="IC_1", at=rig.clock.now())
    await rig.clock.advance(MINUTE)
    await rig.poll()
    rig.fake.post_comment(rig.pr, "carol", "Two.", node_id="IC_2", at=rig.clock.now())
    await rig.clock.advance(MINUTE)
    await rig.poll()
    yield rig
    await rig.aclose()


def held_ids(rig: ServiceRig) -> list[str]:
    blob = rig.stored_mark()
    assert blob is not None
    return [h.item.id for h in decode_mark(blob).held]


async def release_time(rig: ServiceRig) -> None:
    """Move to the held comment's release, without a poll."""
    due = rig.wake.due(rig.pr)
    assert due is not None
    await rig.clock.advance(due - rig.clock.now())


async def test_a_failed_reread_at_release_keeps_the_comment_held(held: ServiceRig) -> None:
    await release_time(held)
    held.fake.inject(Fault(status=502, kind="detail"))
    await held.wake.look(held.pr, held.clock.now())
    assert (["IC_2"], [("IC_1", "wake", "writer"), ("IC_2", "held", "rate-limit")]) == (
        held_ids(held),
        held.events.outcomes(),
    )


async def test_a_failed_reread_at_release_warns_that_nothing_was_decided(held: ServiceRig) -> None:
    await release_time(held)
    held.fake.inject(Fault(status=502, kind="detail"))
    await held.wake.look(held.pr, held.clock.now())
    warnings = [line.message for line in held.events.lines if line.level == "warning"]
    assert 1 == sum("held comments at their release" in w for w in warnings)


async def test_after_a_failed_reread_the_next_poll_releases_the_comment(held: ServiceRig) -> None:
    await release_time(held)
    held.fake.inject(Fault(status=502, kind="detail"))
    await held.wake.look(held.pr, held.clock.now())
    await held.clock.advance(MINUTE)
    await held.poll()
    assert ("IC_2", "wake", "writer") == held.events.outcomes()[-1]


async def test_a_revoked_author_is_looked_up_again_past_the_cache_lifetime(
    held: ServiceRig,
) -> None:
    held.fake.set_permission(held.pr.repo, "carol", "read")
    await release_time(held)  # 15 minutes after the lookup: the cached answer expired
    await held.wake.look(held.pr, held.clock.now())
    assert ("IC_2", "skip", "not-writer") == held.events.outcomes()[-1]


async def test_a_cached_answer_within_its_lifetime_is_not_asked_again(tmp_path: Path) -> None:
    rig = ServiceRig(tmp_path, config=WakeConfig(wake_min_gap=timedelta(minutes=5)))
    try:
        rig.fake.set_permission(rig.pr.repo, "carol", "write")
        await rig.poll()
        await rig.clock.advance(timedelta(seconds=10))
        for node in ("IC_1", "IC_2"):
            rig.fake.post_comment(rig.pr, "carol", node, node_id=node, at=rig.clock.now())
            await rig.clock.advance(MINUTE)
            await rig.poll()
        asked = rig.fake.count("permission")
        await release_time(rig)
        await rig.wake.look(rig.pr, rig.clock.now())
        assert (asked, ("IC_2", "wake", "writer")) == (
            rig.fake.count("permission"),
            rig.events.outcomes()[-1],
        )
    finally:
        await rig.aclose()


async def test_the_reread_never_comes_from_the_monitors_prefetched_bodies(
    held: ServiceRig,
) -> None:
    asked: list[str] = []

    async def stale(ids: Sequence[str]) -> dict[str, ItemDetail]:
        asked.extend(ids)
        return {i: ItemDetail(i, "comment", "stale text", "u") for i in ids}

    wake = CommentWake(
        store=held.store,
        api=held.client,
        permissions=held.permissions,
        bindings=held.bindings,
        publish=held.events,
        clock=held.clock,
        config=held.config,
        monitor=held.monitor,
        rng=random.Random(0),
        details=stale,
    )
    held.fake.delete("IC_2")
    await held.clock.advance(timedelta(minutes=14))
    badge = await held.badge()
    now = held.clock.now()
    seen = Observation(pr=held.pr, read_at=now, badge=badge, watches=(), interval=MINUTE)
    await wake.observe(seen, now)
    assert ([], ("IC_2", "drop", "deleted")) == (asked, held.events.outcomes()[-1])


async def test_a_recorded_release_request_is_applied_by_the_next_look(held: ServiceRig) -> None:
    request_release(held.store.sync, held.pr, at=held.clock.now())
    await held.clock.advance(timedelta(seconds=5))
    await held.wake.look(held.pr, held.clock.now())
    assert ("IC_2", "wake", "operator-release") == held.events.outcomes()[-1]


async def test_an_applied_release_request_is_deleted(held: ServiceRig) -> None:
    request_release(held.store.sync, held.pr, at=held.clock.now())
    await held.wake.look(held.pr, held.clock.now())
    assert () == release_requests(held.store.sync)


async def test_a_release_request_stays_while_the_reread_fails(held: ServiceRig) -> None:
    request_release(held.store.sync, held.pr, at=held.clock.now())
    held.fake.inject(Fault(status=502, kind="detail"))
    await held.wake.look(held.pr, held.clock.now())
    assert [held.pr] == [r.pr for r in release_requests(held.store.sync)]
