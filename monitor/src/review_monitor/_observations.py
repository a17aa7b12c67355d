"""The observation stream: what the poller saw, handed to the deciders as one stream.

The poller publishes an ``Observation`` per badge it read (a round's changed PRs, the
safety net's, a hinted poll's), a ``PrGone`` when GitHub first answers NOT_FOUND for a
PR, a ``PrReadable`` when such a PR is read again, and a ``RoundDone`` with each round's
figures.  Each item has a ``seq``, increasing.  The source keeps the *latest* item of
each kind per PR (and the latest ``RoundDone``): a consumer that follows it may miss
an earlier observation of a PR that a later one replaced, so consumers accept gaps and
stay idempotent (their marks in the store make them so).

The latest observation of each PR is the one cache of "what the last poll saw": the
poller asks it whether a PR was ever read, the prefetch which items are new, the comment
wake which badge its timers look at.  PRs the sweep proved unchanged get no observation,
so a quiet round tells nobody anything.  A badge read again that shows nothing new (the
safety net's read of a quiet PR) is published as a ``repeat``: it moves the PR's last
full badge in time, and the dispatcher tells it only to a listener that keeps the stream
(``keeps_repeats``: fleet mode's shipper), never to a decider.  A badge whose listing is
a full window is never a repeat (``Observation.repeats``).

``Dispatcher`` hands the items to the listeners, each with its own cursor (in memory
here; fleet mode keeps cursors in the store).  A listener that raises on an observation
gets the PR's latest observation again at the next round's end (the ``RoundDone`` after
the one that ends the round it failed in), just before that ``RoundDone``.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Collection, Sequence
from datetime import datetime, timedelta
from typing import Protocol

import msgspec

from ._events import PollRound
from ._listener import Listener, LookAgain, Watch
from ._model import CheckFailure, ItemDetail, PrRef, PrStatus
from ._store._faults import describe_fault

__all__ = [
    "Dispatcher",
    "InMemoryObservations",
    "Observation",
    "ObservationSource",
    "Observed",
    "PrGone",
    "PrReadable",
    "RoundDone",
]

_log = logging.getLogger("review_monitor.observations")


class Observation(msgspec.Struct, frozen=True, kw_only=True, tag="observation"):
    """One PR's badge as a poll read it."""

    seq: int = 0  # set by the source when published
    pr: PrRef
    read_at: datetime
    badge: PrStatus
    watches: tuple[Watch, ...]  # every watch of the PR when it was read, sorted
    interval: timedelta  # the poll interval in force (the governor may stretch it)
    source_term: int = 0  # the term of the poller that read it (fleet mode's leader)
    # Bodies of the items new in this badge, when the poller read them (a cache: a
    # consumer that finds an item missing reads it itself).
    bodies: dict[str, ItemDetail] | None = None
    # The failing checks on the badge's head commit, when the poller read them (a cache,
    # read for a failing PR whose head or check state moved: None means not read, and a
    # consumer that wants them reads them itself).
    failing_checks: tuple[CheckFailure, ...] | None = None
    # The badge, watches and failing checks are those of the PR's latest observation: a
    # read (the safety net's) that found nothing new.
    repeat: bool = False

    def repeats(self, before: Observation | None) -> bool:
        """Whether this shows nothing ``before`` (the PR's latest observation) did not,
        and can hide nothing: its listings are whole (no earlier page).  A full window
        is never a repeat: a comment listed late may sit behind it unchanged, and the
        comment wake's late-listing check runs at its looks."""
        badge = self.badge
        return (
            before is not None
            and not badge.comments_page.has_previous_page
            and not badge.reviews_page.has_previous_page
            and not badge.left_off
            and badge == before.badge
            and self.watches == before.watches
            and self.failing_checks == before.failing_checks
        )


class PrGone(msgspec.Struct, frozen=True, kw_only=True, tag="pr-gone"):
    """GitHub answered NOT_FOUND for a PR that was readable (or never read)."""

    seq: int = 0
    pr: PrRef
    at: datetime


class PrReadable(msgspec.Struct, frozen=True, kw_only=True, tag="pr-readable"):
    """A PR that was gone is read again."""

    seq: int = 0
    pr: PrRef
    at: datetime


class RoundDone(msgspec.Struct, frozen=True, kw_only=True, tag="round-done"):
    """A poll round finished: every planned batch read (or failed) and told."""

    seq: int = 0
    at: datetime
    figures: PollRound | None = None  # None: a poller with nobody counting its reads


Observed = Observation | PrGone | PrReadable | RoundDone
"""An item of the observation stream."""


