"""Test helpers for the service: fixed bindings, and a rig of real parts around it.

The rig is the service's own unit rig (it builds ``CommentWake`` alone, to inject a
permission checker or a details reader); the whole app is built by
``comment_wake.app.open_app``.  ``ServiceRig`` has the real ``Store``
in a directory, the real ``GitHubClient`` on ``FakeGitHub.transport()``, the real
``Permissions`` and a ``VirtualClock``.  ``poll()`` reads the badge as the poller would,
publishes it on the rig's observation stream and hands it to the service, so a test drives
every look itself.
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

from comment_wake.events.testing import EventRecorder
from comment_wake.ownpost import TranscriptSource
from comment_wake.store import open_store
from comment_wake.wake import Binding, WakeConfig
from review_monitor import (
    GitHubConfig,
    InMemoryObservations,
    LookAgain,
    MonitorConfig,
    Observation,
    PermissionChecker,
    Permissions,
    PrRef,
    PrStatus,
    Watch,
)
from review_monitor.github import GitHubClient, RetryPolicy, read_badges
from review_monitor.testing import FakeGitHub, VirtualClock

from ._service import CommentWake

__all__ = ["ServiceRig", "StaticBindings"]

_T0 = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)


@dataclass
class StaticBindings:
    """A ``BindingSource`` from a dict; tests change ``bindings`` to unbind or archive."""

    bindings: dict[PrRef, Binding] = field(default_factory=dict)
    sources: dict[str, list[TranscriptSource]] = field(default_factory=dict)
    calls: int = 0  # binding() calls: one per look

    def binding(self, pr: PrRef) -> Binding:
        self.calls += 1
        return self.bindings.get(pr, Binding(pr=pr, worker=None))

    def transcripts(self, worker: str) -> Sequence[TranscriptSource]:
        return tuple(self.sources.get(worker, ()))

    def version(self) -> int | None:
        return None  # not versioned: tests change ``bindings`` in place

    def refresh(self) -> frozenset[PrRef]:
        return frozenset()


class ServiceRig:
    """Real store, client and permissions around ``CommentWake``, on a virtual clock.

    One PR (``pr``), bound to worker ``w-1`` spawned by ``orch-1``.  The client makes
    one HTTP attempt per request, so an injected fault is one failed read.
    """

    def __init__(
        self,
        directory: Path,
        *,
        viewer: str = "octo-user",
        config: WakeConfig | None = None,
        monitor: MonitorConfig | None = None,
        start: datetime = _T0,
        gap_pages: Callable[[datetime], Awaitable[bool]] | None = None,
    ) -> None:
        self.clock = VirtualClock(start)
        # Fleet mode's gate on gap pages beyond the first (None: a single host).
        self.gap_pages = gap_pages
        self.fake = FakeGitHub(clock=self.clock, viewer=viewer)
        self.pr = PrRef.parse("octo-org/octo-repo#12")
        self.fake.add_pr(self.pr.repo, self.pr.number, title="Force-cancel closed runs")
        self.config = config or WakeConfig()
        self.monitor = monitor or MonitorConfig()
        self.store = open_store(directory / "state.db", clock=self.clock)
        self.client = GitHubClient(
            "test-token",
            GitHubConfig(),
            transport=self.fake.transport(),
            clock=self.clock,
            rng=random.Random(0),
            retry=RetryPolicy(attempts=1),
        )
        self.bindings = StaticBindings(
            {self.pr: Binding(pr=self.pr, worker="w-1", spawned_by="orch-1")}
        )
        self.events = EventRecorder()
        self.permissions: PermissionChecker = Permissions(self.client, self.monitor)
        # The poll interval in force the service is told (None: the configured one).
        self.interval: timedelta | None = None
        self.observations = InMemoryObservations()
        self.wake = self.service()

    def service(self, permissions: PermissionChecker | None = None) -> CommentWake:
        """A fresh service on the same store (a restart: its memory starts empty)."""
        if permissions is not None:
            self.permissions = permissions
        return CommentWake(
            store=self.store,
            api=self.client,
            permissions=self.permissions,
            bindings=self.bindings,
            publish=self.events,
            clock=self.clock,
            config=self.config,
            monitor=self.monitor,
            rng=random.Random(0),
            interval=self._interval,
            observations=self.observations,
            gap_pages=self.gap_pages,
        )

    def _interval(self) -> timedelta:
        return self.interval or self.monitor.poll_interval

    def restart(self) -> CommentWake:
        """Lose every cache and timer: new permissions, a new observation stream, new
        service, same store."""
        self.observations = InMemoryObservations()
        self.wake = self.service(Permissions(self.client, self.monitor))
        return self.wake

    async def badge(self) -> PrStatus:
        batch = await read_badges(self.client, [self.pr])
        return batch.statuses[self.pr]

    async def poll(self) -> PrStatus:
        """Read the badge and hand it to the service, as one poll round would."""
        status = await self.badge()
        now = self.clock.now()
        observed = self.observations.publish(
            Observation(
                pr=self.pr,
                read_at=now,
                badge=status,
                watches=(Watch("w-1", self.pr),),
                interval=self._interval(),
            )
        )
        with contextlib.suppress(LookAgain):  # a read failed: the warning says so
            await self.wake.observe(observed, now)
        return status

    def unbind(self, *, archived: bool = True) -> None:
        """The session manager archives the worker (or, ``archived=False``, forgets it)."""
        self.bindings.bindings[self.pr] = (
            Binding(pr=self.pr, worker="w-1", spawned_by="orch-1", archived=True)
            if archived
            else Binding(pr=self.pr, worker=None)
        )

    def stored_mark(self) -> bytes | None:
        mark = self.store.sync.load_mark(self.pr, self.wake.name)
        return None if mark is None else mark.blob

    async def aclose(self) -> None:
        await self.client.aclose()
        self.store.close()
