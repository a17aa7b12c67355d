"""The composition root: the one place the app is assembled.

    async with open_app(config, state_dir=path, token=token, callbacks={"mgr": fn}) as app:
        app.subscribe(print)
        await app.run()  # until cancelled

``open_app`` builds, in this order: the ``Monitor`` (GitHub client, permissions, poller,
the monitor's own notices; it opens the store and takes the lease), the ``Registry`` over
the same store (with the in-process ``callbacks``), the ``CommentWake`` listener, the
``DeliveryLoop`` and, when configured, the webhook ``HintListener``.  Every part reports
through one ``EventBus``; the status tracker is a subscriber like any other.  The
daemon, the replay, the demo and the test rigs all build the app here; nothing else in
``src/`` constructs ``Monitor``, ``CommentWake`` or ``DeliveryLoop``.

Every scheduled wait goes through the injected clock (the poller, the wake's timers, the
delivery loop, the housekeeping), so the whole app runs on a ``VirtualClock`` in tests.
Timeouts on real I/O (a publisher that hangs, a slow HTTP client) stay in real seconds:
they guard against the outside world, not against time.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import random
import tempfile
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

import anyio
import anyio.abc
import anyio.to_thread
import msgspec

from comment_wake._limits import NOTICE_BUILD_LIMIT
from comment_wake._paths import inbox_root, private_dir, store_path, tighten_tree
from comment_wake.config import AppConfig
from comment_wake.delivery import (
    ORCHESTRATOR_KINDS,
    WITHHELD_ENV,
    DeliveryLoop,
    NoticeCallback,
    PostSender,
)
from comment_wake.events import (
    Event,
    EventBus,
    EventLogger,
    EventStream,
    Fault,
    NoticeQueued,
    PollRound,
    Subscriber,
)
from comment_wake.fleet import HOST_LOST, HostLease, Janitor, host_identity, open_host_lease
from comment_wake.hints import HintListener, load_secret, matching_watch
from comment_wake.registry import (
    Registry,
    RegistryBook,
    RegistrySnapshot,
    write_registry_cache,
)
from comment_wake.service import DECISIONS, GAPS, BindingSource, CommentWake, SharedGapPages
from comment_wake.store import (
    APP_TABLES,
    PollRequest,
    clear_poll_request,
    open_store,
    poll_requests,
    prune_inbox_deliveries,
    prune_outcomes,
    prune_posts,
    prune_reactions,
    prune_records,
    refuse_two_spellings,
    release_requests,
)
from review_monitor import (
    Clock,
    FleetMode,
    Monitor,
    PrRef,
    StoreError,
    SystemClock,
    sleep_until_or,
)
from review_monitor.github import RetryPolicy
from review_monitor.store import (
    Lease,
    LeaseLostError,
    LeaseNow,
    Store,
    SyncStore,
    database_now,
    describe_fault,
)

from ._explain import COMMENT_URL_FORMS, Explanation, comment_target, explain_comment
from ._refusal import TokenRefusal, TokenRefusedError
from ._snapshot import snapshot_store
from ._state import DaemonState, PrStates, StatusTracker, daemon_state_key, pr_key
from ._status import StatusReport, read_status

if TYPE_CHECKING:
    import httpx

__all__ = ["DRY_RUN_NEEDS_SQLITE", "HINT_DELAY", "App", "open_app", "open_monitor"]

HINT_DELAY = timedelta(seconds=0.5)
"""How soon a PR's first webhook hint polls it (hints arriving meanwhile share that poll;
later ones wait for ``[monitor] hint_min_gap`` and the hint share of the budget)."""

_HEARTBEAT = timedelta(seconds=15)
_WATCH_REFRESH = timedelta(seconds=2)
_log = logging.getLogger("comment_wake.app")


class App:
    """comment-wake, assembled and open.  Build it with ``open_app``.

    ``registry`` is the worker registry (with the callbacks given to ``open_app``), or
    None when the caller brought its own ``bindings``.  ``monitor``, ``wake`` and
    ``delivery`` are the parts, for drivers that step them (the replay polls by hand).
    """

    def __init__(
        self,
        *,
        config: AppConfig,
        state_dir: Path,
        clock: Clock,
        bus: EventBus,
        monitor: Monitor,
        wake: CommentWake,
        delivery: DeliveryLoop | None,
        registry: Registry | None,
        dry_run: bool,
        environ: Mapping[str, str],
        book: RegistryBook | None = None,
        host: HostLease | None = None,
        janitor: Janitor | None = None,
    ) -> None:
        self.config = config
        self.host = host
        self.janitor = janitor
        self.state_dir = state_dir
        self.clock = clock
        self.monitor = monitor
        self.wake = wake
        self.delivery = delivery
        self.registry = registry
        self.dry_run = dry_run
        self._bus = bus
        self._environ = environ
        self._tracker = StatusTracker()
        bus.subscribe(self._tracker)
        monitor.add_listener(PrStates(self._tracker))
        self._started = clock.now()
        # The watched PRs, for hints and requests: the registry book's (reloaded when the
        # registry version moves, at each round's end), else read from the store.
        self._book = book
        self._read_watched: tuple[PrRef, ...] = ()
        self._releases: dict[PrRef, datetime] = {}  # release requests already acted on
        self._polls: dict[PrRef, PollRequest] = {}  # poll requests handed to the poller
        self._round = anyio.Event()
        self.hint_port: int | None = None
        self.ready = anyio.Event()
        self._refusal = TokenRefusal()
        self._refused: TokenRefusedError | None = None
        self._lost: LeaseLostError | None = None
        self._running: anyio.CancelScope | None = None
        bus.subscribe(self._on_event)

    # -- events ------------------------------------------------------------------------

    def subscribe(self, fn: Subscriber) -> Callable[[], None]:
        """Call ``fn`` with every event from now on (on the event loop, synchronously:
        keep it quick); returns the function that unsubscribes it."""
        return self._bus.subscribe(fn)

    def events(self, *, max_buffer: int = 100_000) -> EventStream:
        """``async for event in app.events()``: every event from this call on, until the
        app closes."""
        return self._bus.stream(max_buffer=max_buffer)

    def _on_event(self, event: Event) -> None:
        if isinstance(event, NoticeQueued) and self.delivery is not None:
            self.delivery.poke()
        elif isinstance(event, PollRound):
            self._round.set()
        if self._refused is None and self._refusal.see(event):
            self._stop_refused()

    def _stop_refused(self) -> None:
        """The token is refused for good: stop ``run``, which raises the error."""
        gh = self.config.github
        host = gh.host if not gh.api_url else f"{gh.host} ({gh.api_url.rstrip('/')})"
        since = self._refusal.since or self.clock.now()
        self._refused = TokenRefusedError(host, since=since, rounds=self._refusal.rounds)
        if self._running is not None:
            self._running.cancel()

    # -- what a session manager asks -----------------------------------------------------

    @property
    def rounds(self) -> int:
        """Poll rounds finished since the app opened."""
        return self._tracker.rounds

    def state(self, *, stopped: bool = False) -> DaemonState:
        """The running app's own figures (``status``'s ``daemon`` member)."""
        now = self.clock.now()
        budget = self.monitor.client.rate_limit
        t = self._tracker
        return DaemonState(
            pid=os.getpid(),
            started_at=self._started,
            updated_at=now,
            dry_run=self.dry_run,
            host=self.monitor.client.host,
            last_poll=t.last_poll,
            budget_remaining=budget.remaining if budget else None,
            budget_limit=budget.limit if budget else None,
            budget_reset_at=budget.reset_at if budget else None,
            wakes=t.wakes,
            decisions=t.decisions,
            stopped_at=now if stopped else None,
            stop_reason=(
                str(self._refused or self._lost)
                if stopped and (self._refused or self._lost)
                else None
            ),
            polled=dict(sorted(t.polled.items())),
            faults=t.faults,
            pr_states=dict(sorted(t.pr_states.items())),
            pr_heads=dict(sorted(t.pr_heads.items())),
            pr_errors=dict(sorted(t.pr_errors.items())),
            pr_next_try=dict(
                sorted((pr_key(p), at) for p, at in self.monitor.retry_times().items())
            ),
        )

    async def status(self) -> StatusReport:
        """What ``comment-wake status --json`` prints, with this app's live figures."""
        now = self.clock.now()
        report = await self.monitor.store.call(
            read_status,
            self.config.wake,
            now,
            inbox=inbox_root(self.state_dir),
            host_id=None if self.host is None else self.host.host_id,
        )
        return msgspec.structs.replace(report, daemon_running=True, daemon=self.state())

    async def explain(self, pr: PrRef | str, comment: str | None = None) -> tuple[Explanation, ...]:
        """Every recorded decision about ``comment`` (a node id, a database id or its
        URL) on ``pr`` (a ``PrRef`` or any form ``PrRef.parse`` takes), each with the
        rule walk ``comment-wake explain`` shows; ``explain(url)`` takes a comment's URL
        alone.  ``ValueError`` for a PR or URL that cannot be read."""
        host = self.monitor.client.host
        if comment is None:
            target = None if isinstance(pr, PrRef) else comment_target(pr, host=host)
            if target is None:
                raise ValueError(
                    "give the pull request and the comment, or a comment's URL "
                    f"({COMMENT_URL_FORMS})"
                )
            ref, comment = target[0], str(pr)
        else:
            ref = pr if isinstance(pr, PrRef) else PrRef.parse(pr, host=host)
        return await self.monitor.store.call(explain_comment, ref, comment)

    def poll_now(self, pr: PrRef) -> None:
        """Poll ``pr`` soon (a webhook or the session manager saw activity)."""
        match = matching_watch(pr, self._watched)
        self.monitor.poll_now(match or pr)

    # -- running -----------------------------------------------------------------------

    async def run(self) -> None:
        """Poll, wake, deliver and keep house until cancelled.  Raises
        ``TokenRefusedError`` when GitHub kept refusing the token (``_refusal``)."""
        try:
            async with anyio.create_task_group() as tg:
                self._running = tg.cancel_scope
                if self._refused is not None:
                    tg.cancel_scope.cancel()
                if self.delivery is not None:
                    tg.start_soon(self.delivery.run)
                await self._refresh_watches()
                await self._finish_unwatched()
                if self.config.webhook.enabled:
                    await self._start_hints(tg)
                tg.start_soon(self._housekeeping)
                tg.start_soon(self.monitor.run)
                if self.host is not None:
                    tg.start_soon(self._keep_host)
                if self.janitor is not None:
                    tg.start_soon(self.janitor.run)
                self.ready.set()
        finally:
            self._running = None
            with anyio.CancelScope(shield=True):
                await self._write_state(stopped=True)
        if self._refused is not None:
            raise self._refused
        if self._lost is not None:
            raise self._lost

    async def _keep_host(self) -> None:
        """Renew the host lease until cancelled; a lost one stops ``run``, which raises
        the ``LeaseLostError``."""
        assert self.host is not None
        try:
            await self.host.keep()
        except LeaseLostError as exc:
            _log.error("%s", exc)
            self._lost = exc
            if self._running is not None:
                self._running.cancel()

    async def _finish_unwatched(self) -> None:
        """Look once at every PR whose wake mark outlived its watch: held comments and
        pending retries there wait on timers, which only a poll rebuilds after a restart,
        and an unwatched PR is never polled; the look lets the core decide them."""
        try:
            marked = await self.monitor.store.call(SyncStore.marked_prs, self.wake.name)
        except Exception as exc:
            self._store_fault("listing the PRs with a wake mark", exc)
            return
        watched = set(self._watched)
        for pr in marked:
            if pr in watched:
                continue
            try:
                await self.wake.look(pr, self.clock.now())
            except Exception as exc:
                _log.error("a look at unwatched %s failed: %s", pr, describe_fault(exc))

    async def _start_hints(self, tg: anyio.abc.TaskGroup) -> None:
        secret = load_secret(self.config.webhook, self._environ)

        def hint(pr: PrRef) -> None:
            match = matching_watch(pr, self._watched)
            if match is not None:
                self.monitor.poll_now(match)

        listener = HintListener(self.config.webhook, secret, hint, clock=self.clock)
        self.hint_port = await tg.start(listener.serve)

    @property
    def _watched(self) -> tuple[PrRef, ...]:
        return self._book.snapshot.watched if self._book is not None else self._read_watched

    async def _refresh_watches(self) -> None:
        if self._book is not None:
            return  # the book is current: the wake refreshes it at every round's end
        try:
            found = await self.monitor.store.call(SyncStore.watches)
        except Exception as exc:
            self._store_fault("reading the watch list", exc)
            return
        self._read_watched = tuple(sorted({w.pr for w in found}))

    def _store_fault(self, doing: str, exc: Exception) -> None:
        detail = f"{doing}: {describe_fault(exc)}"
        _log.warning("the state store failed %s", detail)
        self._bus.publish(Fault(at=self.clock.now(), kind="store", detail=detail))

    # -- housekeeping ------------------------------------------------------------------

    def _prune_every(self) -> timedelta:
        return max(timedelta(minutes=1), min(timedelta(hours=1), self.config.prune_after / 10))

    async def _housekeeping(self) -> None:
        """Prune, refresh the watch list for hints, keep the status entry current: after
        every poll round and on a heartbeat, all on the app's clock."""
        next_prune = self.clock.now()
        next_beat = self.clock.now()
        next_watch = self.clock.now() + _WATCH_REFRESH
        while True:
            now = self.clock.now()
            if now >= next_prune:
                await self.prune(now)
                next_prune = now + self._prune_every()
            if now >= next_watch:
                await self._refresh_watches()
                await self.apply_releases(now)
                await self.apply_poll_requests(now)
                next_watch = now + _WATCH_REFRESH
            if now >= next_beat or self._round.is_set():
                self._round = anyio.Event()
                await self._write_state()
                next_beat = now + _HEARTBEAT
            await sleep_until_or(self.clock, min(next_prune, next_watch, next_beat), self._round)

    async def apply_releases(self, now: datetime) -> int:
        """Act on the release requests ``comment-wake release`` recorded: look at each
        requested PR now (the look applies the request and deletes it), or poll it soon
        when no badge of it is known yet.  A request is acted on once; if its look fails,
        the PR's next poll applies it.  Returns how many requests were acted on."""
        try:
            requests = await self.monitor.store.call(release_requests)
        except Exception as exc:
            self._store_fault("reading the release requests", exc)
            return 0
        pending = {r.pr: r.requested_at for r in requests}
        self._releases = {pr: t for pr, t in self._releases.items() if pending.get(pr) == t}
        acted = 0
        for pr, requested_at in pending.items():
            if self._releases.get(pr) == requested_at:
                continue
            self._releases[pr] = requested_at
            acted += 1
            try:
                if not await self.wake.apply_release(pr, now):
                    self.poll_now(pr)
            except Exception as exc:
                _log.error("applying the release of %s failed: %s", pr, type(exc).__name__)
        return acted

    async def apply_poll_requests(self, now: datetime) -> int:
        """Act on the poll requests ``comment-wake poll`` recorded: hand each to the poller
        (``Monitor.request_poll``: its next round reads the PR, not sooner than
        ``hint_min_gap`` after its last read), and delete it once the poller served it.  A
        request for a PR no longer watched is deleted.  Returns how many were handed over."""
        store = self.monitor.store
        try:
            requests = await store.call(poll_requests)
        except Exception as exc:
            self._store_fault("reading the poll requests", exc)
            return 0
        pending = {r.pr: r for r in requests}
        self._polls = {pr: r for pr, r in self._polls.items() if pending.get(pr) == r}
        if any(pr not in self._polls for pr in pending):
            # A request may name a PR bound since the round began: see the registry now.
            try:
                await self.wake.refresh_bindings(now)
            except Exception as exc:
                self._store_fault("reading the registry", exc)
        handed = 0
        for pr, request in pending.items():
            match = matching_watch(pr, self._watched)
            served = pr in self._polls and not self.monitor.requested(match or pr)
            if match is None or served:
                self._polls.pop(pr, None)
                try:
                    await store.call(clear_poll_request, request, at=now)
                except Exception as exc:
                    self._store_fault("deleting a served poll request", exc)
                continue
            if pr not in self._polls:
                self._polls[pr] = request
                self.monitor.request_poll(match)
                handed += 1
        return handed

    async def prune(self, now: datetime) -> int:
        """Delete what is older than ``prune_after``: finished notices with their attempts,
        finished reactions, decision and flood-gap records, comment outcomes, settled posts
        with their id records (not a progress comment).  Returns how many rows went."""
        before = now - self.config.prune_after
        store = self.monitor.store
        try:
            notices = await store.call(SyncStore.prune, before=before)
            reactions = await store.call(prune_reactions, before=before)
            records = await store.call(prune_records, DECISIONS, before=before)
            records += await store.call(prune_records, GAPS, before=before)
            addressed = await store.call(prune_outcomes, before=before)
            posted = await store.call(prune_posts, before=before)
            await store.call(prune_inbox_deliveries, at=now)
        except Exception as exc:
            self._store_fault("pruning", exc)
            return 0
        total = notices + reactions + records + addressed + posted
        if total:
            _log.info(
                "pruned what is older than %s: %d notice(s), %d reaction(s), "
                "%d decision record(s), %d comment outcome(s), %d post(s)",
                before.isoformat(timespec="seconds"),
                notices,
                reactions,
                records,
                addressed,
                posted,
            )
        return total

    async def _write_state(self, *, stopped: bool = False) -> None:
        state = self.state(stopped=stopped)
        try:
            await self.monitor.store.call(
                SyncStore.set_state,
                daemon_state_key(None if self.host is None else self.host.host_id),
                msgspec.json.encode(state),
                at=state.updated_at,
            )
        except Exception as exc:
            self._store_fault("writing the status entry", exc)


