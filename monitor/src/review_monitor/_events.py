"""What the monitor tells its application: a poll round's figures and the faults it met.

The monitor never expects anyone to read its log lines.  An application that wants the
figures passes ``on_event`` to ``Monitor`` and gets these frozen structs, each tagged so
a stream of them encodes to self-describing JSON.  Without ``on_event`` the monitor logs
one line per event itself (``log_event``), which is what a standalone user reads.  No
event carries an author or any text read from GitHub.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from typing import Literal, Protocol

import msgspec

from ._duration import format_duration
from ._errors import AuthError, GitHubError, RateLimitedError, TransientError
from ._governor import Pace
from ._model import BadgeBatch, PrRef

__all__ = [
    "Fault",
    "FaultKind",
    "MonitorEvent",
    "PollObserver",
    "PollRound",
    "describe_event",
    "log_event",
]

FaultKind = Literal["auth", "pr-gone", "rate-limited", "github", "store"]
"""``auth``: GitHub refused the token; ``pr-gone``: a PR vanished or the token lost access;
``rate-limited``: GitHub asked us to wait; ``github``: any other GitHub fault (a 5xx, a
timeout, a malformed answer); ``store``: the state store failed."""

_log = logging.getLogger("review_monitor.poll")


class PollRound(msgspec.Struct, frozen=True, kw_only=True, tag="poll-round"):
    """One poll round finished: every planned batch read (or failed) and told."""

    at: datetime
    prs: tuple[PrRef, ...]  # the PRs read: their badge asked for, or the sweep's look
    batches: int
    cost: int  # points GitHub charged for the round's badges and sweep
    remaining: int | None  # points left in the hour; None: GitHub did not say
    reset_at: datetime | None = None
    interval: timedelta | None = None  # the round's pace; None: a one-shot round
    failed_batches: int = 0
    unread: int = 0  # PRs of a read batch whose own answer was an error
    missing: int = 0  # PRs GitHub says are gone
    sweeps: int = 0  # sweep queries sent
    swept: int = 0  # PRs the sweep showed unchanged, so their badges were not read


class Fault(msgspec.Struct, frozen=True, kw_only=True, tag="fault"):
    """Something failed that an operator may need to act on.  ``detail`` is one phrase (a
    type, an HTTP status, a retry time), never a body, a path or a token."""

    at: datetime
    kind: FaultKind
    pr: PrRef | None = None
    detail: str = ""


MonitorEvent = PollRound | Fault
"""Everything the monitor reports to ``on_event``."""


def fault_of(exc: GitHubError, at: datetime, pr: PrRef | None = None) -> Fault:
    """The event for a GitHub fault."""
    if isinstance(exc, AuthError):
        return Fault(at=at, kind="auth", pr=pr, detail=type(exc).__name__)
    if isinstance(exc, RateLimitedError):
        kind = "secondary rate limit" if exc.secondary else "rate limit"
        until = f" until {exc.retry_at.isoformat()}" if exc.retry_at else ""
        return Fault(at=at, kind="rate-limited", pr=pr, detail=f"{kind}{until}")
    if isinstance(exc, TransientError) and exc.status is not None:
        detail = f"{type(exc).__name__} (HTTP {exc.status})"
        return Fault(at=at, kind="github", pr=pr, detail=detail)
    return Fault(at=at, kind="github", pr=pr, detail=type(exc).__name__)


class PollObserver(Protocol):
    """What the poller reports as it goes; the monitor turns it into ``PollRound`` events.

    ``round_planned`` starts a paced round; ``sweep_read`` gives the sweep's figures;
    ``batch_read`` or ``batch_failed`` follows each badge query; ``round_done`` comes once
    the round's last batch was read and its observations handed to the listeners, so a
    round's figures include what its last listeners did: it returns the round's figures
    (None when the round read nothing).  ``pr_gone`` is called once per PR when it first
    goes missing.
    """

    def round_planned(self, batches: int, pace: Pace | None) -> None: ...

    def sweep_read(self, quiet: Sequence[PrRef], requests: int, cost: int) -> None: ...

    def batch_read(self, batch: Sequence[PrRef], result: BadgeBatch) -> None: ...

    def batch_failed(self, batch: Sequence[PrRef], exc: Exception) -> None: ...

    def round_done(self) -> PollRound | None: ...

    def pr_gone(self, pr: PrRef) -> None: ...


def describe_event(event: MonitorEvent) -> str:
    """The event as one log line."""
    if isinstance(event, Fault):
        where = f" on {event.pr}" if event.pr is not None else ""
        return f"fault ({event.kind}){where}: {event.detail}"
    left = "unknown" if event.remaining is None else str(event.remaining)
    resets = f" (resets {event.reset_at.strftime('%H:%M:%SZ')})" if event.reset_at else ""
    faults = []
    if event.failed_batches:
        faults.append(f"{event.failed_batches} batch(es) failed")
    if event.unread:
        faults.append(f"{event.unread} PR(s) unread")
    if event.missing:
        faults.append(f"{event.missing} PR(s) missing")
    interval = f", interval {format_duration(event.interval)}" if event.interval else ""
    if event.sweeps:
        read = (
            f"{event.batches} badge batch(es) and {event.sweeps} sweep(s) "
            f"({event.swept} unchanged), {event.cost} points"
        )
    else:
        read = f"{event.batches} batch(es), {event.cost} badge points"
    return f"poll round: {len(event.prs)} PRs in {read}, {left} points left{resets}{interval}" + (
        "; " + ", ".join(faults) if faults else ""
    )


def log_event(event: MonitorEvent) -> None:
    """The default ``on_event``: one line on the ``review_monitor.poll`` logger.  Faults
    are not repeated here: the poller already logs each one where it happens."""
    if isinstance(event, PollRound):
        _log.info("%s", describe_event(event))


EventSink = Callable[[MonitorEvent], None]
