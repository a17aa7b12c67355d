"""``Monitor``: the one object an application builds to watch its pull requests.

It assembles the pieces: the GitHub client, the permissions component (with a start-up
preflight of the token's own login on every watched repository), the state store (with
the daemon's lease), the poller with ``read_badges`` bound to the client and the windows
from the configuration, the budget governor, and the monitor's own notices listener.
Applications add their own listeners (the comment wake) before ``run``.

    async with Monitor(github=gh_config, config=monitor_config, store_path=path) as monitor:
        monitor.add_listener(wake, run=wake.run)
        await monitor.run()  # until cancelled

Each poll round ends with a ``PollRound`` event (how many PRs were read, in how many
batches, what they cost and what is left of the budget), and each failure with a
``Fault``, given to ``on_event``; by default the round becomes one line on the
``review_monitor.poll`` logger.  No event names an author or quotes any text read from
GitHub.
"""

from __future__ import annotations

import functools
import logging
import random
from collections.abc import Callable, Collection, Coroutine, Mapping, Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
import anyio.to_thread
import msgspec

from ._badge import (
    FAILING_STATES,
    read_badges,
    read_details,
    read_failing_checks,
    read_failing_checks_batch,
)
from ._clock import Clock, SystemClock
from ._config import GitHubConfig, MonitorConfig
from ._duration import format_duration
from ._errors import GitHubError, StoreError
from ._events import EventSink, Fault, PollRound, fault_of, log_event
from ._fleet import (
    FleetMode,
    FleetWatches,
    Relay,
    StorePermissions,
    StreamFollower,
    StreamShipper,
    UnreadWatches,
)
from ._github import GitHubClient, RetryPolicy
from ._governor import BudgetGovernor, Pace
from ._lease_keeper import LeaseKeeper, LeaseLostError
from ._listener import Listener, Watch
from ._model import BadgeBatch, CheckFailure, ItemDetail, PrRef
from ._notices import MonitorNotices
from ._observations import Dispatcher, InMemoryObservations, Observation, ObservationSource
from ._permissions import Permissions, is_valid_login
from ._poller import Poller, WatchSource
from ._ratelimit import RateLimit
from ._split import BatchSplitter
from ._store._budget import read_budget, record_budget
from ._store._faults import describe_fault
from ._store._leases import HeldLease
from ._store._poll_requests import RequestKind, TakenRequest, put_requests, take_requests
from ._store._stream import (
    ReaderState,
    latest_observations,
    prune_bodies,
    prune_stream,
    read_reader_state,
    reader_lease_name,
    save_reader_state,
)
from ._sweep import read_sweep
from ._token import find_token
from .store import Store, SyncStore, Tables

if TYPE_CHECKING:
    import httpx

__all__ = ["Monitor"]

_log = logging.getLogger("review_monitor.monitor")

TokenSource = str | Callable[[], str]

# How often a fleet host passes its poll requests on, and the reader drains them.
_REQUESTS_EVERY = timedelta(seconds=1)
# The bodies offered from the stream a host keeps for its listeners' reads (they read an
# observation's bodies while it is handed to them; more is only a cache past its use).
_OFFERED_KEPT = 1000
# The stream's prefetched bodies are kept ten minutes; a PR's rows a day after its last
# read (a watched PR is read at least every full_badge_interval).
_BODIES_KEPT = timedelta(minutes=10)
_ROWS_KEPT = timedelta(days=1)
Task = Callable[[], Coroutine[Any, Any, None]]


class _Round:
    """What one poll round read and spent."""

    def __init__(self) -> None:
        self.batches = 0
        self.failed_batches = 0
        self.prs: list[PrRef] = []
        self.unread = 0  # PRs of a successful batch whose own answer was an error
        self.missing = 0
        self.sweeps = 0
        self.swept = 0
        self.cost = 0
        self.remaining: int | None = None
        self.reset_at: datetime | None = None
        self.interval: timedelta | None = None


