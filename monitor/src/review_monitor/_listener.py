"""What the poller calls: a ``Listener`` per concern, given each PR's new and previous badge."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Protocol

import msgspec

from ._model import PrRef, PrStatus

__all__ = ["WATCH_TOOL", "Listener", "Watch"]

WATCH_TOOL = "pr_review_monitor"
"""The tool name a watch is registered under."""


class Watch(msgspec.Struct, frozen=True, order=True):
    """One thread (a worker, or the orchestrator) watching one pull request."""

    thread_id: str
    pr: PrRef


class Listener(Protocol):
    """One concern that reacts to badge changes (the monitor's notices, the comment wake).

    The poller calls ``on_poll`` once per pull request per successful poll, with every
    watch of that PR (sorted by thread id, at least one): marks are kept per PR and
    listener, so a listener must see all of a PR's watchers in one call to decide once
    and address each of them.  ``old`` is the badge this listener last handled in this
    process, or None after a start; listeners that must not repeat themselves across a
    restart rely on their mark in the store, never on ``old``.

    A listener gets the store, the GitHub api, permissions and the clock through its
    own constructor.  It may raise: the poller logs it and carries on with the others,
    and hands the same ``old`` again on the next poll.
    """

    @property
    def name(self) -> str:
        """Stable and unique: it keys the listener's mark in the store."""
        ...

    async def on_poll(
        self, watches: Sequence[Watch], new: PrStatus, old: PrStatus | None, now: datetime
    ) -> None: ...
