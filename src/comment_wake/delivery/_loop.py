"""The delivery loop: drains the outbox, in order per worker, through each worker's publisher.

Per worker the store gives the head of its queue when due; the loop publishes it and
records the outcome.  Delivered finishes it (and owes the acknowledgement reactions in
the same transaction); busy and faults retry it with the worker's bounded, jittered
backoff; gone (or a worker with no publisher) hands it to the orchestrator; refused
parks it.  Workers are served concurrently, so one worker's hanging publisher or stuck
head never holds another's.

Delivery is at-least-once: a crash between a publish and its record publishes the same
notice (same key) again, and the receiver drops the repeat by its key.  That is why a
notice is only ever merged into a head right after that head was answered busy in this
process: a busy answer means its key had no effect, so giving the head a new key cannot
make one comment take effect twice.  After a restart every head is in doubt and goes out
unchanged first.
"""

from __future__ import annotations

import inspect
import logging
import random
import sqlite3
from collections.abc import Callable, Collection
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Final, Literal, Protocol, Self

import anyio
import anyio.abc
import msgspec
from pydantic import BaseModel, ConfigDict, Field, model_validator

from comment_wake.events import (
    Event,
    NoticeBusy,
    NoticeDelivered,
    NoticeHandedOff,
    NoticeParked,
)
from comment_wake.store import ContentLimits, delivered_to_inbox, delivering, owing
from review_monitor import (
    Busy,
    Clock,
    Delivered,
    Duration,
    Gone,
    Publisher,
    Refused,
    StoreError,
    sleep_until_or,
)
from review_monitor.github import GitHubApi
from review_monitor.store import OutboxEntry, Store, SyncStore, WriteTx, describe_fault

from ._ack import ACKED_KIND, Acknowledger, ack_subjects, reaction_content
from ._backoff import Backoff, RetryState
from ._errors import PublishError
from ._handoff import HANDOFF_KIND, WORKER_KINDS, handoff_notice
from ._inbox import InboxPublisher
from ._merge import can_merge, merge_notices
from ._posts import PostSender
from ._takes import TakeSync

__all__ = [
    "Decision",
    "DeliveryConfig",
    "DeliveryLoop",
    "DeliveryStats",
    "OnSession",
    "OrchestratorOf",
    "PlannedDelivery",
    "Route",
]

_log = logging.getLogger("comment_wake.delivery")

Route = Callable[[str], Publisher | Gone | None]
"""A worker's publisher; ``Gone(reason)`` for an archived worker, None for an unknown one."""
OrchestratorOf = Callable[[str], tuple[str, Publisher] | None]
"""Who takes a gone worker's notices: ``(orchestrator id, its publisher)``, or None."""
OnSession = Callable[[str, str], object]
"""``on_session(worker, new_session_id)``; may return an awaitable."""

_SEED_FAILURES_MAX: Final = 16