class _Tally:
    """The poller's observer: counts each round's reads and emits its ``PollRound`` when
    the round is done, and a ``Fault`` for each failure."""

    def __init__(self, client: GitHubClient, clock: Clock, emit: EventSink) -> None:
        self._client = client
        self._clock = clock
        self._emit = emit
        self._round: _Round | None = None
        self.interval: timedelta | None = None  # the last paced round's interval

    def begin(self) -> None:
        self.report()
        self._round = _Round()

    def round_planned(self, batches: int, pace: Pace | None) -> None:
        self.begin()
        if pace is not None and self._round is not None:
            self._round.interval = pace.interval
        if pace is not None:
            self.interval = pace.interval

    def _current(self) -> _Round:
        if self._round is None:
            self._round = _Round()
        return self._round

    def sweep_read(self, quiet: Sequence[PrRef], requests: int, cost: int) -> None:
        r = self._current()
        r.sweeps += requests
        r.swept += len(quiet)
        r.prs.extend(quiet)
        r.cost += cost

    def batch_read(self, batch: Sequence[PrRef], result: BadgeBatch) -> None:
        r = self._current()
        r.batches += 1
        r.prs.extend(batch)
        r.cost += result.cost or 0
        r.missing += len(result.missing)
        r.unread += max(0, len(batch) - len(result.statuses) - len(result.missing))
        if result.remaining is not None:
            r.remaining = result.remaining
        if result.reset_at is not None:
            r.reset_at = result.reset_at

    def batch_failed(self, batch: Sequence[PrRef], exc: Exception) -> None:
        r = self._current()
        r.batches += 1
        r.failed_batches += 1
        r.prs.extend(batch)
        fault = (
            fault_of(exc, self._clock.now())
            if isinstance(exc, GitHubError)
            else Fault(at=self._clock.now(), kind="github", detail=type(exc).__name__)
        )
        detail = f"badge poll of {len(batch)} PRs failed: {fault.detail}"
        self._emit(msgspec.structs.replace(fault, detail=detail))

    def pr_gone(self, pr: PrRef) -> None:
        self._emit(Fault(at=self._clock.now(), kind="pr-gone", pr=pr, detail="not found"))

    def pr_refused(self, pr: PrRef, code: str) -> None:
        """GitHub refuses the badge query of ``pr`` alone (``BatchSplitter``)."""
        detail = f"badge query refused ({code}); read alone from now on"
        self._emit(Fault(at=self._clock.now(), kind="github", pr=pr, detail=detail))

    def report(self) -> PollRound | None:
        """Emit the current round's ``PollRound`` and return it (None: it read nothing)."""
        r, self._round = self._round, None
        if r is None or (r.batches == 0 and r.sweeps == 0):
            return None
        remaining, reset_at = r.remaining, r.reset_at
        latest = self._client.rate_limit
        if remaining is None and latest is not None:
            remaining, reset_at = latest.remaining, latest.reset_at
        figures = PollRound(
            at=self._clock.now(),
            prs=tuple(r.prs),
            batches=r.batches,
            cost=r.cost,
            remaining=remaining,
            reset_at=reset_at,
            interval=r.interval,
            failed_batches=r.failed_batches,
            unread=r.unread,
            missing=r.missing,
            sweeps=r.sweeps,
            swept=r.swept,
        )
        self._emit(figures)
        return figures

    round_done = report