def _private_state(state: Path) -> None:
    """The state directory, created 0700; anything in it that others could read (an older
    version's files, a loose umask, a copy) is tightened, and that is said once."""
    private_dir(state)
    loose = tighten_tree(state)
    if loose:
        _log.warning(
            "the state directory %s held %d paths other users could read (the store holds "
            "comment bodies); made them private: directories 0700, files 0600",
            state,
            len(loose),
        )


@contextlib.asynccontextmanager
async def open_app(
    config: AppConfig,
    *,
    state_dir: Path | str,
    token: str | Callable[[], str],
    transport: httpx.AsyncBaseTransport | None = None,
    clock: Clock | None = None,
    callbacks: Mapping[str, NoticeCallback] | None = None,
    environ: Mapping[str, str] | None = None,
    dry_run: bool = False,
    retry: RetryPolicy | None = None,
    rng: random.Random | None = None,
    store: Store | None = None,
    bindings: BindingSource | None = None,
    deliver: bool = True,
) -> AsyncIterator[App]:
    """Build the app and open it: the store's lease is taken on entry and given back on
    exit (``StoreLockedError`` names the daemon that holds it).

    With ``[store] url`` (fleet mode) the state directory keeps its local lock, the store
    is the PostgreSQL server (a work connection, and a second one for this host's lease,
    ``host:<host_id>``, taken on entry, renewed while ``run`` runs and released on exit:
    ``app.host`` holds its term), and the daemon keeps the registry cache that
    ``inbox take`` reads in the state directory.  A dry run needs the SQLite store.

    ``token``: the GitHub token, or a callable returning it.  ``transport``: an httpx
    transport instead of the network (tests; or set ``[github] api_url``).  ``clock``:
    the clock every wait goes through (default: the wall clock; a clock given here is also
    the host lease's "now" in fleet mode, else the database's clock is).  ``callbacks``: the
    in-process publishers a ``CallbackSpec`` binding names.  ``environ``: where webhook
    and publisher secrets come from (default ``os.environ``).  ``dry_run``: decide on a
    copy of the store and deliver nothing.  ``rng``: every random draw (fence nonces,
    jitter).  ``store``: an open store to use instead of ``state_dir/state.db`` (the
    replay's inline store; its owner closes it).  ``bindings``: a ``BindingSource`` of the
    caller's instead of the registry (no registry, no delivery then).  ``deliver=False``
    leaves notices in the outbox.
    """
    state = Path(state_dir)
    the_clock: Clock = clock or SystemClock()
    env = os.environ if environ is None else environ
    bus = EventBus()
    bus.subscribe(EventLogger())  # the app's log lines are written from its events
    url = config.store.url if store is None else None
    if url is not None and dry_run:
        raise StoreError(DRY_RUN_NEEDS_SQLITE)
    async with contextlib.AsyncExitStack() as stack:
        if store is None:
            await anyio.to_thread.run_sync(_private_state, state)
        host: HostLease | None = None
        fleet: FleetMode | None = None
        if url is not None:
            # Fleet mode: the local lock, the work store and the host lease.
            store, host, fleet = await _open_fleet(stack, config, state, url, the_clock, clock)
        path = store_path(state)
        if dry_run and store is None:
            tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="cw-dry-")))
            await anyio.to_thread.run_sync(snapshot_store, path, store_path(tmp))
            path = store_path(tmp)
            _log.info(
                "dry run: deciding on a copy of %s; nothing is delivered, reacted to or "
                "written to the real store",
                store_path(state),
            )
        c = config
        monitor = _monitor(
            c,
            store_path=None if store is not None else path,
            store=store,
            clock=the_clock,
            token=token,
            transport=transport,
            retry=retry,
            lease=not dry_run,
            on_event=bus.publish,
            rng=rng,
            fleet=fleet,
        )
        await stack.enter_async_context(monitor)
        # One PR bound to two live workers under two spellings (an earlier build's store):
        # refused here, before anything polls, with the command that fixes it.
        refuse_two_spellings(monitor.store.sync)
        registry: Registry | None = None
        book: RegistryBook | None = None
        source: BindingSource
        if bindings is None:
            registry = Registry(
                monitor.store.sync,
                inbox_root=inbox_root(state),
                clock=the_clock,
                callbacks=callbacks,
                publisher_timeout=c.delivery.publisher_timeout,
                environ=env,
                daemon_secrets=(c.webhook.secret_env,),
                host_id=None if host is None else host.host_id,
            )
            # The wake reads the bindings from one snapshot, reloaded when the registry
            # version moves (issue 26): a look no longer decodes every worker's record.
            # In fleet mode it also keeps the local registry cache ``inbox take`` reads.
            on_load = None if host is None else functools.partial(_write_cache, state)
            source = book = await anyio.to_thread.run_sync(
                functools.partial(RegistryBook, registry, on_load=on_load)
            )
        else:
            source = bindings
        wake = CommentWake(
            store=monitor.store,
            api=monitor.client,
            permissions=monitor.permissions,
            bindings=source,
            publish=bus.publish,
            clock=the_clock,
            config=c.wake,
            monitor=c.monitor,
            rng=rng,
            details=monitor.read_details,
            interval=lambda: monitor.poll_interval,
            observations=monitor.observations,
            host_id=None if host is None else host.host_id,
            # Fleet mode: a flood's gap pages beyond the first take the identity's gap
            # bucket and wait while its shared budget is low (deferred, never skipped).
            gap_pages=None
            if host is None
            else SharedGapPages(
                monitor.store,
                host=monitor.client.host,
                viewer=monitor.viewer_login,
                limits=c.fleet.gap_limits,
            ),
        )
        monitor.add_listener(wake, run=wake.run)
        delivery: DeliveryLoop | None = None
        if deliver and registry is not None:
            # Fleet mode: this host serves the workers and orchestrators bound on it.
            recipients = None if host is None else registry.recipients
            secret_names = (*sorted(WITHHELD_ENV), c.webhook.secret_env)

            def secrets() -> tuple[str, ...]:
                # The token as it is now (it may rotate), and every withheld value.
                now_token = token() if callable(token) else token
                return (now_token, *(env[n] for n in secret_names if env.get(n)))

            posts = PostSender(
                monitor.store,
                monitor.client,
                clock=the_clock,
                viewer=monitor.viewer_login,
                secrets=secrets,
                grace=c.monitor.sweep_grace,
                progress_gap=c.delivery.progress_min_gap,
                content=c.delivery.content_limits,
                backoff=c.delivery.reaction_backoff(),
                rng=rng or random.Random(),
                recipients=recipients,
            )
            delivery = DeliveryLoop(
                monitor.store,
                route=registry.route,
                clock=the_clock,
                config=c.delivery,
                rng=rng,
                orchestrator_of=registry.orchestrator_of,
                on_session=registry.on_session,
                github=None if dry_run else monitor.client,
                posts=posts,
                dry_run=dry_run,
                on_event=bus.publish,
                recipients=recipients,
                host_id=None if host is None else host.host_id,
            )
        janitor = None
        if host is not None and fleet is not None and registry is not None and not dry_run:
            # A host back takes its notices the janitor parked while it was lost.
            await anyio.to_thread.run_sync(
                _take_back, monitor.store.sync, registry, the_clock.now()
            )
            janitor = Janitor(
                monitor.store,
                fleet.lease_store,
                registry,
                github_host=c.github.host,
                holder=host.instance,
                clock=the_clock,
                ttl=c.fleet.lease_ttl,
                renew_every=c.fleet.lease_renew,
                now=fleet.lease_now,
            )
        app = App(
            config=c,
            state_dir=state,
            clock=the_clock,
            bus=bus,
            monitor=monitor,
            wake=wake,
            delivery=delivery,
            registry=registry,
            dry_run=dry_run,
            environ=env,
            book=book,
            host=host,
            janitor=janitor,
        )
        stack.callback(bus.close)
        yield app


