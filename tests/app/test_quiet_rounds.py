"""A round costs what changed (issue 26): the whole app on FakeGitHub and a virtual clock,
six PRs each bound to its own worker and swept (batches of two, so the sweep runs).

A quiet round reads the registry version twice (the poller's watch list, the wake's
bindings) and nothing else per PR: no look, no mark read.  A change to one PR looks at
that PR alone, and an archive between rounds is looked at by the round's end.
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import anyio
import pytest

from comment_wake.app import App, open_app
from comment_wake.config import AppConfig
from comment_wake.events import CommentDecided, PollRound
from comment_wake.events.testing import EventRecorder
from comment_wake.registry import CallbackSpec
from comment_wake.wake import WakeConfig
from review_monitor import Delivered, MonitorConfig, Notice, PrRef
from review_monitor.testing import FakeGitHub, VirtualClock

pytestmark = pytest.mark.anyio

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
TOKEN = "ghp_QuietRoundsSentinel0123456789abcdefghij"
PRS = 6
MINUTE = timedelta(minutes=1)
# What the app reads on its own beats, whatever the number of PRs, not part of a round:
# the housekeeping's operator requests (every two seconds) and the delivery loop's scan
# of the outbox (every ``[delivery] scan_interval``).
BACKGROUND = {"read_records", "due", "next_due_at", "next_reaction_at", "next_post_at"}


class World:
    def __init__(self, tmp: Path) -> None:
        self.clock = VirtualClock(T0)
        self.fake = FakeGitHub(clock=self.clock, viewer="octo-worker", token=TOKEN)
        self.fake.set_permission("octo/repo", "alice", "write")
        self.prs = [self.fake.add_pr("octo/repo", n, title=f"PR {n}") for n in range(1, PRS + 1)]
        self.state = tmp / "state"
        self.events = EventRecorder()
        self.reads: Counter[str] = Counter()
        self.looked: list[PrRef] = []

    def deliver(self, notice: Notice) -> Delivered:
        return Delivered()

    def rounds(self) -> int:
        return sum(1 for e in self.events.events if isinstance(e, PollRound))

    async def until(self, pred: Callable[[], bool]) -> None:
        await self.clock.settle()
        while not pred():
            deadline = self.clock.next_deadline()
            assert deadline is not None
            await self.clock.advance_to(deadline)

    async def next_round(self) -> tuple[Counter[str], list[PrRef]]:
        """Run one more round; the store reads (by the function that read) and the looks
        it made."""
        start = self.rounds()
        self.reads.clear()
        self.looked.clear()
        await self.until(lambda: self.rounds() > start)
        reads = Counter({k: n for k, n in self.reads.items() if k not in BACKGROUND})
        return reads, list(self.looked)

    @asynccontextmanager
    async def running(self) -> AsyncIterator[App]:
        # A second comment within ten minutes is held by the rate limit.
        config = AppConfig(
            monitor=MonitorConfig(batch_size=2), wake=WakeConfig(wake_min_gap=10 * MINUTE)
        )
        async with open_app(
            config,
            state_dir=self.state,
            token=TOKEN,
            transport=self.fake.transport(),
            clock=self.clock,
            callbacks={"manager": self.deliver},
        ) as app:
            assert app.registry is not None
            app.registry.add_orchestrator("lead", CallbackSpec("manager"))
            for n, pr in enumerate(self.prs, 1):
                app.registry.bind(
                    f"w-{n}", pr, orchestrator="lead", publisher=CallbackSpec("manager")
                )
            app.subscribe(self.events)
            self._count(app)
            async with anyio.create_task_group() as tg:
                tg.start_soon(app.run)
                await self.until(lambda: self.rounds() >= 3)  # baseline, then settled
                yield app
                tg.cancel_scope.cancel()

    def _count(self, app: App) -> None:
        # Every read transaction of the one store (the registry reads through it too),
        # named by the function that opened it.
        sync = app.monitor.store.sync
        read = sync.read

        def counted() -> Any:
            self.reads[sys._getframe(1).f_code.co_name] += 1
            return read()

        sync.read = counted  # type: ignore[method-assign]
        look = app.wake._look

        async def looked(pr: PrRef, *args: Any) -> Any:
            self.looked.append(pr)
            return await look(pr, *args)

        app.wake._look = looked  # type: ignore[method-assign]


@pytest.fixture
def world(tmp_path: Path) -> World:
    return World(tmp_path)


async def test_a_quiet_round_reads_the_registry_version_twice_and_looks_at_nothing(
    world: World,
) -> None:
    async with world.running():
        calls, looked = await world.next_round()
    assert ({"registry_version": 2}, []) == (dict(calls), looked)


async def test_a_new_comment_is_looked_at_on_its_pr_alone(world: World) -> None:
    async with world.running():
        world.fake.post_comment(world.prs[3], "alice", "please rename the widget")
        _, looked = await world.next_round()
    assert [world.prs[3]] == looked


async def test_a_look_reads_its_marks_once_each_and_no_registry_record(world: World) -> None:
    async with world.running():
        world.fake.post_comment(world.prs[3], "alice", "please rename the widget")
        reads, _ = await world.next_round()
    # The wake's mark with any release request, the monitor notices' mark with the watch
    # start; the registry's records stay in the snapshot.
    looks = ("_look_reads", "_load", "snapshot")
    assert {"_look_reads": 1, "_load": 1, "snapshot": 0} == {k: reads[k] for k in looks}


async def test_an_archive_decides_the_held_comments_at_the_next_round_end(
    world: World,
) -> None:
    async with world.running() as app:
        assert app.registry is not None
        for text in ("please rename the widget", "and the gadget"):
            world.fake.post_comment(world.prs[1], "alice", text)
            await world.next_round()
        app.registry.archive("w-2")
        await world.next_round()
        await world.clock.settle()
        archived_at = world.clock.now()
    decided = [
        (e.outcome, e.reason, e.at <= archived_at)
        for e in world.events.events
        if isinstance(e, CommentDecided)
    ]
    assert [
        ("wake", "writer", True),
        ("held", "rate-limit", True),
        ("drop", "unbound", True),
    ] == decided


async def test_status_shows_a_quiet_pr_as_checked_by_the_last_round(world: World) -> None:
    async with world.running() as app:
        await world.next_round()
        report = await app.status()
    last = [e for e in world.events.events if isinstance(e, PollRound)][-1]
    assert (0, [last.at] * PRS) == (last.batches, [p.last_poll for p in report.prs])
