"""``Monitor``: the one object an application builds to watch its pull requests.

It assembles the pieces: the GitHub client, the permissions component (with a start-up
preflight of the token's own login on every watched repository), the state store (with
the daemon's lease), the poller with ``read_badges`` bound to the client and the windows
from the configuration, the budget governor, and the monitor's own notices listener.
Applications add their own listeners (the comment wake) before ``run``.

    async with Monitor(github=gh_config, config=monitor_config, store_path=path) as monitor:
        monitor.add_listener(wake, run=wake.run)
        await monitor.run()  # until cancelled

Each poll round ends with one summary line on the ``review_monitor.poll`` logger: how
many PRs were read, in how many batches, what they cost and what is left of the budget.
It never names an author or quotes any text read from GitHub.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Coroutine, Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
import anyio.to_thread

from ._badge import read_badges, read_details, read_failing_checks
from ._clock import Clock, SystemClock
from ._config import GitHubConfig, MonitorConfig
from ._duration import format_duration
from ._errors import GitHubError
from ._github import GitHubClient, RetryPolicy
from ._governor import BudgetGovernor, Pace
from ._listener import Listener, Watch
from ._model import BadgeBatch, ItemDetail, PrRef
from ._notices import MonitorNotices
from ._permissions import Permissions, is_valid_login
from ._poller import Poller
from ._store import Store
from ._token import find_token

if TYPE_CHECKING:
    import httpx

__all__ = ["Monitor"]

_log = logging.getLogger("review_monitor.monitor")
_poll_log = logging.getLogger("review_monitor.poll")

TokenSource = str | Callable[[], str]
Task = Callable[[], Coroutine[Any, Any, None]]


class _Round:
    """What one poll round read and spent, for its summary line."""

    def __init__(self, expected: int | None) -> None:
        self.expected = expected  # batches the round planned; None: a one-shot round
        self.done = 0  # planned batches finished (read or failed)
        self.batches = 0
        self.failed_batches = 0
        self.prs = 0
        self.unread = 0  # PRs of a successful batch whose own answer was an error
        self.missing = 0
        self.cost = 0
        self.remaining: int | None = None
        self.reset_at: datetime | None = None
        self.interval: timedelta | None = None


class _Tally:
    """Counts each round's reads and writes its summary line once."""

    def __init__(self, client: GitHubClient) -> None:
        self._client = client
        self._round: _Round | None = None

    def begin(self, expected: int | None) -> None:
        self.report()
        self._round = _Round(expected)

    def planned(self, pace: Pace) -> None:
        if self._round is not None:
            self._round.interval = pace.interval

    def _current(self) -> _Round:
        if self._round is None:
            self._round = _Round(None)
        return self._round

    def read(self, batch: Sequence[PrRef], result: BadgeBatch) -> None:
        r = self._current()
        r.batches += 1
        r.prs += len(batch)
        r.cost += result.cost or 0
        r.missing += len(result.missing)
        r.unread += max(0, len(batch) - len(result.statuses) - len(result.missing))
        if result.remaining is not None:
            r.remaining = result.remaining
        if result.reset_at is not None:
            r.reset_at = result.reset_at

    def failed(self, batch: Sequence[PrRef]) -> None:
        r = self._current()
        r.batches += 1
        r.failed_batches += 1
        r.prs += len(batch)
        self._finish_one()

    def recorded(self, index: int | None) -> None:
        if index is not None:
            self._finish_one()

    def _finish_one(self) -> None:
        r = self._current()
        r.done += 1
        if r.expected is not None and r.done >= r.expected:
            self.report()

    def report(self) -> None:
        r, self._round = self._round, None
        if r is None or r.batches == 0:
            return
        remaining, reset_at = r.remaining, r.reset_at
        latest = self._client.rate_limit
        if remaining is None and latest is not None:
            remaining, reset_at = latest.remaining, latest.reset_at
        left = "unknown" if remaining is None else str(remaining)
        resets = f" (resets {reset_at.strftime('%H:%M:%SZ')})" if reset_at is not None else ""
        faults = []
        if r.failed_batches:
            faults.append(f"{r.failed_batches} batch(es) failed")
        if r.unread:
            faults.append(f"{r.unread} PR(s) unread")
        if r.missing:
            faults.append(f"{r.missing} PR(s) missing")
        interval = f", interval {format_duration(r.interval)}" if r.interval else ""
        _poll_log.info(
            "poll round: %d PRs in %d batch(es), %d badge points, %s points left%s%s%s",
            r.prs,
            r.batches,
            r.cost,
            left,
            resets,
            interval,
            "; " + ", ".join(faults) if faults else "",
        )