DRY_RUN_NEEDS_SQLITE = (
    "a dry run needs the SQLite store for now: it decides on a copy of the store, and a "
    "copy of a shared PostgreSQL store is not taken (run it without [store] url, on a "
    "copy of this host's state directory)"
)
"""Why ``open_app(dry_run=True)`` (``run --dry-run``) refuses a ``[store] url``."""


async def _open_fleet(
    stack: contextlib.AsyncExitStack,
    config: AppConfig,
    state: Path,
    url: str,
    clock: Clock,
    given_clock: Clock | None,
) -> tuple[Store, HostLease, FleetMode]:
    """Fleet mode's opening, each part closed by ``stack``: the local lock on the state
    directory (beside where ``state.db`` would be), the work store on ``url`` (its own
    connection), and this host's lease on a second one (``StoreLockedError`` when another
    daemon holds it); and the monitor's fleet roles on that lease connection.  The
    leases' "now" is the database's clock, or the clock the caller gave (tests on
    virtual time)."""
    local = await anyio.to_thread.run_sync(Lease.acquire, store_path(state))
    stack.callback(local.release)
    work = await anyio.to_thread.run_sync(functools.partial(open_store, url, clock=clock))
    stack.callback(work.close)
    await anyio.to_thread.run_sync(work.sync.check_writable)
    leases = Store(
        await anyio.to_thread.run_sync(functools.partial(SyncStore.open, url, clock=clock))
    )
    stack.callback(leases.close)
    identity = await anyio.to_thread.run_sync(host_identity, state, config.fleet.host_id)
    now: LeaseNow = database_now if given_clock is None else (lambda _tx: clock.now())
    host = await open_host_lease(leases, identity, config.fleet, clock=clock, now=now)
    stack.push_async_callback(_shielded, host.release)
    _log.info(
        "fleet mode: store %s, host_id %s, host lease term %d (instance %s)",
        work.sync.where,
        identity.host_id,
        host.term or 0,
        host.instance,
    )
    fleet = FleetMode(
        host_id=identity.host_id,
        holder=host.instance,
        lease_store=leases,
        lease_ttl=config.fleet.lease_ttl,
        lease_renew=config.fleet.lease_renew,
        lease_now=now,
    )
    return work, host, fleet


