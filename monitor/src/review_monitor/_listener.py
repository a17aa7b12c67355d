"""What the poller's observations go to: a ``Listener`` per concern."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Protocol

import msgspec

from ._model import PrRef

if TYPE_CHECKING:
    from ._observations import Observed

__all__ = ["WATCH_TOOL", "Listener", "LookAgain", "Watch"]

WATCH_TOOL = "pr_review_monitor"
"""The tool name a watch is registered under."""


class Watch(msgspec.Struct, frozen=True, order=True):
    """One thread (a worker, or the orchestrator) watching one pull request."""

    thread_id: str
    pr: PrRef


class LookAgain(Exception):
    """Raised by a listener that could not settle an observation (a read it needed failed)
    and has reported why itself: it gets the PR's latest observation again at the next
    round's end, and the dispatcher logs nothing more."""


class Listener(Protocol):
    """One concern that reacts to what the poller saw (the monitor's notices, the comment
    wake).

    ``observe`` gets each item of the observation stream (``Observed``): an
    ``Observation`` per badge read, with every watch of that PR (sorted by thread id, at
    least one): marks are kept per PR and listener, so a listener sees all of a PR's
    watchers at once to decide once and address each of them.  Beside them come
    ``PrGone``, ``PrReadable`` and each round's ``RoundDone``.  The latest observation of
    a PR replaces an earlier one not yet handed out, so a listener must accept gaps and
    be idempotent; it relies on its mark in the store, never on what it saw before.  A
    PR the sweep proved unchanged gets no observation: a listener with timers keeps them
    itself, and reads the PR's latest observation from the source.

    A listener gets the store, the GitHub api, permissions and the clock through its
    own constructor.  It may raise: the dispatcher logs it (``LookAgain``: silently) and
    carries on with the others, and hands the PR's latest observation again at the next
    round's end.
    """

    @property
    def name(self) -> str:
        """Stable and unique: it keys the listener's mark in the store."""
        ...

    async def observe(self, item: Observed, now: datetime) -> None: ...
