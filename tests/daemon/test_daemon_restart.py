"""A restart finds the work an unwatched PR's wake mark still holds and lets the core
decide it (the daemon as a subprocess against FakeGitHub on loopback)."""

from __future__ import annotations

from typing import Any

from comment_wake.registry import Registry


def test_a_comment_held_when_the_worker_was_unbound_is_dropped_at_the_next_start(
    world: Any,
) -> None:
    world.write_config(gap="1h")  # the second comment waits an hour for its wake
    world.bind()
    daemon = world.start()
    daemon.wait_rounds(1)
    world.fake.post_comment(world.pr, "maintainer", "please rename the widget")
    world.wait_until(lambda: len(world.delivered_texts()) == 1, "the first notice")
    held = world.fake.post_comment(world.pr, "maintainer", "and the gadget too")
    daemon.wait_for(lambda m: f"{held}: held (rate-limit)" in m)
    assert 0 == daemon.stop()
    with Registry.open(world.state_dir) as registry:
        registry.unbind(world.worker)
    again = world.start()
    decided = again.wait_for(lambda m: held in m)
    assert f"{world.pr} {held}: drop (unbound)" == decided
    assert 0 == again.stop()
    assert 1 == len(world.delivered_texts())
