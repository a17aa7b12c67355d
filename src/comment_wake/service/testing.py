"""Test helpers for the service: a recording sink, fixed bindings, and a rig of real parts.

``ServiceRig`` assembles what the daemon assembles, minus the poller: the real ``Store``
in a directory, the real ``GitHubClient`` on ``FakeGitHub.transport()``, the real
``Permissions`` and a ``VirtualClock``.  ``poll()`` reads the badge as the poller would
and hands it to the service, so a test drives every look itself.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from comment_wake.ownpost import TranscriptSource
from comment_wake.wake import Binding, Decision, LogLine, WakeConfig
from review_monitor import (
    GitHubClient,
    GitHubConfig,
    MonitorConfig,
    Notice,
    PermissionChecker,
    Permissions,
    PrRef,
    PrStatus,
    RetryPolicy,
    Store,
    Watch,
    read_badges,
)
from review_monitor.testing import FakeGitHub, VirtualClock

from ._ports import NO_EVIDENCE
from ._service import CommentWake

__all__ = ["RecordingSink", "ServiceRig", "StaticBindings", "Told"]

_T0 = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)


@dataclass(frozen=True, slots=True)
class Told:
    """One thing the sink heard, in arrival order."""

    kind: str  # "decided", "woke" or "logged"
    at: datetime
    decision: Decision | None = None
    created: datetime | None = None
    evidence: str | None = None  # the own-post matcher's explanation, when it judged it
    notice: Notice | None = None
    comments: tuple[str, ...] = ()
    pr: PrRef | None = None
    line: LogLine | None = None


@dataclass
class RecordingSink:
    """A ``WakeSink`` that keeps everything it hears."""

    told: list[Told] = field(default_factory=list)

    def decided(
        self,
        decisions: Sequence[Decision],
        created: Mapping[str, datetime],
        evidence: Mapping[str, str] = NO_EVIDENCE,
    ) -> None:
        for d in decisions:
            self.told.append(
                Told(
                    "decided",
                    d.at,
                    decision=d,
                    created=created.get(d.comment),
                    evidence=evidence.get(d.comment),
                )
            )

    def woke(self, at: datetime, notice: Notice, comments: Sequence[str]) -> None:
        self.told.append(Told("woke", at, notice=notice, comments=tuple(comments)))

    def logged(self, at: datetime, pr: PrRef | None, line: LogLine) -> None:
        self.told.append(Told("logged", at, pr=pr, line=line))

    @property
    def decisions(self) -> list[Decision]:
        return [t.decision for t in self.told if t.decision is not None]

    @property
    def wakes(self) -> list[tuple[str, ...]]:
        return [t.comments for t in self.told if t.kind == "woke"]

    @property
    def lines(self) -> list[LogLine]:
        return [t.line for t in self.told if t.line is not None]

    def outcomes(self) -> list[tuple[str, str, str]]:
        """``(comment, outcome, reason)`` of every decision, in arrival order."""
        return [(d.comment, d.outcome, d.reason) for d in self.decisions]


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
    ) -> None:
        self.clock = VirtualClock(start)
        self.fake = FakeGitHub(clock=self.clock, viewer=viewer)
        self.pr = PrRef.parse("octo-org/octo-repo#12")
        self.fake.add_pr(self.pr.repo, self.pr.number, title="Force-cancel closed runs")
        self.config = config or WakeConfig()
        self.monitor = monitor or MonitorConfig()
        self.store = Store.open(directory / "state.db", clock=self.clock)
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
        self.sink = RecordingSink()
        self.permissions: PermissionChecker = Permissions(self.client, self.monitor)
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
            sink=self.sink,
            clock=self.clock,
            config=self.config,
            monitor=self.monitor,
            rng=random.Random(0),
        )

    def restart(self) -> CommentWake:
        """Lose every cache and timer: new permissions, new service, same store."""
        self.wake = self.service(Permissions(self.client, self.monitor))
        return self.wake

    async def badge(self) -> PrStatus:
        batch = await read_badges(self.client, [self.pr])
        return batch.statuses[self.pr]

    async def poll(self) -> PrStatus:
        """Read the badge and hand it to the service, as one poll round would."""
        status = await self.badge()
        await self.wake.on_poll([Watch("w-1", self.pr)], status, None, self.clock.now())
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
