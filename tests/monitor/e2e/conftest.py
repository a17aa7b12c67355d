"""End to end: the assembled ``Monitor`` against FakeGitHub over real loopback HTTP.

Time is a ``VirtualClock`` shared by the monitor and FakeGitHub.  HTTP over loopback is
real I/O that the virtual clock cannot see, so ``World.run_until`` moves time one
deadline at a time and, before each step, waits in real time until no request is in
flight and the monitor sleeps on the clock again.  (A poll in flight has no sleeper,
but the monitor's other loops do: without the count of requests in flight, a loaded
machine moved the clock on while FakeGitHub was still to stamp a request.)
"""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from contextlib import asynccontextmanager
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import anyio
import pytest

from review_monitor import GitHubConfig, Monitor, MonitorConfig, MonitorEvent, Notice, PrRef
from review_monitor.github import RetryPolicy
from review_monitor.store import OutboxEntry, Store, SyncStore
from review_monitor.testing import FakeGitHub, InFlightTransport, InMemoryPublisher, VirtualClock

# A recognisable token: no log line may ever carry it.
TOKEN = "ghp_E2Esentinel0123456789abcdefghijklmnopq"
IDLE_TIMEOUT = 20.0  # real seconds a poll may take before the test gives up


class World:
    """FakeGitHub served over loopback, a virtual clock, a store path, and helpers."""

    def __init__(self, fake: FakeGitHub, clock: VirtualClock, base_url: str, path: Path) -> None:
        self.fake = fake
        self.clock = clock
        self.base_url = base_url
        self.store_path = path
        self.publisher = InMemoryPublisher()
        self.committed: list[str] = []  # every notice key the listeners tried to enqueue
        self.transports: list[InFlightTransport] = []  # the transport of each monitor made

    def config(self, **overrides: Any) -> MonitorConfig:
        return MonitorConfig(**overrides)

    @asynccontextmanager
    async def monitor(
        self,
        config: MonitorConfig | None = None,
        *,
        timeout: str = "30s",
        retry: RetryPolicy | None = None,
        token: str | None = TOKEN,
        on_event: Callable[[MonitorEvent], None] | None = None,
    ) -> AsyncIterator[Monitor]:
        transport = InFlightTransport()
        self.transports.append(transport)
        monitor = Monitor(
            store_path=self.store_path,
            github=GitHubConfig.model_validate({"api_url": self.base_url, "timeout": timeout}),
            transport=transport,
            config=config or MonitorConfig(),
            clock=self.clock,
            token=token,
            retry=retry or RetryPolicy(attempts=2),
            on_event=on_event,
        )
        async with monitor:
            yield monitor

    @asynccontextmanager
    async def running(self, monitor: Monitor) -> AsyncIterator[Monitor]:
        """``monitor.run()`` in a task group, cancelled (a clean stop) on leaving."""
        async with anyio.create_task_group() as tg:
            tg.start_soon(monitor.run)
            await self.idle()
            yield monitor
            tg.cancel_scope.cancel()

    async def watch(self, prs: Sequence[PrRef], worker: str = "w") -> None:
        with Store.open(self.store_path) as store:
            for pr in prs:
                store.sync.add_watch(f"{worker}-{pr.name}-{pr.number}", pr, at=self.clock.now())

    async def idle(self) -> None:
        """Wait (real time) until no request is in flight, some task sleeps on the virtual
        clock, and all else rests."""
        deadline = time.monotonic() + IDLE_TIMEOUT
        while True:
            await self.clock.settle()
            if self.clock.sleepers and not any(t.in_flight for t in self.transports):
                return
            if time.monotonic() > deadline:
                raise AssertionError("the monitor never went back to sleep")
            await anyio.sleep(0.002)

    async def run_until(self, t: datetime) -> None:
        """Let the monitor run until virtual time ``t``, one deadline at a time."""
        while True:
            await self.idle()
            due = self.clock.next_deadline()
            if due is None or due > t:
                break
            await self.clock.advance_to(due)
        await self.clock.advance_to(t)
        await self.idle()

    async def run_for(self, span: timedelta) -> None:
        await self.run_until(self.clock.now() + span)

    def entries(self) -> tuple[OutboxEntry, ...]:
        with Store.open(self.store_path) as store:
            return store.sync.entries(statuses=("pending", "delivered"))

    async def deliver(self) -> list[Notice]:
        """Hand every due outbox entry to the in-memory publisher, as the delivery loop
        would; returns what was delivered now."""
        out: list[Notice] = []
        now = self.clock.now()
        with Store.open(self.store_path) as store:
            while due := store.sync.due(now):
                for entry in due:
                    await self.publisher.publish(entry.notice)
                    store.sync.mark_delivered(entry.seq, at=now)
                    out.append(entry.notice)
        return out

    def badge_requests(self) -> list[datetime]:
        return [r.at for r in self.fake.requests if r.kind == "badge"]


@pytest.fixture
def clock() -> VirtualClock:
    return VirtualClock()


@pytest.fixture
def graphql_limit() -> int:
    """FakeGitHub's hourly GraphQL budget (a test parametrizes it to squeeze the poll)."""
    return 5000


@pytest.fixture
def fake(clock: VirtualClock, graphql_limit: int) -> FakeGitHub:
    return FakeGitHub(clock=clock, token=TOKEN, hang_seconds=1.5, graphql_limit=graphql_limit)


@pytest.fixture
async def world(
    fake: FakeGitHub, clock: VirtualClock, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[World]:
    w = World(fake, clock, "", tmp_path / "state.db")
    original = SyncStore.commit

    def spy(self: SyncStore, *args: Any, **kwargs: Any) -> list[int]:
        w.committed.extend(n.key for n in kwargs.get("notices", ()))
        return original(self, *args, **kwargs)

    monkeypatch.setattr(SyncStore, "commit", spy)
    async with fake.serve() as base_url:
        w.base_url = base_url
        yield w


@pytest.fixture
def logs(caplog: pytest.LogCaptureFixture) -> Iterator[pytest.LogCaptureFixture]:
    caplog.set_level(logging.INFO, logger="review_monitor")
    yield caplog
    assert TOKEN not in caplog.text


@pytest.fixture
def token() -> str:
    return TOKEN