class ObservationSource(Protocol):
    """Where observations are read: ``follow`` the items after a seq, or the ``latest``
    observation of one PR."""

    def follow(self, after_seq: int) -> Sequence[Observed]:
        """The items published after ``after_seq``, oldest first; an item a later one of
        the same kind and PR replaced is left out."""
        ...

    def latest(self, pr: PrRef) -> Observation | None:
        """The PR's latest observation; None when none is kept (never read, or gone from
        the watch list)."""
        ...


class InMemoryObservations:
    """The observation stream in this process (``ObservationSource``)."""

    def __init__(self) -> None:
        self._seq = 0
        # seq -> item, in publishing order; a replaced item is deleted from it.
        self._items: dict[int, Observed] = {}
        self._keys: dict[tuple[str, PrRef | None], int] = {}  # (kind, PR) -> its seq

    @property
    def seq(self) -> int:
        """The last seq published (0: none yet)."""
        return self._seq

    def publish(self, item: Observed) -> Observed:
        """Give ``item`` the next seq and keep it as its PR's latest of its kind."""
        self._seq += 1
        item = msgspec.structs.replace(item, seq=self._seq)
        key = (type(item).__name__, None if isinstance(item, RoundDone) else item.pr)
        replaced = self._keys.get(key)
        if replaced is not None:
            del self._items[replaced]
        self._keys[key] = self._seq
        self._items[self._seq] = item
        return item

    def follow(self, after_seq: int) -> list[Observed]:
        found: list[Observed] = []
        for seq in reversed(self._items):
            if seq <= after_seq:
                break
            found.append(self._items[seq])
        found.reverse()
        return found

    def latest(self, pr: PrRef) -> Observation | None:
        seq = self._keys.get(("Observation", pr))
        item = None if seq is None else self._items[seq]
        return item if isinstance(item, Observation) else None

    def forget(self, keep: Collection[PrRef]) -> None:
        """Drop what is kept of every PR not in ``keep`` (no longer watched)."""
        for key in [k for k in self._keys if k[1] is not None and k[1] not in keep]:
            del self._items[self._keys.pop(key)]


class Dispatcher:
    """Hands the stream's new items to each listener, in order, every listener on one
    item before the next item (so a PR's notices are queued in listener order).  Each
    listener has its own cursor: the last seq it was handed."""

    def __init__(
        self,
        source: ObservationSource,
        listeners: Sequence[Listener],
        *,
        now: _Now,
        logger: logging.Logger | None = None,
    ) -> None:
        self._source = source
        self._listeners = tuple(listeners)
        self._now = now
        self._log = logger or _log
        self._cursors = {listener.name: 0 for listener in self._listeners}
        self._rounds = 0  # round ends handed out
        # Per listener: each PR whose latest observation it did not settle, with the
        # round it failed in.
        self._unsettled: dict[str, dict[PrRef, int]] = defaultdict(dict)

    def cursor(self, listener: str) -> int:
        """The seq of the last item ``listener`` was handed (0: none yet)."""
        return self._cursors[listener]

    async def deliver(self) -> None:
        """Give every listener the items published after its cursor."""
        if not self._listeners:
            return
        for item in self._source.follow(min(self._cursors.values())):
            for listener in self._listeners:
                if item.seq <= self._cursors[listener.name]:
                    continue
                self._cursors[listener.name] = item.seq
                if isinstance(item, RoundDone):
                    await self._again(listener)
                await self._tell(listener, item)
            if isinstance(item, RoundDone):
                self._rounds += 1

    async def _again(self, listener: Listener) -> None:
        """At a round's end: the observations ``listener`` did not settle in an earlier
        round, again (those of this round wait for the next)."""
        pending = self._unsettled.get(listener.name, {})
        for pr in sorted(pr for pr, failed in pending.items() if failed < self._rounds):
            del pending[pr]
            latest = self._source.latest(pr)
            if latest is not None:
                # Also a repeat: it shows what the listener failed to settle.
                await self._tell(listener, latest, again=True)

    async def _tell(self, listener: Listener, item: Observed, *, again: bool = False) -> None:
        if (
            not again
            and isinstance(item, Observation)
            and item.repeat
            and not getattr(listener, "keeps_repeats", False)
        ):
            return  # nothing new to decide on
        pr = None if isinstance(item, RoundDone) else item.pr
        try:
            await listener.observe(item, self._now())
        except Exception as exc:
            if pr is not None:
                self._unsettled[listener.name][pr] = self._rounds
            if isinstance(exc, LookAgain):
                return  # the listener said why already (a read failed)
            # The type only (or what a store fault means): a listener's message may
            # quote text read from GitHub.
            self._log.error(
                "listener %s failed on %s: %s",
                listener.name,
                pr if pr is not None else "a round's end",
                describe_fault(exc),
            )
            self._log.debug("listener failure", exc_info=exc)
        else:
            if pr is not None and isinstance(item, Observation):
                self._unsettled[listener.name].pop(pr, None)


class _Now(Protocol):
    def __call__(self) -> datetime: ...