def _take_back(store: SyncStore, registry: Registry, now: datetime) -> None:
    """Put this host's recipients' ``host-lost`` notices back in their queues."""
    back = sum(
        store.unpark(
            r, at=now, reason=HOST_LOST, to_current_worker=True, staying=ORCHESTRATOR_KINDS
        )
        for r in registry.recipients()
    )
    if back:
        _log.info("took back %d notice(s) parked while this host was lost", back)


def _write_cache(state: Path, snapshot: RegistrySnapshot) -> None:
    """The registry cache for ``inbox take``; a failed write is logged, never a stop (the
    next registry change writes it again)."""
    try:
        write_registry_cache(state, snapshot)
    except OSError as exc:
        _log.warning(
            "the registry cache in %s was not written (%s); `inbox take` reads the last one",
            state,
            exc.strerror or type(exc).__name__,
        )


async def _shielded(fn: Callable[[], Awaitable[None]]) -> None:
    with anyio.CancelScope(shield=True):
        await fn()


@contextlib.asynccontextmanager
async def open_monitor(
    config: AppConfig,
    store: SyncStore,
    *,
    token: str,
    transport: httpx.AsyncBaseTransport | None = None,
) -> AsyncIterator[Monitor]:
    """The monitor as ``open_app`` assembles it (its GitHub client and permissions
    component), over an open store and without the daemon's lease, for a one-shot check
    (``doctor``) that must ask GitHub what the daemon would ask."""
    async with _monitor(
        config, store=Store(store), token=token, transport=transport, lease=False
    ) as monitor:
        yield monitor


def _monitor(
    config: AppConfig,
    *,
    token: str | Callable[[], str],
    lease: bool,
    store_path: Path | None = None,
    store: Store | None = None,
    clock: Clock | None = None,
    transport: httpx.AsyncBaseTransport | None = None,
    retry: RetryPolicy | None = None,
    on_event: Callable[[Event], None] | None = None,
    rng: random.Random | None = None,
    fleet: FleetMode | None = None,
) -> Monitor:
    """The one place a ``Monitor`` is built: the configuration's GitHub and monitor tables,
    the app's store parts, the hint delay and the notice bound."""
    return Monitor(
        store_path=store_path,
        store=store,
        github=config.github,
        config=config.monitor,
        clock=clock,
        token=token,
        transport=transport,
        retry=retry,
        lease=lease,
        hint_delay=HINT_DELAY,
        tables=APP_TABLES,
        on_event=on_event,
        rng=rng,
        notice_text_limit=NOTICE_BUILD_LIMIT,
        fleet=fleet,
    )