class _Prefetch:
    """Bodies of a batch's new items, read in one detail query before its listeners run,
    and the failing checks of its PRs whose checks newly fail, in one checks query.

    Listeners are called one PR at a time, so a listener that reads bodies itself sends one
    detail query per busy PR.  Right after a badge batch is read, the monitor reads the
    bodies of every item that is new since the PR's latest observation (up to
    ``detail_batch``, one query) and serves them to ``Monitor.read_details`` until the
    next batch.  A failed prefetch is dropped: the listeners then read for themselves.
    Reviews the token's login did not write are read to their first page of inline
    comments only (``read_details``' ``first_page_only``): a stranger's long review costs
    one page until a listener has decided it wants the rest.

    The failing checks are read for each open PR of the batch whose check state fails and
    whose (head, check state) differs from its latest observation's (or that has none):
    one batched query, whose answers ride on the PRs' observations (``checks_for``) and
    so reach fleet owners too.  A failed read is dropped the same way.
    """

    def __init__(
        self, client: GitHubClient, config: MonitorConfig, observations: ObservationSource
    ) -> None:
        self._client = client
        self._config = config
        self._observations = observations
        self._bodies: dict[str, ItemDetail] = {}
        self._checks: dict[PrRef, tuple[CheckFailure, ...]] = {}

    async def after_read(self, result: BadgeBatch) -> None:
        """Read the new items' bodies of a batch just read, before it is published."""
        self._bodies = {}
        fresh: list[str] = []
        others: set[str] = set()
        for pr, status in result.statuses.items():
            items = (*status.comments, *status.reviews)
            others.update(i.id for i in items if not i.viewer_did_author)
            latest = self._observations.latest(pr)
            if latest is not None:
                before = {i.id for i in (*latest.badge.comments, *latest.badge.reviews)}
                fresh.extend(i.id for i in items if i.id not in before)
        if not fresh:
            return
        c = self._config
        try:
            self._bodies = await read_details(
                self._client,
                fresh[: c.detail_batch],
                batch=c.detail_batch,
                inline_window=c.inline_window,
                first_page_only=others,
            )
        except GitHubError:
            self._bodies = {}

    async def read_checks(self, result: BadgeBatch) -> None:
        """Read the newly failing checks of a batch just read, before it is published."""
        self._checks = {}
        failing: list[PrRef] = []
        for pr, status in result.statuses.items():
            latest = self._observations.latest(pr)
            moved = latest is None or (latest.badge.head_ref_oid, latest.badge.check_state) != (
                status.head_ref_oid,
                status.check_state,
            )
            if status.is_open and status.check_state in FAILING_STATES and moved:
                failing.append(pr)
        if not failing:
            return
        try:
            self._checks = await read_failing_checks_batch(self._client, failing)
        except GitHubError:
            self._checks = {}

    def checks_for(self, pr: PrRef) -> tuple[CheckFailure, ...] | None:
        """The failing checks this batch's prefetch read for ``pr`` (None: not read)."""
        return self._checks.get(pr)

    def bodies_for(self, observation: Observation) -> dict[str, ItemDetail] | None:
        """The bodies this batch's prefetch read of ``observation``'s items (the fleet's
        reader ships them with it); None when it read none."""
        badge = observation.badge
        found = {
            i.id: body
            for i in (*badge.comments, *badge.reviews)
            if (body := self._bodies.get(i.id)) is not None
        }
        return found or None

    def offer(self, bodies: Mapping[str, ItemDetail]) -> None:
        """Bodies another host's prefetch read (an observation from the fleet's stream),
        served by ``read`` as this host's own are.  Past ``_OFFERED_KEPT`` bodies the
        older ones are dropped (a miss only costs the reader of it a read)."""
        kept = self._bodies if len(self._bodies) < _OFFERED_KEPT else {}
        self._bodies = {**kept, **bodies}

    async def read(
        self, ids: Sequence[str], first_page_only: Collection[str] = ()
    ) -> dict[str, ItemDetail]:
        found = {
            i: body
            for i in ids
            if (body := self._bodies.get(i)) is not None
            and (body.more_inline is None or i in first_page_only)
        }
        rest = [i for i in ids if i not in found]
        if rest:
            c = self._config
            found.update(
                await read_details(
                    self._client,
                    rest,
                    batch=c.detail_batch,
                    inline_window=c.inline_window,
                    first_page_only=first_page_only,
                )
            )
        return found


def _latest_observations(db: SyncStore, identity: str) -> list[Observation]:
    with db.read() as tx:
        return latest_observations(tx, identity)


def _swap_requests(
    db: SyncStore,
    identity: str,
    asked: Sequence[tuple[PrRef, RequestKind]],
    reading: bool,
    now: datetime,
) -> list[TakenRequest]:
    """Write the requests made here; when this host reads, take every host's."""
    with db.write(at=now) as tx:
        put_requests(tx, identity, asked)
        return take_requests(tx, identity) if reading else []


def _prune_stream_rows(db: SyncStore, identity: str, now: datetime) -> None:
    with db.write(at=now) as tx:
        # A pass every _BODIES_KEPT: the rows of the last two windows cover what the
        # previous pass had not reached yet.
        prune_bodies(tx, identity, now - _BODIES_KEPT, since=now - 3 * _BODIES_KEPT)
        prune_stream(tx, identity, now - _ROWS_KEPT)


def _record_budget(
    db: SyncStore, identity: str, limits: Sequence[RateLimit], now: datetime
) -> None:
    with db.write(at=now) as tx:
        record_budget(tx, identity, limits)


def _read_reader_state(db: SyncStore, identity: str) -> ReaderState:
    with db.read() as tx:
        return read_reader_state(tx, identity)


def _save_reader_state(db: SyncStore, identity: str, state: ReaderState, now: datetime) -> None:
    with db.write(at=now) as tx:
        save_reader_state(tx, identity, state)


def _read_budget(db: SyncStore, identity: str) -> dict[str, RateLimit]:
    with db.read() as tx:
        return read_budget(tx, identity)


