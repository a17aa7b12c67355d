"""The poller: reads every watched PR's badge in batches and publishes what it saw.

One round polls every batch once; the batches' polls are spread evenly over the
round's interval (which the budget governor may stretch) instead of firing in a burst.
With a sweep reader, a round starts with the sweep (``_sweep.py``): one cheap query for
up to 1,000 PRs, and only the PRs whose full badge is due (``SweepBook``: first look,
changed, settling after an ``updatedAt``, unswept, or the safety net) are read in the
batches; the others were proved unchanged, and nobody is told anything about them.
Each badge read becomes an ``Observation`` on the observation stream
(``_observations.py``), which the ``Dispatcher`` hands to the listeners right after its
batch; a round's end is a ``RoundDone`` there.
Hinted polls (``poll_now``) come between rounds: each PR at most once per
``hint_min_gap``, all of them within the governor's hint share of the budget.
A PR GitHub answers NOT_FOUND is read again after 1, 2, 4, 8 ... minutes, up to
``missing_pr_interval`` (``_missing.py``), and from the first round after a successful
read as usual.  A poll request (``request_poll``, ``comment-wake poll``) has the next
round read the PR's full badge, whatever its backoff or the sweep says, but not sooner
than ``hint_min_gap`` after its last read.
A batch that fails calls no listener for its PRs, so no mark moves on a failure.
All time goes through the ``Clock``.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Awaitable, Callable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Protocol

import anyio
import msgspec

from ._clock import Clock
from ._config import MonitorConfig
from ._duration import format_duration
from ._errors import GitHubError, RateLimitedError, TransientError
from ._events import PollObserver
from ._governor import BudgetGovernor
from ._listener import Listener, Watch
from ._missing import Missing, missed
from ._model import BadgeBatch, CheckFailure, PrRef, SweepEntry
from ._observations import (
    Dispatcher,
    InMemoryObservations,
    Observation,
    PrGone,
    PrReadable,
    RoundDone,
)
from ._sweep import Sweeper, SweepRead
from ._sweep_book import SweepBook
from ._wait import sleep_until_or

__all__ = ["BadgeReader", "Poller", "WatchSource"]

BadgeReader = Callable[[Sequence[PrRef]], Awaitable[BadgeBatch]]
"""Reads the badges of up to ``batch_size`` PRs in one query (``read_badges`` bound to an api)."""

ChecksFor = Callable[[PrRef], tuple[CheckFailure, ...] | None]
"""The failing checks read beside the batch just read, for one of its PRs (None: not read)."""

_log = logging.getLogger("review_monitor.poller")


class WatchSource(Protocol):
    """Where the watch registry comes from (the ``Store``)."""

    async def watches(self) -> Sequence[Watch]: ...


def _reason(exc: BaseException) -> str:
    """One line about a fault: its type, a status or retry time, never a body or a token."""
    if isinstance(exc, RateLimitedError):
        kind = "secondary rate limit" if exc.secondary else "rate limit"
        until = f" until {exc.retry_at.isoformat()}" if exc.retry_at else ""
        return f"{kind}{until}"
    if isinstance(exc, TransientError) and exc.status is not None:
        return f"{type(exc).__name__} (HTTP {exc.status})"
    return type(exc).__name__


class Poller:
    """Reads every watched PR's badge in batches spread over the interval and publishes an
    ``Observation`` of each on ``observations``, which its listeners are handed; a failed
    batch publishes none."""

    def __init__(
        self,
        *,
        watches: WatchSource,
        read_badges: BadgeReader,
        listeners: Sequence[Listener],
        clock: Clock,
        config: MonitorConfig | None = None,
        governor: BudgetGovernor | None = None,
        hint_delay: timedelta = timedelta(seconds=2),
        logger: logging.Logger | None = None,
        observer: PollObserver | None = None,
        read_sweep: SweepRead | None = None,
        observations: InMemoryObservations | None = None,
        failing_checks: ChecksFor | None = None,
    ) -> None:
        self._source = watches
        self._checks_for = failing_checks
        self.observations = observations or InMemoryObservations()
        self._read = read_badges
        self._listeners = tuple(listeners)
        self._clock = clock
        self._config = config or MonitorConfig()
        self.governor = governor or BudgetGovernor(
            base_interval=self._config.poll_interval,
            budget_share=self._config.budget_share,
            hint_share=self._config.hint_share,
        )
        self._hint_delay = hint_delay
        self._log = logger or _log
        self._observer = observer
        self._dispatcher = Dispatcher(
            self.observations, self._listeners, now=clock.now, logger=self._log
        )
        self._missing: dict[PrRef, Missing] = {}  # PRs answered NOT_FOUND, with their backoff
        self._looked: dict[PrRef, datetime] = {}  # PR -> its last answered badge read
        self._requested: set[PrRef] = set()  # poll requests the next rounds serve
        self._hints: dict[PrRef, datetime] = {}  # PR -> when to poll it
        self._hinted_at: dict[PrRef, datetime] = {}  # PR -> its last hinted poll, for the gap
        self._hint_cost = 1.0  # points one hinted badge query cost last time
        self._paused_until: datetime | None = None
        self._woken = anyio.Event()
        self._sweeper = (
            Sweeper(read_sweep, size=self._config.sweep_size)
            if read_sweep is not None and self._config.sweep
            else None
        )
        self.book = SweepBook(
            grace=self._config.sweep_grace,
            full_interval=self._config.full_badge_interval,
            latest=self.observations.latest,
        )
        self._interval = self._config.poll_interval  # the last round's, for the safety net

    # -- hints ---------------------------------------------------------------------

    def poll_now(self, pr: PrRef, *, seen_at: datetime | None = None) -> None:
        """Poll ``pr`` soon (a webhook saw activity): ``hint_delay`` after the activity
        was seen (``seen_at``, by default now; never later than now, as another host's
        clock running ahead would say), but not sooner than ``hint_min_gap`` after its
        previous hinted poll, and only when the governor's hint share has room.  Hints for
        one PR that arrive before its hinted poll share that poll, so no number of hints
        polls a PR more than once per gap.  Call it from the event loop."""
        if pr in self._hints:
            return
        now = self._clock.now()
        at = (now if seen_at is None else min(seen_at, now)) + self._hint_delay
        last = self._hinted_at.get(pr)
        if last is not None:
            at = max(at, last + self._config.hint_min_gap)
        self._hints[pr] = at
        self._woken.set()

    def request_poll(self, pr: PrRef) -> None:
        """Read ``pr``'s full badge at the next round (``comment-wake poll``): whatever its
        NOT_FOUND backoff or the sweep says, but not sooner than ``hint_min_gap`` after its
        last read (a round before that leaves the request for a later one).  The request
        stands until a badge read of the PR is answered."""
        self._requested.add(pr)

    def requested(self, pr: PrRef) -> bool:
        """Whether a poll request of ``pr`` waits for a round."""
        return pr in self._requested

    def waiting(self) -> tuple[list[PrRef], list[PrRef]]:
        """The PRs whose hinted polls and whose poll requests are not served yet: what a
        fleet reader that stops reading hands on to the next."""
        return sorted(self._hints), sorted(self._requested)

    def retry_times(self) -> dict[PrRef, datetime]:
        """Each PR GitHub answered NOT_FOUND, with when it is read again (at the first
        round from then on)."""
        return {pr: m.retry_at for pr, m in self._missing.items()}

    @property
    def missing(self) -> dict[PrRef, Missing]:
        """Each PR GitHub answered NOT_FOUND, with its backoff (a copy)."""
        return dict(self._missing)

    def seed_missing(self, missing: Mapping[PrRef, Missing]) -> None:
        """Start from another poller's NOT_FOUND PRs and their backoff (a fleet reader
        taking over), so they are not all read again at the first round."""
        self._missing.update(missing)

    next_tries = retry_times
    """Deprecated: the old name of ``retry_times``, kept for one release."""

    # -- the loop ------------------------------------------------------------------

    async def run(self) -> None:
        """Poll until cancelled."""
        while True:
            start = self._clock.now()
            try:
                by_pr = await self._watches()
            except Exception as exc:
                self._log.error("could not read the watch list: %s", type(exc).__name__)
                await self._wait(start + self._config.poll_interval)
                continue
            self._forget_unwatched(by_pr)
            forced = self._forced(start)
            due = [pr for pr in by_pr if pr in forced or self._is_due(pr, start)]
            swept = await self._sweep(due, start, forced)
            if swept is None:  # rate limited: nothing is read until GitHub allows it
                await self._wait(start + self._interval)
                continue
            quiet, to_read, sweep_cost, requests = swept
            batches = self._batches(to_read)
            pace = self.governor.plan(len(batches), start, spent=sweep_cost)
            self._interval = pace.interval
            if self._observer is not None:
                self._observer.round_planned(len(batches), pace)
            if pace.note:
                self._log.warning(pace.note)
            # Before the first batch is told, so the round's event counts the sweep.
            if requests and self._observer is not None:
                self._observer.sweep_read(quiet, requests, round(sweep_cost))
            for i, batch in enumerate(batches):
                await self._wait(start + pace.interval * i / len(batches))
                await self._poll(batch, by_pr, index=i)
            await self._end_round()
            await self._wait(start + pace.interval)

    async def _end_round(self) -> None:
        """Publish the round's end (with its figures, when an observer keeps them) and
        hand it to the listeners."""
        figures = self._observer.round_done() if self._observer is not None else None
        self.observations.publish(RoundDone(at=self._clock.now(), figures=figures))
        await self.deliver()

    async def _sweep(
        self, prs: Sequence[PrRef], now: datetime, forced: frozenset[PrRef] = frozenset()
    ) -> tuple[list[PrRef], list[PrRef], float, int] | None:
        """Sweep ``prs``: the PRs whose badge need not be read this round, those whose
        badge must be (changed ones and ``forced`` first, then the safety net's, so fresh
        changes are read early in the round), the points the sweep cost and the requests
        it took; None when GitHub rate-limited the sweep (the round is skipped)."""
        # With every badge in one batch the sweep would cost as much as reading them all
        # (one point), and a change would cost a second query: read the badges.
        if self._sweeper is None or len(prs) <= self._config.batch_size:
            return [], list(prs), 0.0, 0
        ids = self.book.node_ids(pr for pr in prs if pr not in forced)
        if not ids:
            return [], list(prs), 0.0, 0
        found: dict[PrRef, SweepEntry | None] = {}
        cost = 0.0
        requests = 0
        try:
            result, requests = await self._sweeper.sweep(list(ids))
        except RateLimitedError as exc:
            if exc.retry_at is not None:
                self._paused_until = exc.retry_at
            self._log.warning("the sweep failed: %s; the round waits", _reason(exc))
            return None
        except GitHubError as exc:
            # Nothing is lost: every PR is read by its full badge this round.
            self._log.warning("the sweep failed: %s; every badge is read", _reason(exc))
        else:
            for node_id, entry in result.entries.items():
                found[ids[node_id]] = entry
            cost = float(result.cost if result.cost is not None else requests)
            self.governor.record(
                batch=None, cost=None, remaining=result.remaining, reset_at=result.reset_at
            )
        self.book.swept(found)
        quiet: list[PrRef] = []
        changed: list[PrRef] = []
        settling: list[PrRef] = []
        net: list[PrRef] = []
        slots: list[PrRef] = []
        for pr in prs:
            if pr in forced:
                changed.append(pr)
                continue
            reason = self.book.due(pr, now, self._interval)
            if reason is None:
                quiet.append(pr)
            elif reason == "slot":
                slots.append(pr)
            elif reason == "safety-net":
                net.append(pr)
            else:
                (settling if reason == "settling" else changed).append(pr)
        # The round's changes before the PRs read again only to settle: the PRs whose
        # checks newly fail are among them, so their checks are one query while they fit
        # one batch (the checks are read a batch at a time, beside its badges).
        must = changed + settling + net
        batch = self._config.batch_size
        read = self.book.slot_reads(slots, len(must), batch, now, self._interval)
        chosen = set(read)
        quiet.extend(pr for pr in slots if pr not in chosen)  # unchanged; read later
        return quiet, must + read, cost, requests

    async def poll_round(self) -> None:
        """Poll every batch once, back to back (a one-shot poll, and tests)."""
        by_pr = await self._watches()
        now = self._clock.now()
        forced = self._forced(now)
        due = [pr for pr in by_pr if pr in forced or self._is_due(pr, now)]
        for i, batch in enumerate(self._batches(due)):
            await self._poll(batch, by_pr, index=i)
        await self._end_round()

    async def _watches(self) -> dict[PrRef, tuple[Watch, ...]]:
        grouped: dict[PrRef, list[Watch]] = defaultdict(list)
        for w in await self._source.watches():
            grouped[w.pr].append(w)
        return {pr: tuple(sorted(ws)) for pr, ws in sorted(grouped.items())}

    def _batches(self, prs: Sequence[PrRef]) -> list[list[PrRef]]:
        size = self._config.batch_size
        return [list(prs[i : i + size]) for i in range(0, len(prs), size)]

    def _is_due(self, pr: PrRef, now: datetime) -> bool:
        missing = self._missing.get(pr)
        return missing is None or missing.retry_at <= now

    def _forced(self, now: datetime) -> frozenset[PrRef]:
        """The requested PRs this round reads: those last read ``hint_min_gap`` ago or more."""
        gap = self._config.hint_min_gap
        return frozenset(
            pr
            for pr in self._requested
            if (last := self._looked.get(pr)) is None or last + gap <= now
        )

    def _forget_unwatched(self, by_pr: dict[PrRef, tuple[Watch, ...]]) -> None:
        self.observations.forget(by_pr.keys())
        for pr in [pr for pr in self._missing if pr not in by_pr]:
            del self._missing[pr]
        for pr in [pr for pr in self._looked if pr not in by_pr]:
            del self._looked[pr]
        self._requested &= by_pr.keys()

    async def _wait(self, until: datetime) -> None:
        """Sleep until ``until``, serving hinted polls that fall due meanwhile; never
        poll while GitHub asked us to pause."""
        while True:
            if self._paused_until is not None:
                until = max(until, self._paused_until)
            now = self._clock.now()
            due = [pr for pr, t in self._hints.items() if t <= now]
            hint_at = self._next_hint(now)
            paused = self._paused_until is not None and self._paused_until > now
            if due and hint_at is not None and hint_at <= now and not paused:
                await self._poll_hinted(due)
                continue
            if now >= until:
                return
            wake_at = until if hint_at is None else min(until, hint_at)
            if self._paused_until is not None:
                wake_at = max(wake_at, self._paused_until)
            await self._sleep_or_woken(wake_at)

    async def _sleep_or_woken(self, t: datetime) -> None:
        self._woken = anyio.Event()
        await sleep_until_or(self._clock, t, self._woken)

    def _next_hint(self, now: datetime) -> datetime | None:
        """When the next hinted poll may run: its PR's time, or later when the
        governor's hint share has no room yet; None with no hint waiting."""
        if not self._hints:
            return None
        due = sum(1 for t in self._hints.values() if t <= now)
        batches = max(1, -(-due // self._config.batch_size))
        ready = self.governor.hint_ready_at(now, batches * self._hint_cost)
        return max(min(self._hints.values()), ready)

    async def _poll_hinted(self, prs: list[PrRef]) -> None:
        for pr in prs:
            del self._hints[pr]
        by_pr = await self._watches()
        watched = [pr for pr in sorted(prs) if pr in by_pr]
        now = self._clock.now()
        gap = self._config.hint_min_gap
        for pr in [pr for pr, t in self._hinted_at.items() if t + gap <= now]:
            del self._hinted_at[pr]
        for pr in watched:
            self._hinted_at[pr] = now
        for batch in self._batches(watched):
            cost = await self._poll(batch, by_pr, index=None)
            # A failed query may have been charged too: count it at the last known cost.
            self._hint_cost = cost if cost is not None else self._hint_cost
            self.governor.spend_hint(self._hint_cost, self._clock.now())

    # -- one batch -----------------------------------------------------------------

    async def _poll(
        self, batch: list[PrRef], by_pr: dict[PrRef, tuple[Watch, ...]], *, index: int | None
    ) -> float | None:
        """Poll one batch and hand what it saw to the listeners; the points it cost (None
        when it failed or GitHub did not say)."""
        cost = await self._poll_batch(batch, by_pr, index=index)
        await self.deliver()
        return cost

    async def deliver(self) -> None:
        """Hand the observations published since the last call to the listeners."""
        await self._dispatcher.deliver()

    async def _poll_batch(
        self, batch: list[PrRef], by_pr: dict[PrRef, tuple[Watch, ...]], *, index: int | None
    ) -> float | None:
        observer = self._observer
        try:
            result = await self._read(batch)
        except GitHubError as exc:
            if observer is not None:
                observer.batch_failed(batch, exc)
            if isinstance(exc, RateLimitedError) and exc.retry_at is not None:
                self._paused_until = exc.retry_at
            self._log.warning(
                "badge poll of %d PRs failed: %s; their listeners were not called, "
                "the next poll tries again",
                len(batch),
                _reason(exc),
            )
            return None
        except Exception as exc:
            if observer is not None:
                observer.batch_failed(batch, exc)
            self._log.error(
                "badge poll of %d PRs failed unexpectedly: %s", len(batch), type(exc).__name__
            )
            self._log.debug("badge poll failure", exc_info=exc)
            return None
        if observer is not None:
            observer.batch_read(batch, result)
        now = self._clock.now()
        self._paused_until = None
        self.governor.record(
            batch=index, cost=result.cost, remaining=result.remaining, reset_at=result.reset_at
        )
        published = self.observations.publish
        for pr in result.missing:
            before = self._missing.get(pr)
            entry = self._missing[pr] = missed(before, now, self._config.missing_pr_interval)
            self._looked[pr] = now
            self._requested.discard(pr)
            if before is None:
                published(PrGone(pr=pr, at=now))
                if observer is not None:
                    observer.pr_gone(pr)
                self._log.warning(
                    "%s is gone or the token lost access to it; trying again in %s, then "
                    "less often, up to every %s",
                    pr,
                    format_duration(entry.retry_at - now),
                    format_duration(self._config.missing_pr_interval),
                )
        for pr in batch:
            status = result.statuses.get(pr)
            if status is None:
                continue
            self._looked[pr] = now
            self._requested.discard(pr)
            if self._missing.pop(pr, None) is not None:
                published(PrReadable(pr=pr, at=now))
                self._log.info("%s is readable again", pr)
            watches = by_pr.get(pr)
            if watches:
                checks = None if self._checks_for is None else self._checks_for(pr)
                seen = Observation(
                    pr=pr,
                    read_at=now,
                    badge=status,
                    watches=watches,
                    interval=self._interval,
                    failing_checks=checks,
                )
                if seen.repeats(self.observations.latest(pr)):
                    seen = msgspec.structs.replace(seen, repeat=True)
                published(seen)
        return None if result.cost is None else float(result.cost)