class _TallyGovernor(BudgetGovernor):
    """The budget governor, also telling the tally where rounds begin and batches end."""

    def __init__(self, tally: _Tally, *, base_interval: timedelta, budget_share: float) -> None:
        super().__init__(base_interval=base_interval, budget_share=budget_share)
        self._tally = tally

    def plan(self, batches: int, now: datetime) -> Pace:
        self._tally.begin(batches)
        pace = super().plan(batches, now)
        self._tally.planned(pace)
        return pace

    def record(
        self,
        *,
        batch: int | None,
        cost: int | None,
        remaining: int | None,
        reset_at: datetime | None,
    ) -> None:
        super().record(batch=batch, cost=cost, remaining=remaining, reset_at=reset_at)
        self._tally.recorded(batch)


class _Prefetch:
    """Bodies of a batch's new items, read in one detail query before its listeners run.

    Listeners are called one PR at a time, so a listener that reads bodies itself sends one
    detail query per busy PR.  Right after a badge batch is read, the monitor reads the
    bodies of every item that is new since its previous badge of the same PR (up to
    ``detail_batch``, one query) and serves them to ``Monitor.read_details`` until the
    next batch.  A failed prefetch is dropped: the listeners then read for themselves.
    """

    def __init__(self, client: GitHubClient, config: MonitorConfig) -> None:
        self._client = client
        self._config = config
        self._listed: dict[PrRef, frozenset[str]] = {}
        self._bodies: dict[str, ItemDetail] = {}

    async def after_read(self, result: BadgeBatch) -> None:
        self._bodies = {}
        fresh: list[str] = []
        for pr, status in result.statuses.items():
            ids = [i.id for i in (*status.comments, *status.reviews)]
            before = self._listed.get(pr)
            self._listed[pr] = frozenset(ids)
            if before is not None:
                fresh.extend(i for i in ids if i not in before)
        if not fresh:
            return
        c = self._config
        try:
            self._bodies = await read_details(
                self._client,
                fresh[: c.detail_batch],
                batch=c.detail_batch,
                inline_window=c.inline_window,
            )
        except GitHubError:
            self._bodies = {}

    def forget(self, keep: set[PrRef]) -> None:
        for pr in [pr for pr in self._listed if pr not in keep]:
            del self._listed[pr]

    async def read(self, ids: Sequence[str]) -> dict[str, ItemDetail]:
        found = {i: self._bodies[i] for i in ids if i in self._bodies}
        rest = [i for i in ids if i not in found]
        if rest:
            c = self._config
            found.update(
                await read_details(
                    self._client, rest, batch=c.detail_batch, inline_window=c.inline_window
                )
            )
        return found


class _Watches:
    """The store's watch registry as the poller sees it: PRs on this client's host only,
    and each newly watched repository preflighted once."""

    def __init__(
        self,
        store: Store,
        client: GitHubClient,
        permissions: Permissions,
        clock: Clock,
        prefetch: _Prefetch,
    ) -> None:
        self._store = store
        self._prefetch = prefetch
        self._client = client
        self._permissions = permissions
        self._clock = clock
        self._viewer: str | None = None
        self._checked: set[str] = set()
        self._foreign: set[PrRef] = set()
        self._viewer_failed = False
        self._viewer_refused = False  # GitHub will not say who the token is (an app token)

    async def watches(self) -> Sequence[Watch]:
        found = await self._store.watches()
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
        self._prefetch.forget({w.pr for w in kept})
        repos = sorted({w.pr.repo for w in kept} - self._checked)
        if repos:
            await self._preflight(repos)
        return kept

    async def _preflight(self, repos: Sequence[str]) -> None:
        viewer = await self._viewer_login()
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

    async def _viewer_login(self) -> str | None:
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