class DeliveryConfig(BaseModel):
    """The ``[delivery]`` table."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    # Reaction on each delivered comment ("eyes", "+1", "rocket"...); "" turns it off.
    reaction: str = "eyes"
    # Reaction once the worker says a comment is done (its comment_addressed tool);
    # "" turns it off; it must differ from ``reaction``.
    done_reaction: str = "+1"
    # Messages and reports one worker may send its orchestrator in an hour (worker tools).
    worker_messages_per_hour: int = Field(default=20, ge=1, le=1000)
    # The posting tools (reply, review, progress): ``bind``'s default for ``--post-tools``;
    # each worker's posts an hour; one progress write per gap.
    post_tools: bool = False
    posts_per_hour: int = Field(default=30, ge=1, le=1000, strict=True)
    progress_min_gap: Duration = timedelta(minutes=5)
    # The identity's content bucket, which posts and reactions share.
    content_per_minute: int = Field(default=20, ge=1, le=80, strict=True)
    content_per_hour: int = Field(default=150, ge=1, le=500, strict=True)
    # Per-worker retry after busy or a fault: base * 2**(n-1), capped, jittered down.
    backoff_base: Duration = timedelta(seconds=5)
    backoff_cap: Duration = timedelta(minutes=15)
    backoff_jitter: float = Field(default=0.5, ge=0.0, le=1.0, strict=True)
    # The timeout a publisher built from a binding gets when the binding names none.
    publisher_timeout: Duration = timedelta(minutes=2)
    # The loop's own backstop on one attempt, whatever the publisher does.
    attempt_limit: Duration = timedelta(minutes=30)
    # How often the loop scans the outbox for notices another process enqueued (called
    # ``poll_interval`` before: still read, with a warning, for one release).
    scan_interval: Duration = timedelta(seconds=5)
    # Workers served at once.
    max_in_flight: int = Field(default=8, ge=1, le=256, strict=True)
    # Acknowledgement retries: their own backoff, then given up after so many attempts.
    reaction_backoff_base: Duration = timedelta(seconds=30)
    reaction_backoff_cap: Duration = timedelta(minutes=30)
    reaction_attempts: int = Field(default=8, ge=1, le=100, strict=True)

    @model_validator(mode="before")
    @classmethod
    def _renamed(cls, data: object) -> object:
        if not isinstance(data, dict) or "poll_interval" not in data:
            return data
        if "scan_interval" in data:
            raise ValueError("give scan_interval only: poll_interval is its old name (deprecated)")
        _log.warning(
            "[delivery] poll_interval is deprecated: call it scan_interval (the outbox "
            "scan, not the badge poll); the old name is read until the next release"
        )
        data = dict(data)
        data["scan_interval"] = data.pop("poll_interval")
        return data

    @model_validator(mode="after")
    def _consistent(self) -> Self:
        pickup = reaction_content(self.reaction)  # raises ValueError naming the choices
        done = reaction_content(self.done_reaction)
        if done is not None and done == pickup:
            raise ValueError(
                f"done_reaction ({self.done_reaction!r}) must differ from reaction "
                f"({self.reaction!r}): the commenter tells picked up from done by it"
            )
        for name in (
            "backoff_base",
            "publisher_timeout",
            "scan_interval",
            "reaction_backoff_base",
            "progress_min_gap",
        ):
            if getattr(self, name) <= timedelta(0):
                raise ValueError(f"{name} must be positive")
        if self.backoff_cap < self.backoff_base:
            raise ValueError("backoff_cap must be at least backoff_base")
        if self.reaction_backoff_cap < self.reaction_backoff_base:
            raise ValueError("reaction_backoff_cap must be at least reaction_backoff_base")
        if self.attempt_limit < self.publisher_timeout:
            raise ValueError("attempt_limit must be at least publisher_timeout")
        return self

    @property
    def content_limits(self) -> ContentLimits:
        """The identity's content bucket, as posts and reactions spend from it."""
        return ContentLimits(self.content_per_minute, self.content_per_hour)

    @property
    def reaction_content(self) -> str | None:
        """GitHub's ``ReactionContent`` for ``reaction``; None when acknowledgement is off."""
        return reaction_content(self.reaction)

    def backoff(self) -> Backoff:
        return Backoff(base=self.backoff_base, cap=self.backoff_cap, jitter=self.backoff_jitter)

    def reaction_backoff(self) -> Backoff:
        return Backoff(
            base=self.reaction_backoff_base,
            cap=self.reaction_backoff_cap,
            jitter=self.backoff_jitter,
        )


@dataclass(frozen=True)
class PlannedDelivery:
    """What the loop would do with a worker's due head (``plan``, ``--dry-run``)."""

    seq: int
    worker: str
    key: str
    kind: str
    action: Literal["publish", "hand-off", "park"]
    target: str  # the publisher, or the orchestrator a hand-off goes to
    detail: str


Decision = PlannedDelivery
"""Deprecated: the old name of ``PlannedDelivery``, kept for one release."""


@dataclass(frozen=True)
class DeliveryStats:
    """Counts of outcomes since the loop was built."""

    attempts: int = 0
    delivered: int = 0
    busy: int = 0
    errors: int = 0
    handed_off: int = 0
    parked: int = 0
    merged: int = 0
    reactions: int = 0
    posts: int = 0  # posts and progress edits the worker tools asked for, made or found
    takes: int = 0  # fleet mode: inbox takes recorded in the store


