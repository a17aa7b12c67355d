"""What the running app knows about itself, for ``status``: a subscriber to its events.

``StatusTracker`` counts the decided and woke events, keeps the last poll round's figures
and when each PR was last polled, and the last fault of each kind.  The app writes its
``DaemonState`` to the store (key ``DAEMON_STATE_KEY``) after every round and on a
heartbeat, so ``comment-wake status`` in another process reads the same figures that
``App.status()`` gives in-process.
"""

from __future__ import annotations

from datetime import datetime

import msgspec

from comment_wake.events import CommentDecided, Event, Fault, PollRound, WorkerWoken

__all__ = ["DAEMON_STATE_KEY", "DaemonState", "FaultLine", "PollFigures", "StatusTracker"]

DAEMON_STATE_KEY = "comment-wake/daemon"
"""The store's key-value entry the running app keeps current for ``comment-wake status``."""


class PollFigures(msgspec.Struct, frozen=True):
    """The last poll round."""

    at: datetime
    prs: int | None = None
    cost: int | None = None
    remaining: str | None = None  # "unknown" when GitHub did not say


class FaultLine(msgspec.Struct, frozen=True):
    """The last fault of one kind."""

    at: datetime
    kind: str
    pr: str | None
    detail: str
    count: int  # faults of this kind since the start


class DaemonState(msgspec.Struct, frozen=True, kw_only=True):
    """The running app's own figures (``status --json``'s ``daemon`` member)."""

    pid: int
    started_at: datetime
    updated_at: datetime
    dry_run: bool
    host: str
    last_poll: PollFigures | None = None
    budget_remaining: int | None = None
    budget_limit: int | None = None
    budget_reset_at: datetime | None = None
    wakes: int = 0
    decisions: int = 0
    stopped_at: datetime | None = None
    polled: dict[str, datetime] = msgspec.field(default_factory=dict)  # "host/owner/name#N"
    faults: tuple[FaultLine, ...] = ()


class StatusTracker:
    """Subscribe it to the bus; ``rounds`` counts finished poll rounds."""

    def __init__(self) -> None:
        self.wakes = 0
        self.decisions = 0
        self.rounds = 0
        self.last_poll: PollFigures | None = None
        self.polled: dict[str, datetime] = {}
        self._faults: dict[str, FaultLine] = {}

    def __call__(self, event: Event) -> None:
        if isinstance(event, CommentDecided):
            self.decisions += 1
        elif isinstance(event, WorkerWoken):
            self.wakes += 1
        elif isinstance(event, PollRound):
            self.rounds += 1
            left = "unknown" if event.remaining is None else str(event.remaining)
            self.last_poll = PollFigures(
                at=event.at, prs=len(event.prs), cost=event.cost, remaining=left
            )
            for pr in event.prs:
                self.polled[f"{pr.host}/{pr}"] = event.at
        elif isinstance(event, Fault):
            before = self._faults.get(event.kind)
            self._faults[event.kind] = FaultLine(
                at=event.at,
                kind=event.kind,
                pr=None if event.pr is None else str(event.pr),
                detail=event.detail,
                count=1 if before is None else before.count + 1,
            )

    @property
    def faults(self) -> tuple[FaultLine, ...]:
        return tuple(sorted(self._faults.values(), key=lambda f: f.kind))