class _Viewer:
    """The token's own login, read once (``GET /user``) and kept: the one owner of it, for
    the permission preflight and for the post sender's search of its own posts."""

    def __init__(self, client: GitHubClient) -> None:
        self._client = client
        self._viewer: str | None = None
        self._viewer_failed = False
        self._viewer_refused = False  # GitHub will not say who the token is (an app token)

    async def login(self) -> str | None:
        """The token's own login (read once, ``GET /user``); None while GitHub has not
        said (a fault: asked again next time) or refused to."""
        if self._viewer is not None or self._viewer_refused:
            return self._viewer
        why: str | None = None
        try:
            answer = await self._client.rest_get("/user")
        except GitHubError as exc:
            why = type(exc).__name__
        else:
            body = answer.body
            login = body.get("login") if isinstance(body, dict) else None
            if answer.status == 200 and isinstance(login, str) and is_valid_login(login):
                self._viewer = login
                return login
            why = f"HTTP {answer.status}"
            # A refusal will not change by asking again; only a fault is worth a retry.
            self._viewer_refused = 400 <= answer.status < 500
        if not self._viewer_failed:
            self._viewer_failed = True
            _log.warning(
                "could not read the token's own login (%s); the permission preflight %s",
                why,
                "is skipped" if self._viewer_refused else "waits for the next poll",
            )
        return None


class _Watches:
    """The store's watch registry as the poller sees it: PRs on this client's host only,
    and each newly watched repository preflighted once.  The list is read again only
    when the registry version moved: a round costs one store read when nothing did."""

    def __init__(
        self,
        store: Store,
        client: GitHubClient,
        permissions: Permissions,
        clock: Clock,
        viewer: _Viewer,
    ) -> None:
        self._store = store
        self._version: int | None = None
        self._kept: list[Watch] = []
        self._client = client
        self._permissions = permissions
        self._clock = clock
        self._viewer = viewer
        self._checked: set[str] = set()
        self._foreign: set[PrRef] = set()

    async def watches(self) -> Sequence[Watch]:
        if self._version is not None:
            version = await self._store.call(SyncStore.registry_version)
            if version == self._version:
                return self._kept
        self._version, found = await self._store.call(SyncStore.versioned_watches)
        host = self._client.host
        kept = [w for w in found if w.pr.host == host]
        for w in found:
            if w.pr.host != host and w.pr not in self._foreign:
                self._foreign.add(w.pr)
                _log.warning(
                    "%s is on %s, not on %s which this monitor polls; it is not polled",
                    w.pr,
                    w.pr.host,
                    host,
                )
        repos = sorted({w.pr.repo for w in kept} - self._checked)
        if repos:
            await self._preflight(repos)
        self._kept = kept
        return kept

    async def _preflight(self, repos: Sequence[str]) -> None:
        viewer = await self._viewer.login()
        if viewer is None:
            return
        for repo in repos:
            try:
                message = await self._permissions.preflight(repo, viewer, self._clock.now())
            except (GitHubError, ValueError) as exc:
                _log.warning("permission preflight on %s failed: %s", repo, type(exc).__name__)
                message = None
            self._checked.add(repo)
            if message is not None:
                _log.error("%s", message)


