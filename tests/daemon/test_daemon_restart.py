"""A restart finds the work an unwatched PR's wake mark still holds and lets the core
decide it (the daemon in process on virtual time, over one real store)."""

from __future__ import annotations

from typing import Any

import pytest

from comment_wake.registry import Registry

pytestmark = pytest.mark.anyio


async def test_a_comment_held_when_the_worker_was_unbound_is_dropped_at_the_next_start(
    world: Any, logs: Any
) -> None:
    world.write_config(gap="1h")  # the second comment waits an hour for its wake
    world.bind()
    async with world.running():
        world.fake.post_comment(world.pr, "maintainer", "please rename the widget")
        await world.until(lambda: len(world.delivered_texts()) == 1, "the first notice")
        held = world.fake.post_comment(world.pr, "maintainer", "and the gadget too")
        await world.until(
            lambda: any(f"{held}: held (rate-limit)" in m for m in logs.messages()),
            "the second comment held",
        )
    with Registry.open(world.state_dir) as registry:
        registry.unbind(world.worker)
    before = len(logs.messages())
    async with world.running(baseline=False):  # nothing is watched: no poll round
        pass
    decided = next(m for m in logs.messages()[before:] if held in m)
    assert f"{world.pr} {held}: drop (unbound)" == decided
    assert 1 == len(world.delivered_texts())
