"""Fleet daemons in process: ``open_app`` on a PostgreSQL URL (``postgres_url``: a
schema of its own per test), FakeGitHub's transport and a ``VirtualClock``, with host
leases of 1 s renewed every 0.3 s (so a lapse takes a second of virtual time)."""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from comment_wake.app import App, open_app
from comment_wake.config import AppConfig
from review_monitor import PrRef
from review_monitor.testing import FakeGitHub, VirtualClock

TOKEN = "ghp_FleetTestSentinel0123456789abcdefghij"
TTL = timedelta(seconds=1)
RENEW = timedelta(seconds=0.3)
PR = PrRef("octo", "repo", 1)


def fleet_config(url: str, host_id: str | None = "h1", **extra: Any) -> AppConfig:
    """A configuration in fleet mode on ``url``, with the tests' short leases."""
    fleet: dict[str, Any] = {"lease_ttl": TTL, "lease_renew": RENEW}
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
        self, state: Path | None = None, host_id: str | None = "h1", **kwargs: Any
    ) -> AbstractAsyncContextManager[App]:
        return open_app(
            fleet_config(self.url, host_id),
            state_dir=state or self.state(),
            token=TOKEN,
            transport=self.fake.transport(),
            clock=self.clock,
            **kwargs,
        )


@pytest.fixture
def fleet(tmp_path: Path, postgres_url: str) -> Fleet:
    clock = VirtualClock(datetime(2026, 3, 2, 9, 0, tzinfo=UTC))
    fake = FakeGitHub(clock=clock, viewer="octo-worker", token=TOKEN)
    fake.add_pr("octo/repo", 1, title="Fix the cache")
    fake.set_permission("octo/repo", "alice", "write")
    return Fleet(tmp_path, postgres_url, clock, fake)