def _describe(exc: BaseException) -> str:
    # A publisher's own errors are written to be safe to log; anything else could carry
    # whatever the failing code put in its message, so only its type is told.
    if isinstance(exc, PublishError):
        return f"{type(exc).__name__}: {exc}"
    if isinstance(exc, TimeoutError):
        return "TimeoutError: the attempt outlasted attempt_limit"
    if isinstance(exc, sqlite3.Error | StoreError):
        return f"the state store failed: {describe_fault(exc)}"
    return f"{type(exc).__name__} (unexpected)"


def _ignore(event: Event) -> None:
    pass


class _Pass(Protocol):
    @property
    def done(self) -> int: ...


class _Runner(Protocol):
    """A side job of the loop: ``Acknowledger``, ``PostSender`` or ``TakeSync``."""

    def next_due(self, db: SyncStore, workers: Collection[str] | None) -> datetime | None:
        """When its next pass falls due (may be past; None: nothing owed), for the
        ``workers`` this host serves: read in the loop's look, on the store's thread."""
        ...

    async def run_once(self) -> _Pass: ...


@dataclass(frozen=True, slots=True)
class _Look:
    """What one pass of the loop reads, in one store call: the due heads, when the next
    head falls due, and when each side job does (in ``_jobs`` order)."""

    heads: tuple[OutboxEntry, ...]
    next_head: datetime | None
    jobs: tuple[datetime | None, ...]


@dataclass(slots=True)
class _SideJob:
    """One side job, whether a pass of it runs, and when it may run again after a fault."""

    name: str
    runner: _Runner
    count: str  # the ``DeliveryStats`` field its passes add to
    running: bool = False
    not_before: datetime | None = None


