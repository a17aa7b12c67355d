"""The first look at a newly bound PR (issue 25, item 4; a deliberate departure from the
seed's baseline): the daemon on FakeGitHub with a virtual clock, bound through the real
``Registry`` on the same clock, so the watch's start (``watched_since``) is virtual time
too.  A comment made after the bind, before the daemon's first poll, wakes the worker; one
made more than the clock-skew allowance (2 minutes) before the bind is ``skip baseline``;
a re-bind starts again from its own start."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from comment_wake.registry import InboxSpec, Registry

pytestmark = pytest.mark.anyio

M = timedelta(minutes=1)


def bind(world: Any) -> None:
    with Registry.open(world.state_dir, clock=world.clock) as registry:
        if registry.orchestrator("orch") is None:
            registry.add_orchestrator("orch", InboxSpec())
        registry.bind(world.worker, world.pr, orchestrator="orch", publisher=InboxSpec())


def unbind(world: Any) -> None:
    with Registry.open(world.state_dir, clock=world.clock) as registry:
        registry.unbind(world.worker)


def outcomes(run: Any, comment: str) -> list[tuple[str, str]]:
    return [(d.outcome, d.reason) for d in run.events.decisions if d.comment == comment]


async def test_a_comment_between_bind_and_the_first_poll_wakes_the_worker(world: Any) -> None:
    bind(world)
    await world.clock.advance(30 * timedelta(seconds=1))
    comment = world.fake.post_comment(world.pr, "maintainer", "please rename the widget")
    await world.clock.advance(30 * timedelta(seconds=1))
    async with world.running() as run:
        await world.until(lambda: len(world.delivered_texts()) == 1, "the notice")
    assert [("wake", "writer")] == outcomes(run, comment)


async def test_a_comment_before_the_bind_less_the_allowance_is_skip_baseline(
    world: Any,
) -> None:
    comment = world.fake.post_comment(world.pr, "maintainer", "an old request")
    await world.clock.advance(3 * M)
    bind(world)
    async with world.running() as run:
        await world.rounds(run, 1)
    assert ([("skip", "baseline")], []) == (outcomes(run, comment), world.delivered_texts())


async def test_a_rebind_starts_again_from_its_own_start(world: Any) -> None:
    bind(world)
    async with world.running() as first:
        await world.rounds(first, 1)
    unbind(world)
    unwatched = world.fake.post_comment(world.pr, "maintainer", "while nobody watched")
    await world.clock.advance(5 * M)
    bind(world)
    after = world.fake.post_comment(world.pr, "maintainer", "after the new bind")
    async with world.running() as run:
        await world.until(lambda: len(world.delivered_texts()) == 1, "the notice")
    assert ([("skip", "baseline")], [("wake", "writer")]) == (
        outcomes(run, unwatched),
        outcomes(run, after),
    )