class Monitor:
    """The PR review monitor, assembled.  Use as ``async with Monitor(...) as monitor``.

    ``token`` is the token, or a callable returning it; None finds it as ``gh`` does
    (``find_token``, which raises ``TokenNotFoundError``).  ``transport`` is the httpx
    seam (tests); ``retry`` the client's backoff for 5xx and timeouts.  ``lease=False``
    opens the store without the daemon's lease (a one-shot command).  ``store``: an open
    store to use instead of opening ``store_path`` (its owner closes it); ``tables`` are
    the application's parts of the store it opens (``SyncStore.open``).  ``on_event``
    gets each ``PollRound`` and ``Fault`` (default: ``log_event``, one line per round).
    ``rng``: the client's retry jitter (a replay passes a seeded one).
    ``notice_text_limit``: the most characters a notice of the monitor's own may hold (a
    quoted review body or check summary is cut to fit, with a note); None: no bound but
    the fence's own.

    Entering opens the store (``StoreLockedError`` when another daemon holds it) and
    builds the poller; leaving closes the GitHub client and the store it opened.  ``store``,
    ``client``, ``permissions``, ``notices`` and ``poller`` are there for listeners
    (the comment wake reads through the same client and shares the permissions cache).
    """

    def __init__(
        self,
        *,
        store_path: Path | str | None = None,
        store: Store | None = None,
        github: GitHubConfig | None = None,
        config: MonitorConfig | None = None,
        clock: Clock | None = None,
        token: TokenSource | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        retry: RetryPolicy | None = None,
        listeners: Sequence[Listener] = (),
        lease: bool = True,
        hint_delay: timedelta = timedelta(seconds=2),
        tables: Sequence[Tables] = (),
        on_event: EventSink | None = None,
        rng: random.Random | None = None,
        notice_text_limit: int | None = None,
        fleet: FleetMode | None = None,
    ) -> None:
        if (store_path is None) == (store is None):
            raise ValueError("give the Monitor either store_path or an open store, not both")
        self.github_config = github or GitHubConfig()
        self.config = config or MonitorConfig()
        self.clock: Clock = clock or SystemClock()
        self._store_path = None if store_path is None else Path(store_path)
        self._given_store = store
        self._lease = lease
        self._tables = tuple(tables)
        self._hint_delay = hint_delay
        self._notice_text_limit = notice_text_limit
        chosen = token if token is not None else find_token(self.github_config.host)
        self.client = GitHubClient(
            chosen, self.github_config, transport=transport, clock=self.clock, retry=retry, rng=rng
        )
        self.permissions = Permissions(self.client, self.config)
        self._listeners: list[Listener] = list(listeners)
        self._tasks: list[Task] = []
        # The observation stream the poller publishes and the listeners follow.
        self._observations = InMemoryObservations()
        self._tally = _Tally(self.client, self.clock, on_event or log_event)
        self._viewer = _Viewer(self.client)
        self._prefetch = _Prefetch(self.client, self.config, self._observations)
        # Kept across poller rebuilds: which PRs are read alone because GitHub refuses them.
        self._splitter = BatchSplitter(
            now=self.clock.now,
            on_fault=self._tally.pr_refused,
            pause=self.config.missing_pr_interval,
        )
        self._store: Store | None = None
        self._notices: MonitorNotices | None = None
        self._poller: Poller | None = None
        self._running = False
        # Fleet mode: this host follows the store's stream of the PRs it owns, and polls
        # for the whole fleet only while it holds its identity's reader lease.
        self._fleet = fleet
        self._dispatcher: Dispatcher | None = None
        # Fleet mode: hints and poll requests made here, for whichever host reads.
        self._asked: list[tuple[PrRef, RequestKind]] = []

    # -- lifecycle ---------------------------------------------------------------------

    async def __aenter__(self) -> Monitor:
        if self._given_store is not None:
            self._store = self._given_store
        else:
            assert self._store_path is not None
            try:
                self._store = await anyio.to_thread.run_sync(
                    functools.partial(
                        Store.open,
                        self._store_path,
                        lease=self._lease,
                        clock=self.clock,
                        tables=self._tables,
                    )
                )
            except BaseException:
                await self.client.aclose()
                raise
        if self._fleet is not None:
            self.permissions.shared = StorePermissions(self._store, self.clock)
        c = self.config
        self._notices = MonitorNotices(
            store=self._store,
            permissions=self.permissions,
            read_details=self.read_details,
            read_checks=functools.partial(read_failing_checks, self.client),
            review_bots=c.review_bots,
            permission_retries=c.permission_retries,
            text_limit=self._notice_text_limit,
            observations=self._observations,
            clock=self.clock,
        )
        self._build_poller()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the GitHub client and the store (releasing the lease).  Idempotent."""
        with anyio.CancelScope(shield=True):
            self._tally.report()
            await self.client.aclose()
            store, self._store = self._store, None
            if store is not None and store is not self._given_store:
                await anyio.to_thread.run_sync(store.close)
        self._poller = None

    # -- what listeners use ------------------------------------------------------------

    @property
    def store(self) -> Store:
        if self._store is None:
            raise RuntimeError("the monitor is not open: use `async with Monitor(...)`")
        return self._store

    @property
    def notices(self) -> MonitorNotices:
        if self._notices is None:
            raise RuntimeError("the monitor is not open: use `async with Monitor(...)`")
        return self._notices

    @property
    def poller(self) -> Poller:
        if self._poller is None:
            raise RuntimeError("the monitor is not open: use `async with Monitor(...)`")
        return self._poller

    @property
    def observations(self) -> ObservationSource:
        """The observation stream: what the poller saw (``follow``, ``latest``)."""
        return self._observations

    @property
    def poll_interval(self) -> timedelta:
        """The poll interval in force: the last round's pace (the budget governor may
        stretch it past ``config.poll_interval``), the configured one before any round."""
        return self._tally.interval or self.config.poll_interval

    def add_listener(self, listener: Listener, *, run: Task | None = None) -> None:
        """Add a listener (before ``run``); ``run``, if given, is its own long-running task
        (timers), started and cancelled with the monitor."""
        if self._running:
            raise RuntimeError("add listeners before the monitor runs")
        if any(existing.name == listener.name for existing in self._all_listeners()):
            raise ValueError(f"a listener named {listener.name!r} is already added")
        self._listeners.append(listener)
        if run is not None:
            self._tasks.append(run)
        if self._store is not None:
            self._build_poller()

    def _all_listeners(self) -> list[Listener]:
        own: list[Listener] = [self._notices] if self._notices is not None else []
        return [*own, *self._listeners]

    def _build_poller(self) -> None:
        # The poller copies its listeners, so it is rebuilt when one is added; before
        # ``run`` it holds no state worth keeping.
        if self._fleet is not None:
            # No poller of its own: the follower hands the stream's items to the listeners.
            self._dispatcher = Dispatcher(
                self._observations, self._all_listeners(), now=self.clock.now
            )
            return
        self._poller = self._new_poller(
            self._observations, self._all_listeners(), self._prefetch, self._watch_source()
        )

    def _watch_source(self) -> WatchSource:
        return _Watches(self.store, self.client, self.permissions, self.clock, self._viewer)

    def _new_poller(
        self,
        observations: InMemoryObservations,
        listeners: Sequence[Listener],
        prefetch: _Prefetch,
        watches: WatchSource,
    ) -> Poller:
        c = self.config
        reader = functools.partial(
            read_badges,
            self.client,
            comments_window=c.comments_window,
            reviews_window=c.reviews_window,
        )
        splitter = self._splitter

        async def read(batch: Sequence[PrRef]) -> BadgeBatch:
            result = await splitter.read(reader, batch)
            await prefetch.after_read(result)
            await prefetch.read_checks(result)
            return result

        return Poller(
            watches=watches,
            read_badges=read,
            read_sweep=functools.partial(read_sweep, self.client),
            listeners=listeners,
            clock=self.clock,
            config=c,
            governor=BudgetGovernor(
                base_interval=c.poll_interval,
                budget_share=c.budget_share,
                hint_share=c.hint_share,
            ),
            hint_delay=self._hint_delay,
            observer=self._tally,
            observations=observations,
            failing_checks=prefetch.checks_for,
        )

    # -- running -----------------------------------------------------------------------

    async def run(self) -> None:
        """Poll until cancelled, with every added listener's own task beside the poller
        (in fleet mode: follow the stream, and poll while this host is the reader)."""
        if self._fleet is not None:
            await self._run_fleet(self._fleet)
            return
        poller = self.poller
        if self._running:
            raise RuntimeError("the monitor is running already")
        self._running = True
        _log.info(
            "monitor started on %s: every %s, batches of %d",
            self.client.host,
            format_duration(self.config.poll_interval),
            self.config.batch_size,
        )
        try:
            async with anyio.create_task_group() as tg:
                if self._notices is not None:
                    tg.start_soon(self._notices.run)
                for task in self._tasks:
                    tg.start_soon(task)
                tg.start_soon(poller.run)
        finally:
            self._running = False
            self._tally.report()
            _log.info("monitor stopped")

    async def _run_fleet(self, fleet: FleetMode) -> None:
        if self._running:
            raise RuntimeError("the monitor is running already")
        self._running = True
        identity = await self._identity(fleet)
        assert self._dispatcher is not None
        follower = StreamFollower(
            self.store,
            identity,
            fleet.host_id,
            self._observations,
            self._dispatcher,
            self.clock,
            every=fleet.follow_every,
            offer_bodies=self._prefetch.offer,
        )
        _log.info("monitor started in fleet mode on %s as host %s", identity, fleet.host_id)
        try:
            async with anyio.create_task_group() as tg:
                if self._notices is not None:
                    tg.start_soon(self._notices.run)
                for task in self._tasks:
                    tg.start_soon(task)
                tg.start_soon(follower.run)
                tg.start_soon(self._poll_unread, fleet, identity)
                tg.start_soon(self._lead, fleet, identity)
                tg.start_soon(self._share_budget, fleet, identity)
                tg.start_soon(self._serve_requests, identity)
        finally:
            self._running = False
            self._tally.report()
            _log.info("monitor stopped")

    async def _poll_unread(self, fleet: FleetMode, identity: str) -> None:
        """Every poll interval, the PRs this host owns that the reader cannot read (its
        token's repository selection or SSO may differ from this host's): read here, in
        one one-shot round without a sweep, and handed to this host's listeners."""
        assert self._dispatcher is not None
        watches = UnreadWatches(self.store, identity, fleet.host_id)
        poller = self._new_poller(
            self._observations, [Relay(self._dispatcher)], self._prefetch, watches
        )
        while True:
            await self.clock.sleep_until(self.clock.now() + self.config.poll_interval)
            try:
                if await watches.refresh():
                    await poller.poll_round()
            except StoreError as exc:  # the server away: the next interval tries again
                _log.warning("this host's unread PRs were not read: %s", describe_fault(exc))

    async def _share_budget(self, fleet: FleetMode, identity: str) -> None:
        """Write what this host's client last heard of the identity's budget into the
        shared row, at every lease renewal when it heard something new (a host that asked
        GitHub nothing since, as an owner in a quiet hour, has nothing to add)."""
        written: tuple[RateLimit, ...] = ()
        while True:
            await self.clock.sleep_until(self.clock.now() + fleet.lease_renew)
            limits = tuple(self.client.rate_limits.values())
            if limits and limits != written:
                try:
                    await self.store.call(_record_budget, identity, limits, self.clock.now())
                    written = limits
                except Exception as exc:  # a store fault: the next tick writes again
                    _log.warning("the budget row was not written: %s", describe_fault(exc))

    async def _serve_requests(self, identity: str) -> None:
        """Every second: pass the hints and poll requests made here to the store, and,
        while this host reads, serve every host's (the reader drains them)."""
        while True:
            if not self._asked and self._poller is None:
                await self.clock.sleep_until(self.clock.now() + _REQUESTS_EVERY)
                continue  # nothing to pass on, nothing to serve: no store call
            asked, self._asked = self._asked, []
            try:
                taken = await self.store.call(
                    _swap_requests, identity, asked, self._poller is not None, self.clock.now()
                )
            except Exception as exc:  # a store fault: keep them for the next second
                self._asked = asked + self._asked
                _log.warning("poll requests were not passed on: %s", describe_fault(exc))
                taken = []
            poller = self._poller
            for pr, kind, requested_at in taken:
                if poller is None:  # the lease went during the call: on to the next reader
                    self._asked.append((pr, kind))
                elif kind == "hint":
                    # The hint's delay counts from when its host wrote it: its way through
                    # the store to the reader is part of that delay, not added to it.
                    poller.poll_now(pr, seen_at=requested_at)
                else:
                    poller.request_poll(pr)
            await self.clock.sleep_until(self.clock.now() + _REQUESTS_EVERY)

    async def _identity(self, fleet: FleetMode) -> str:
        """``github_host:login``: whose points the fleet shares, and so its reader."""
        while True:
            login = await self._viewer.login()
            if login is not None:
                return f"{self.client.host}:{login.lower()}"
            _log.warning("the token's login is not known yet; the fleet roles wait for it")
            await self.clock.sleep_until(self.clock.now() + fleet.lease_renew)

    async def _lead(self, fleet: FleetMode, identity: str) -> None:
        """Campaign for the reader lease; while held, poll for the fleet."""
        keeper = LeaseKeeper(
            fleet.lease_store,
            reader_lease_name(identity),
            fleet.holder,
            clock=self.clock,
            claim=fleet.holder,
            ttl=fleet.lease_ttl,
            renew_every=fleet.lease_renew,
            now=fleet.lease_now,
        )
        while True:
            try:
                outcome = await keeper.acquire()
            except StoreError as exc:  # the server away: every host waits, nothing moves
                _log.warning("the reader lease was not campaigned for: %s", exc)
                outcome = None
            if not isinstance(outcome, HeldLease):
                await self.clock.sleep_until(self.clock.now() + fleet.lease_renew)
                continue
            _log.info("this host reads for %s (term %d)", identity, outcome.term)
            try:
                await self._read_for_fleet(fleet, identity, keeper)
            except* LeaseLostError as lost:  # from the task group too: campaign again
                _log.warning("%s", lost.exceptions[0])
            except* StoreError as failed:  # a store fault while reading: campaign again
                _log.warning("reading for the fleet stopped: %s", failed.exceptions[0])
            finally:
                self._hand_on_waiting()

    def _hand_on_waiting(self) -> None:
        """Stop reading: the hints and poll requests this host's poller had not served
        yet go back through the store to the next reader, not lost with the poller."""
        poller, self._poller = self._poller, None
        if poller is not None:
            hints, polls = poller.waiting()
            self._asked.extend([(pr, "hint") for pr in hints] + [(pr, "poll") for pr in polls])

    async def _read_for_fleet(self, fleet: FleetMode, identity: str, keeper: LeaseKeeper) -> None:
        """Poll every live host's watched PRs and ship what is seen, until the lease is
        lost (``LeaseLostError``) or a write is refused (another reader took over)."""

        def term() -> int:
            held = keeper.held
            return 0 if held is None else held.term

        seen = InMemoryObservations()
        for latest in await self.store.call(_latest_observations, identity):
            seen.publish(latest)  # the sweep book and the listed ids go on from these
        prefetch = _Prefetch(self.client, self.config, seen)
        shipper = StreamShipper(self.store, identity, fleet.holder, term, prefetch.bodies_for)
        poller = self._new_poller(
            seen, [shipper], prefetch, FleetWatches(self.store, self.client.host, fleet.lease_now)
        )
        state = await self.store.call(_read_reader_state, identity)
        poller.seed_missing(state.missing)  # not read again before their backoff ends
        self._splitter.seed(state.alone)  # read alone without a split to find them
        shared = (await self.store.call(_read_budget, identity)).get("graphql")
        if shared is not None:  # what the fleet spent before this host read for it
            poller.governor.record(
                batch=None, cost=None, remaining=shared.remaining, reset_at=shared.reset_at
            )
        self._poller = poller
        async with anyio.create_task_group() as tg:
            tg.start_soon(poller.run)
            tg.start_soon(keeper.keep)
            tg.start_soon(self._prune_stream, identity)
            tg.start_soon(self._keep_reader_state, identity, poller, state)
            await shipper.deposed.wait()
            tg.cancel_scope.cancel()
        raise LeaseLostError(f"another reader took {reader_lease_name(identity)}; reading stops")

    async def _keep_reader_state(self, identity: str, poller: Poller, saved: ReaderState) -> None:
        """Every poll interval, the reader's NOT_FOUND PRs and its PRs read alone, into
        the store when they changed: a reader that takes over starts from them."""
        while True:
            await self.clock.sleep_until(self.clock.now() + self.config.poll_interval)
            state = ReaderState(missing=poller.missing, alone=self._splitter.refused)
            if state == saved:
                continue
            try:
                await self.store.call(_save_reader_state, identity, state, self.clock.now())
            except Exception as exc:  # a store fault: the next interval writes it
                _log.warning("the reader's state was not saved: %s", describe_fault(exc))
            else:
                saved = state

    async def _prune_stream(self, identity: str) -> None:
        """The reader's housekeeping of the stream, every ten minutes: prefetched bodies
        older than ten minutes (a cache: an owner that misses one reads it), and the rows
        of PRs no longer read (none for a day)."""
        while True:
            await self.clock.sleep_until(self.clock.now() + _BODIES_KEPT)
            try:
                await self.store.call(_prune_stream_rows, identity, self.clock.now())
            except Exception as exc:  # a store fault: the next pass prunes
                _log.warning("the observation stream was not pruned: %s", describe_fault(exc))

    async def poll_round(self) -> None:
        """Poll every watched PR once, back to back (a one-shot poll)."""
        self._tally.begin()
        try:
            await self.poller.poll_round()
        finally:
            self._tally.report()

    async def read_details(
        self, ids: Sequence[str], first_page_only: Collection[str] = ()
    ) -> dict[str, ItemDetail]:
        """Bodies by node id, like ``read_details`` on the monitor's client, but served
        from the bodies the monitor read for the current batch when it has them: a
        listener that reads its new items through here costs one detail query per batch
        instead of one per busy PR.  The reviews in ``first_page_only`` may come read to
        their first page of inline comments (``ItemDetail.more_inline``); every other is
        read in full."""
        return await self._prefetch.read(ids, first_page_only)

    async def viewer_login(self) -> str | None:
        """The token's own login (read once, ``GET /user``); None while GitHub has not
        said (a fault: asked again next time) or refused to."""
        return await self._viewer.login()

    def poll_now(self, pr: PrRef) -> None:
        """Poll ``pr`` soon (a webhook saw activity), within ``hint_min_gap`` and the
        hint share (``Poller.poll_now``); call it from the event loop.  In fleet mode it
        goes through the store to the reader, which serves it within a second."""
        if self._fleet is not None:
            self._asked.append((pr, "hint"))  # the reader serves it within a second
            return
        self.poller.poll_now(pr)

    def request_poll(self, pr: PrRef) -> None:
        """Read ``pr``'s full badge at the next round, whatever its NOT_FOUND backoff or
        the sweep says, not sooner than ``hint_min_gap`` after its last read
        (``Poller.request_poll``); call it from the event loop."""
        if self._fleet is not None:
            self._asked.append((pr, "poll"))
            return
        self.poller.request_poll(pr)

    def requested(self, pr: PrRef) -> bool:
        """Whether a poll request of ``pr`` waits for a round here (``Poller.requested``);
        in fleet mode, whether it waits to be written to the store (from there a reader
        takes it, and hands it on if it stops reading before serving it)."""
        if self._fleet is not None:
            return (pr, "poll") in self._asked
        return self.poller.requested(pr)

    def retry_times(self) -> dict[PrRef, datetime]:
        """Each PR GitHub answered NOT_FOUND, with when it is read again."""
        return self.poller.retry_times() if self._poller is not None else {}

    next_tries = retry_times
    """Deprecated: the old name of ``retry_times``, kept for one release."""