class DeliveryLoop:
    """Drains the outbox of ``store`` on ``clock``.

    ``route(worker)`` gives a worker's publisher (also asked for orchestrator ids; when it
    does not know one, the publisher ``orchestrator_of`` last named for that id is used).
    ``github``: where acknowledgements go (None: none are owed).  ``dry_run``: decide and
    log, never publish, react or write.  ``host_id`` (fleet mode): this host's id; the
    loop records the notices it writes into inboxes, and at every scan which of them
    were taken (``TakeSync``), so a re-bind elsewhere can queue the untaken ones again.
    """

    def __init__(
        self,
        store: Store,
        *,
        route: Route,
        clock: Clock,
        config: DeliveryConfig | None = None,
        rng: random.Random | None = None,
        orchestrator_of: OrchestratorOf | None = None,
        on_session: OnSession | None = None,
        github: GitHubApi | None = None,
        posts: PostSender | None = None,
        dry_run: bool = False,
        on_event: Callable[[Event], None] | None = None,
        recipients: Callable[[], Collection[str]] | None = None,
        host_id: str | None = None,
    ) -> None:
        self._store = store
        self._host_id = host_id
        # Fleet mode: the ids this host delivers to (its workers and orchestrators: an
        # inbox or a session lives on its host); None: every recipient in the outbox.
        self._recipients = recipients
        self._publish = on_event or _ignore
        self._route = route
        self._clock = clock
        self._config = config or DeliveryConfig()
        self._rng = rng or random.Random()
        self._orchestrator_of = orchestrator_of
        self._on_session = on_session
        self._dry_run = dry_run
        self._backoff = self._config.backoff()
        self._reaction = self._config.reaction_content if github is not None else None
        ack = (
            Acknowledger(
                store,
                github,
                clock=clock,
                backoff=self._config.reaction_backoff(),
                rng=self._rng,
                max_attempts=self._config.reaction_attempts,
                content=self._config.content_limits,
                recipients=recipients,
            )
            if github is not None and self._reaction is not None
            else None
        )
        takes = (
            TakeSync(
                store,
                host_id=host_id,
                clock=clock,
                every=self._config.scan_interval,
                recipients=recipients,
            )
            if host_id is not None
            else None
        )
        # Work beside the outbox, each on its own schedule: the reactions owed, the posts
        # the worker tools asked for and, in fleet mode, the inbox takes to record (never
        # in a dry run).
        self._jobs = tuple(
            _SideJob(name, job, count)
            for name, job, count in (
                ("acknowledgement", ack, "reactions"),
                ("post", posts, "posts"),
                ("take", takes, "takes"),
            )
            if job is not None and not dry_run
        )
        self._inflight: set[str] = set()
        # Workers whose attempt ended while a look was reading: the look's head for them
        # may be the one that attempt just finished (the poke it sent brings a new look).
        self._ended: set[str] = set()
        self._busy_heads: set[int] = set()  # heads whose last live answer was busy
        self._retry: dict[str, RetryState] = {}
        self._hold: dict[str, datetime] = {}  # workers resting after an unexpected failure
        self._orchestrators: dict[str, Publisher] = {}
        self._planned: set[int] = set()
        self._wake = anyio.Event()
        self._counts: dict[str, int] = dict.fromkeys(DeliveryStats.__dataclass_fields__, 0)

    # ------------------------------------------------------------------ public

    @property
    def stats(self) -> DeliveryStats:
        return DeliveryStats(**self._counts)

    def poke(self) -> None:
        """Look at the outbox now (a listener in this process just enqueued)."""
        self._wake.set()

    async def run(self) -> None:
        """Deliver until cancelled.  A cancellation lets the transaction under way finish;
        a publish it interrupts is repeated (same key) after the restart."""
        if self._dry_run:
            await self._run_dry()
            return
        async with anyio.create_task_group() as tg:
            while True:
                self._wake = anyio.Event()
                now = self._clock.now()
                look = await self._look(now)
                self._dispatch(tg, now, look)
                await self._sleep(self._next_wake(now, look))

    async def run_once(self) -> DeliveryStats:
        """Attempt every head due now (concurrently) and then the reactions due; return."""
        async with anyio.create_task_group() as tg:
            now = self._clock.now()
            self._dispatch(tg, now, await self._look(now))
        for job in self._jobs:
            await self._job_pass(job)
        return self.stats

    async def plan(self) -> tuple[PlannedDelivery, ...]:
        """What the loop would do now with each worker's due head; changes nothing."""
        out: list[PlannedDelivery] = []
        workers = await self._local()
        for entry in await self._store.call(SyncStore.due, self._clock.now(), workers=workers):
            publisher, why = await self._resolve(entry.worker)
            if publisher is not None:
                out.append(self._decision(entry, "publish", repr(publisher), ""))
                continue
            target = await self._handoff_target(entry)
            if isinstance(target, str):
                out.append(self._decision(entry, "park", "", f"{why}; {target}"))
            else:
                out.append(self._decision(entry, "hand-off", target[0], why))
        return tuple(out)

    # --------------------------------------------------------------- scheduling

    async def _look(self, now: datetime) -> _Look:
        """The pass's reads, in one store call: a pass runs every ``scan_interval`` and
        at every poke, on every host of a fleet, so it is one trip to the store."""
        self._ended = set()
        workers = await self._local()
        runners = [job.runner for job in self._jobs]

        def read(db: SyncStore) -> _Look:
            return _Look(
                db.due(now, workers=workers),
                db.next_due_at(workers=workers),
                tuple(runner.next_due(db, workers) for runner in runners),
            )

        return await self._store.call(read)

    def _dispatch(self, tg: anyio.abc.TaskGroup, now: datetime, look: _Look) -> None:
        """Start an attempt for each due head whose worker is free and not resting, and a
        pass of each side job (reactions, posts) that is due.  Due work left waiting on a running
        attempt is picked up when that attempt ends (it wakes the loop)."""
        for entry in look.heads:
            hold = self._hold.get(entry.worker)
            if hold is not None and hold > now:
                continue
            if entry.worker in self._ended:
                continue
            if entry.worker in self._inflight or len(self._inflight) >= self._config.max_in_flight:
                continue
            self._hold.pop(entry.worker, None)
            self._inflight.add(entry.worker)
            tg.start_soon(self._attempt_task, entry)
        for job, due in zip(self._jobs, look.jobs, strict=True):
            ready = job.not_before is None or job.not_before <= now
            if due is not None and due <= now and ready and not job.running:
                job.running = True
                tg.start_soon(self._job_task, job)

    def _next_wake(self, now: datetime, look: _Look) -> datetime:
        """When the pass after ``look``'s is due (the jobs ``_dispatch`` just started
        running wake the loop themselves when they end)."""
        candidates = [now + self._config.scan_interval]
        if look.next_head is not None and look.next_head > now:
            candidates.append(look.next_head)
        candidates += [t for t in self._hold.values() if t > now]
        for job, job_due in zip(self._jobs, look.jobs, strict=True):
            if job.running:
                continue
            if job_due is not None:
                if job.not_before is not None:
                    job_due = max(job_due, job.not_before)
                if job_due > now:
                    candidates.append(job_due)
        return min(candidates)

    async def _local(self) -> Collection[str] | None:
        """The recipients this host delivers to (None: all); the registry reads the
        store, so off the event loop."""
        if self._recipients is None:
            return None
        return await anyio.to_thread.run_sync(self._recipients)

    async def _sleep(self, until: datetime) -> None:
        await sleep_until_or(self._clock, until, self._wake)

    async def _attempt_task(self, entry: OutboxEntry) -> None:
        try:
            await self._attempt(entry)
        except Exception as exc:
            # The store or a callback failed outside the outcome contract: rest this worker
            # on its backoff so a persistent fault cannot spin.
            now = self._clock.now()
            state = self._retry.get(entry.worker, RetryState()).after_failure(
                self._backoff, now, self._rng
            )
            self._retry[entry.worker] = state
            self._hold[entry.worker] = state.not_before or now
            _log.error(
                "delivery to worker %s failed outside its publisher (%s); retrying after %s",
                entry.worker,
                _describe(exc),
                state.not_before,
            )
        finally:
            self._inflight.discard(entry.worker)
            self._ended.add(entry.worker)
            self.poke()

    async def _job_task(self, job: _SideJob) -> None:
        try:
            await self._job_pass(job)
        finally:
            job.running = False
            self.poke()

    async def _job_pass(self, job: _SideJob) -> None:
        try:
            done = await job.runner.run_once()
        except Exception as exc:
            # A fault outside the job's own contract (the store): rest it a while.
            job.not_before = self._clock.now() + self._config.reaction_backoff_base
            _log.error("%s pass failed (%s)", job.name, _describe(exc))
            return
        job.not_before = None
        self._counts[job.count] += done.done

    # ------------------------------------------------------------------ one head

    async def _resolve(self, worker: str) -> tuple[Publisher | None, str]:
        # The registry reads SQLite to route: off the event loop.
        got = await anyio.to_thread.run_sync(self._route, worker)
        if isinstance(got, Gone):
            return None, f"gone: {got.reason or 'archived'}"
        if got is None:
            got = self._orchestrators.get(worker)
        if got is None:
            return None, "no publisher for this worker (unknown or archived)"
        return got, ""

    async def _handoff_target(self, entry: OutboxEntry) -> tuple[str, Publisher] | str:
        """The orchestrator that takes ``entry``, or why nobody can."""
        if entry.notice.kind == HANDOFF_KIND:
            return "a hand-off is never handed off again"
        if entry.notice.kind in WORKER_KINDS:
            return "a worker's message is for its orchestrator, nobody else"
        of = self._orchestrator_of
        found = None if of is None else await anyio.to_thread.run_sync(of, entry.worker)
        if found is None:
            return "no orchestrator is configured for it"
        if found[0] == entry.worker:
            return "the worker is its own orchestrator"
        return found

    def _decision(
        self,
        entry: OutboxEntry,
        action: Literal["publish", "hand-off", "park"],
        target: str,
        detail: str,
    ) -> PlannedDelivery:
        return PlannedDelivery(
            entry.seq, entry.worker, entry.notice.key, entry.notice.kind, action, target, detail
        )

    async def _attempt(self, entry: OutboxEntry) -> None:
        publisher, why = await self._resolve(entry.worker)
        if publisher is None:
            with anyio.CancelScope(shield=True):
                await self._cannot_reach(entry, why)
            return
        if entry.seq in self._busy_heads:
            entry = await self._merge_later(entry)
        self._busy_heads.discard(entry.seq)
        self._counts["attempts"] += 1
        outcome: object
        try:
            with anyio.fail_after(self._config.attempt_limit.total_seconds()):
                outcome = await publisher.publish(entry.notice)
        except Exception as exc:
            outcome = exc
        with anyio.CancelScope(shield=True):
            await self._record(entry, outcome, publisher)

    async def _record(self, entry: OutboxEntry, outcome: object, publisher: Publisher) -> None:
        now = self._clock.now()
        worker = entry.worker
        if isinstance(outcome, Delivered):
            subjects = ack_subjects(entry.notice) if self._reaction is not None else ()
            owe_reactions = owing(entry.seq, subjects, self._reaction or "", entry.notice.pr.host)
            track = delivering(entry.seq, entry.notice) if entry.notice.kind == ACKED_KIND else None
            inbox = self._inbox_record(entry, publisher)

            def owe(tx: WriteTx) -> None:
                owe_reactions(tx)
                if track is not None:
                    track(tx)
                if inbox is not None:
                    inbox(tx)

            await self._store.call(
                SyncStore.mark_delivered,
                entry.seq,
                at=now,
                session_id=outcome.session_id,
                detail="" if outcome.session_id is None else f"session {outcome.session_id}",
                also=owe,
            )
            self._counts["delivered"] += 1
            self._publish(
                NoticeDelivered(
                    at=now,
                    worker=worker,
                    notice_key=entry.notice.key,
                    kind=entry.notice.kind,
                    detail="" if outcome.session_id is None else f"session {outcome.session_id}",
                )
            )
            self._retry.pop(worker, None)
            if outcome.session_id is not None and self._on_session is not None:
                await self._tell_session(worker, outcome.session_id)
            return
        if isinstance(outcome, Gone):
            self._retry.pop(worker, None)
            await self._cannot_reach(entry, f"gone: {outcome.reason or 'session ended'}")
            return
        if isinstance(outcome, Refused):
            await self._park(entry, f"refused: {outcome.reason or 'no reason given'}")
            return
        if isinstance(outcome, Busy):
            retry_at = self._schedule(entry, now, outcome.retry_after)
            await self._store.call(
                SyncStore.record_attempt,
                entry.seq,
                at=now,
                outcome="busy",
                detail=outcome.reason,
                retry_at=retry_at,
            )
            self._counts["busy"] += 1
            self._publish(
                NoticeBusy(
                    at=now,
                    worker=worker,
                    notice_key=entry.notice.key,
                    kind=entry.notice.kind,
                    detail=outcome.reason,
                    retry_at=retry_at,
                )
            )
            self._busy_heads.add(entry.seq)
            await self._merge_later(entry)
            return
        detail = (
            _describe(outcome)
            if isinstance(outcome, BaseException)
            else f"the publisher answered a {type(outcome).__name__}, not an outcome"
        )
        retry_at = self._schedule(entry, now, None)
        await self._store.call(
            SyncStore.record_attempt,
            entry.seq,
            at=now,
            outcome="error",
            detail=detail,
            retry_at=retry_at,
        )
        self._counts["errors"] += 1
        _log.warning(
            "delivery of %s to worker %s failed (%s); retry at %s",
            entry.notice.key[:12],
            worker,
            detail,
            retry_at.isoformat(),
        )

    def _inbox_record(
        self, entry: OutboxEntry, publisher: Publisher
    ) -> Callable[[WriteTx], None] | None:
        """Fleet mode: the write recording a worker's notice written into its inbox here
        (whose take ``TakeSync`` records later); None for any other delivery.  A notice
        for an orchestrator (a hand-off, a worker's message) is not the PR's worker's, so
        a re-bind never queues it again."""
        if self._host_id is None or not isinstance(publisher, InboxPublisher):
            return None
        if entry.notice.kind == HANDOFF_KIND or entry.notice.kind in WORKER_KINDS:
            return None
        return delivered_to_inbox(
            entry.seq, entry.notice, host_id=self._host_id, root=str(publisher.root)
        )

    def _schedule(self, entry: OutboxEntry, now: datetime, at_least: timedelta | None) -> datetime:
        # After a restart the worker's failure count starts from what its head has seen,
        # so the backoff keeps growing across crashes instead of starting over.
        state = self._retry.get(entry.worker) or RetryState(
            failures=min(entry.attempts, _SEED_FAILURES_MAX)
        )
        state = state.after_failure(self._backoff, now, self._rng, at_least=at_least)
        self._retry[entry.worker] = state
        return state.not_before or now

    async def _merge_later(self, head: OutboxEntry) -> OutboxEntry:
        """Fold the worker's later pending notices for the same PR into ``head`` (which was
        just answered busy).  A notice that was ever attempted stays as it is: it may have
        reached the worker under its own key."""
        merged = head.notice
        later: list[OutboxEntry] = []
        for e in await self._store.call(SyncStore.entries, worker=head.worker):
            if e.seq <= head.seq or e.attempts:
                continue
            # Each fold is judged against what is merged so far, and the first notice that
            # does not fit ends the folding: merging a later one past it would deliver the
            # two out of order.
            if not can_merge(merged, e.notice):
                break
            merged = merge_notices(merged, e.notice)
            later.append(e)
        if not later:
            return head
        await self._store.call(
            SyncStore.merge_into,
            head.seq,
            merged,
            absorbed=[e.seq for e in later],
            at=self._clock.now(),
        )
        self._counts["merged"] += len(later)
        return msgspec.structs.replace(head, notice=merged)

    async def _cannot_reach(self, entry: OutboxEntry, why: str) -> None:
        target = await self._handoff_target(entry)
        if isinstance(target, str):
            await self._park(entry, f"{why}; {target}")
            return
        orchestrator, publisher = target
        self._orchestrators[orchestrator] = publisher
        now = self._clock.now()
        handoff = handoff_notice(entry.notice, orchestrator, why, at=now)
        await self._store.call(SyncStore.hand_off, entry.seq, handoff, at=now, detail=why)
        self._counts["handed_off"] += 1
        self._publish(
            NoticeHandedOff(
                at=now,
                worker=entry.worker,
                notice_key=entry.notice.key,
                kind=entry.notice.kind,
                orchestrator=orchestrator,
                detail=why,
            )
        )
        _log.warning(
            "worker %s cannot take notice %s (%s); handed off to %s",
            entry.worker,
            entry.notice.key[:12],
            why,
            orchestrator,
        )
        self.poke()

    async def _park(self, entry: OutboxEntry, detail: str) -> None:
        now = self._clock.now()
        await self._store.call(SyncStore.park, entry.seq, at=now, detail=detail)
        self._counts["parked"] += 1
        self._publish(
            NoticeParked(
                at=now,
                worker=entry.worker,
                notice_key=entry.notice.key,
                kind=entry.notice.kind,
                detail=detail,
            )
        )
        self._retry.pop(entry.worker, None)
        _log.error(
            "notice %s (%s) for worker %s is parked and will not be retried: %s. Fix the "
            "worker's binding, then unpark its notices.",
            entry.notice.key[:12],
            entry.notice.kind,
            entry.worker,
            detail,
        )

    async def _tell_session(self, worker: str, session_id: str) -> None:
        assert self._on_session is not None
        try:
            result = self._on_session(worker, session_id)
            if inspect.isawaitable(result):
                await result
        except Exception as exc:
            _log.error(
                "worker %s now answers as session %s, but following it failed (%s)",
                worker,
                session_id,
                _describe(exc),
            )

    # ------------------------------------------------------------------ dry run

    async def _run_dry(self) -> None:
        while True:
            for d in await self.plan():
                if d.seq in self._planned:
                    continue
                self._planned.add(d.seq)
                _log.info(
                    "dry run: would %s notice %s (%s) of worker %s%s%s",
                    d.action,
                    d.key[:12],
                    d.kind,
                    d.worker,
                    f" via {d.target}" if d.target else "",
                    f": {d.detail}" if d.detail else "",
                )
            self._wake = anyio.Event()
            await self._sleep(self._clock.now() + self._config.scan_interval)