class Monitor:
    """The PR review monitor, assembled.  Use as ``async with Monitor(...) as monitor``.

    ``token`` is the token, or a callable returning it; None finds it as ``gh`` does
    (``find_token``, which raises ``TokenNotFoundError``).  ``transport`` is the httpx
    seam (tests); ``retry`` the client's backoff for 5xx and timeouts.  ``lease=False``
    opens the store without the daemon's lease (a one-shot command).

    Entering opens the store (``StoreLockedError`` when another daemon holds it) and
    builds the poller; leaving closes the GitHub client and the store.  ``store``,
    ``client``, ``permissions``, ``notices`` and ``poller`` are there for listeners
    (the comment wake reads through the same client and shares the permissions cache).
    """

    def __init__(
        self,
        *,
        store_path: Path | str,
        github: GitHubConfig | None = None,
        config: MonitorConfig | None = None,
        clock: Clock | None = None,
        token: TokenSource | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        retry: RetryPolicy | None = None,
        listeners: Sequence[Listener] = (),
        lease: bool = True,
        hint_delay: timedelta = timedelta(seconds=2),
    ) -> None:
        self.github_config = github or GitHubConfig()
        self.config = config or MonitorConfig()
        self.clock: Clock = clock or SystemClock()
        self._store_path = Path(store_path)
        self._lease = lease
        self._hint_delay = hint_delay
        chosen = token if token is not None else find_token(self.github_config.host)
        self.client = GitHubClient(
            chosen, self.github_config, transport=transport, clock=self.clock, retry=retry
        )
        self.permissions = Permissions(self.client, self.config)
        self._listeners: list[Listener] = list(listeners)
        self._tasks: list[Task] = []
        self._tally = _Tally(self.client)
        self._prefetch = _Prefetch(self.client, self.config)
        self._store: Store | None = None
        self._notices: MonitorNotices | None = None
        self._poller: Poller | None = None
        self._running = False

    # -- lifecycle ---------------------------------------------------------------------

    async def __aenter__(self) -> Monitor:
        try:
            self._store = await anyio.to_thread.run_sync(
                functools.partial(Store.open, self._store_path, lease=self._lease, clock=self.clock)
            )
        except BaseException:
            await self.client.aclose()
            raise
        c = self.config
        self._notices = MonitorNotices(
            store=self._store,
            permissions=self.permissions,
            read_details=self.read_details,
            read_checks=functools.partial(read_failing_checks, self.client),
            review_bots=c.review_bots,
            permission_retries=c.permission_retries,
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
            if store is not None:
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
        c = self.config
        reader = functools.partial(
            read_badges,
            self.client,
            comments_window=c.comments_window,
            reviews_window=c.reviews_window,
        )
        tally, prefetch = self._tally, self._prefetch

        async def read(batch: Sequence[PrRef]) -> BadgeBatch:
            try:
                result = await reader(batch)
            except Exception:
                tally.failed(batch)
                raise
            tally.read(batch, result)
            await prefetch.after_read(result)
            return result

        self._poller = Poller(
            watches=_Watches(self.store, self.client, self.permissions, self.clock, prefetch),
            read_badges=read,
            listeners=self._all_listeners(),
            clock=self.clock,
            config=c,
            governor=_TallyGovernor(
                tally, base_interval=c.poll_interval, budget_share=c.budget_share
            ),
            hint_delay=self._hint_delay,
        )

    # -- running -----------------------------------------------------------------------

    async def run(self) -> None:
        """Poll until cancelled, with every added listener's own task beside the poller."""
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
                for task in self._tasks:
                    tg.start_soon(task)
                tg.start_soon(poller.run)
        finally:
            self._running = False
            self._tally.report()
            _log.info("monitor stopped")

    async def poll_round(self) -> None:
        """Poll every watched PR once, back to back (a one-shot poll)."""
        self._tally.begin(None)
        try:
            await self.poller.poll_round()
        finally:
            self._tally.report()

    async def read_details(self, ids: Sequence[str]) -> dict[str, ItemDetail]:
        """Bodies by node id, like ``read_details`` on the monitor's client, but served
        from the bodies the monitor read for the current batch when it has them: a
        listener that reads its new items through here costs one detail query per batch
        instead of one per busy PR."""
        return await self._prefetch.read(ids)

    def poll_now(self, pr: PrRef) -> None:
        """Poll ``pr`` soon (a webhook saw activity); call it from the event loop."""
        self.poller.poll_now(pr)
