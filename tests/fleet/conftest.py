"""Fleet daemons in process: ``open_app`` on a PostgreSQL URL (``postgres_url``: a
schema of its own per test, holding a migrated empty store), FakeGitHub's transport and a
``VirtualClock``, with host leases of 1 s renewed every 0.3 s (so a lapse takes a second
of virtual time)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from comment_wake.app import App, open_app
from comment_wake.config import AppConfig
from review_monitor import Delivered, Notice, PrRef
from review_monitor.testing import FakeGitHub, VirtualClock

TOKEN = "ghp_FleetTestSentinel0123456789abcdefghij"
TTL = timedelta(seconds=1)
RENEW = timedelta(seconds=0.3)
PR = PrRef("octo", "repo", 1)


def fleet_config(
    url: str,
    host_id: str | None = "h1",
    *,
    ttl: timedelta = TTL,
    renew: timedelta = RENEW,
    **extra: Any,
) -> AppConfig:
    """A configuration in fleet mode on ``url``, with the tests' short leases (or the
    ``ttl`` and ``renew`` given)."""
    fleet: dict[str, Any] = {"lease_ttl": ttl, "lease_renew": renew}
    if host_id is not None:
        fleet["host_id"] = host_id
    return AppConfig.model_validate({"store": {"url": url}, "fleet": fleet, **extra})


@dataclass
class Fleet:
    """One FakeGitHub and one virtual clock, for the daemons of a fleet."""

    tmp: Path
    url: str
    clock: VirtualClock
    fake: FakeGitHub

    def state(self, name: str = "host-a") -> Path:
        return self.tmp / name

    def open(
        self,
        state: Path | None = None,
        host_id: str | None = "h1",
        *,
        ttl: timedelta = TTL,
        **kwargs: Any,
    ) -> AbstractAsyncContextManager[App]:
        """A daemon of this fleet (``open_app``); its leases last ``ttl``, renewed at a
        third of it (a test that loses no host may take long ones: fewer renewals)."""
        return open_app(
            fleet_config(self.url, host_id, ttl=ttl, renew=ttl * 0.3),
            state_dir=state or self.state(),
            token=TOKEN,
            transport=self.fake.transport(),
            clock=self.clock,
            **kwargs,
        )


class Inboxes:
    """The notices each host's in-process publisher (the callback ``inbox``) was handed,
    by host."""

    def __init__(self) -> None:
        self.by_host: dict[str, list[Notice]] = {"h1": [], "h2": []}

    def callback(self, host: str) -> Callable[[Notice], Delivered]:
        def deliver(notice: Notice) -> Delivered:
            self.by_host[host].append(notice)
            return Delivered()

        return deliver

    def authors(self, host: str) -> list[tuple[str, str]]:
        """``(worker, author)`` of each item handed to ``host``."""
        return [(n.worker, i.author) for n in self.by_host[host] for i in n.items]


@asynccontextmanager
async def daemon(
    fleet: Fleet, host: str, inboxes: Inboxes, *, ttl: timedelta = TTL
) -> AsyncIterator[App]:
    """Host ``host``'s daemon (``open_app``), its state directory ``state-<host>``, its
    notices to ``inboxes``; its leases last ``ttl``, renewed at a third of it."""
    async with open_app(
        fleet_config(fleet.url, host, ttl=ttl, renew=ttl * 0.3),
        state_dir=fleet.state(f"state-{host}"),
        token=TOKEN,
        transport=fleet.fake.transport(host),  # its requests are recorded as ``via`` host
        clock=fleet.clock,
        callbacks={"inbox": inboxes.callback(host)},
    ) as app:
        yield app


def new_fleet(tmp: Path, url: str) -> Fleet:
    """A fleet in ``tmp`` on the store ``url``: a fresh clock and FakeGitHub with PR
    octo/repo#1, where alice may write."""
    clock = VirtualClock(datetime(2026, 3, 2, 9, 0, tzinfo=UTC))
    fake = FakeGitHub(clock=clock, viewer="octo-worker", token=TOKEN)
    fake.add_pr("octo/repo", 1, title="Fix the cache")
    fake.set_permission("octo/repo", "alice", "write")
    return Fleet(tmp, url, clock, fake)


@pytest.fixture
def fleet(tmp_path: Path, postgres_url: str) -> Fleet:
    return new_fleet(tmp_path, postgres_url)
