"""What the running app knows about itself, for ``status``: a subscriber to its events.

``StatusTracker`` counts the decided and woke events, keeps the last poll round's figures
and when each PR was last polled, the last fault of each kind, and per PR its state as
last read (``PrStates``, a monitor listener, tells it; a PR GitHub says is gone is
``gone``) and the last error that named it (a ``Fault`` or a warning ``Noted``).  The app writes its
``DaemonState`` to the store (key ``DAEMON_STATE_KEY``) after every round and on a
heartbeat, so ``comment-wake status`` in another process reads the same figures that
``App.status()`` gives in-process.
"""

from __future__ import annotations

from datetime import datetime

import msgspec

from comment_wake.events import CommentDecided, Event, Fault, Noted, NoticeQueued, PollRound
from review_monitor import Observation, Observed, PrRef

__all__ = [
    "DAEMON_STATE_KEY",
    "DaemonState",
    "FaultLine",
    "PollFigures",
    "PrStates",
    "StatusTracker",
    "daemon_state_key",
    "pr_key",
]

DAEMON_STATE_KEY = "comment-wake/daemon"
"""The store's key-value entry the running app keeps current for ``comment-wake status``."""


def daemon_state_key(host_id: str | None = None) -> str:
    """The entry of ``host_id``'s daemon (fleet mode: the hosts share one store, each
    keeps its own); ``DAEMON_STATE_KEY`` without one (the SQLite store)."""
    return DAEMON_STATE_KEY if host_id is None else f"{DAEMON_STATE_KEY}/{host_id}"


class PollFigures(msgspec.Struct, frozen=True):
    """The last poll round."""

    at: datetime
    prs: int | None = None
    cost: int | None = None
    remaining: int | None = None  # points left after it; None when GitHub did not say


class FaultLine(msgspec.Struct, frozen=True):
    """The last fault of one kind."""

    at: datetime
    kind: str
    pr: str | None
    detail: str
    count: int  # faults of this kind (for a PR's last error: of any kind on it) since the start


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
    stop_reason: str | None = None  # why the app stopped by itself (a refused token)
    pr_states: dict[str, str] = msgspec.field(default_factory=dict)  # open/merged/closed/gone
    pr_errors: dict[str, FaultLine] = msgspec.field(default_factory=dict)  # the last per PR
    # PRs GitHub answered NOT_FOUND: when each is read again (the poller's backoff).
    pr_next_try: dict[str, datetime] = msgspec.field(default_factory=dict)
    # Each PR's head commit as its last badge gave it (the review tool checks against it).
    pr_heads: dict[str, str] = msgspec.field(default_factory=dict)


def pr_key(pr: PrRef) -> str:
    """How ``DaemonState`` keys a PR: ``host/owner/name#N``, case-folded (GitHub's names
    are case-insensitive, so every spelling of a PR finds its entry): ``PrRef.key_text``."""
    return pr.key_text


class StatusTracker:
    """Subscribe it to the bus; ``rounds`` counts finished poll rounds."""

    def __init__(self) -> None:
        self.wakes = 0
        self.decisions = 0
        self.rounds = 0
        self.last_poll: PollFigures | None = None
        self.polled: dict[str, datetime] = {}
        self.pr_states: dict[str, str] = {}
        self.pr_heads: dict[str, str] = {}
        self.pr_errors: dict[str, FaultLine] = {}
        self._faults: dict[str, FaultLine] = {}

    def __call__(self, event: Event) -> None:
        if isinstance(event, CommentDecided):
            self.decisions += 1
        elif isinstance(event, NoticeQueued):
            self.wakes += 1
        elif isinstance(event, PollRound):
            self.rounds += 1
            self.last_poll = PollFigures(
                at=event.at, prs=len(event.prs), cost=event.cost, remaining=event.remaining
            )
            for pr in event.prs:
                self.polled[pr_key(pr)] = event.at
        elif isinstance(event, Fault):
            before = self._faults.get(event.kind)
            self._faults[event.kind] = FaultLine(
                at=event.at,
                kind=event.kind,
                pr=None if event.pr is None else str(event.pr),
                detail=event.detail,
                count=1 if before is None else before.count + 1,
            )
            if event.pr is not None:
                self._pr_error(event.pr, event.at, event.kind, event.detail)
                if event.kind == "pr-gone":
                    self.pr_states[pr_key(event.pr)] = "gone"
        elif isinstance(event, Noted) and event.level == "warning" and event.pr is not None:
            self._pr_error(event.pr, event.at, "wake", event.message)

    def _pr_error(self, pr: PrRef, at: datetime, kind: str, detail: str) -> None:
        key = pr_key(pr)
        before = self.pr_errors.get(key)
        count = 1 if before is None else before.count + 1
        self.pr_errors[key] = FaultLine(at=at, kind=kind, pr=str(pr), detail=detail, count=count)

    def pr_read(self, pr: PrRef, state: str, head: str = "") -> None:
        """A badge of ``pr`` was read: its state is ``state`` (``open``, ``merged``, ...)
        and its head commit ``head`` ("": not given)."""
        self.pr_states[pr_key(pr)] = state
        if head:
            self.pr_heads[pr_key(pr)] = head

    @property
    def faults(self) -> tuple[FaultLine, ...]:
        return tuple(sorted(self._faults.values(), key=lambda f: f.kind))


class PrStates:
    """A monitor listener that tells the tracker each observed PR's state: ``open``,
    ``draft``, ``merged`` or ``closed`` (a PR the sweep proves quiet keeps the state its
    last observation gave).  It keeps no mark."""

    name = "comment-wake/status"

    def __init__(self, tracker: StatusTracker) -> None:
        self._tracker = tracker

    async def observe(self, item: Observed, now: datetime) -> None:
        if not isinstance(item, Observation):
            return
        new = item.badge
        if new.merged or new.state == "MERGED":
            state = "merged"
        elif new.state == "CLOSED":
            state = "closed"
        else:
            state = "draft" if new.is_draft else "open"
        self._tracker.pr_read(new.pr, state, new.head_ref_oid)
