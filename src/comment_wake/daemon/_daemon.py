"""``Daemon``: the monitor, the comment wake, the delivery loop, webhook hints and the
housekeeping, assembled from one ``AppConfig`` and run in one task group.

    daemon = Daemon(config, state_dir, token=token)
    await daemon.serve()  # until SIGTERM or SIGINT; or ``await daemon.run()`` until cancelled

Entering takes the store's lease (``StoreLockedError`` names the other daemon).  A stop
(a signal, or cancelling ``run``) lets the store transaction under way finish: every
store call runs in a worker thread that a cancellation waits for, and the monitor
closes the store (releasing the lease) shielded.  ``dry_run`` runs everything on a copy
of the store and delivers nothing, reacts to nothing: the real store is never written,
so a later real run decides everything afresh.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import signal
import sqlite3
import tempfile
from collections.abc import Callable, Iterator, Mapping
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
import anyio.abc
import anyio.to_thread
import msgspec

from comment_wake._paths import inbox_root, store_path
from comment_wake.config import AppConfig
from comment_wake.delivery import DeliveryLoop
from comment_wake.hints import HintListener, load_secret, matching_watch
from comment_wake.registry import Registry
from comment_wake.service import CommentWake
from review_monitor import Clock, Monitor, PrRef, RetryPolicy, SystemClock

from ._recorder import ItemIndex, Observer, PermissionLog, RecordingSink
from ._records import DECISIONS

if TYPE_CHECKING:
    import httpx

__all__ = ["DAEMON_STATE_KEY", "HINT_DELAY", "Daemon", "DaemonState", "PollFigures"]

DAEMON_STATE_KEY = "comment-wake/daemon"
"""The store's key-value entry the daemon keeps current for ``comment-wake status``."""

HINT_DELAY = timedelta(seconds=0.5)
"""How soon a webhook hint polls its PR (hints arriving meanwhile share that poll)."""

_HEARTBEAT = timedelta(seconds=15)
_WATCH_REFRESH = timedelta(seconds=2)
_log = logging.getLogger("comment_wake.daemon")
_POLL_LOGGER = "review_monitor.poll"


class PollFigures(msgspec.Struct, frozen=True):
    """The last poll round, as its summary line gave it."""

    at: datetime
    prs: int | None = None
    cost: int | None = None
    remaining: str | None = None  # "unknown" when GitHub did not say


class DaemonState(msgspec.Struct, frozen=True, kw_only=True):
    """What ``comment-wake status`` reads while the daemon runs."""

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
    polled: dict[str, datetime] = msgspec.field(default_factory=dict)  # "owner/name#N" -> at


class _RoundLine(logging.Filter):
    """Adds the wakes to the monitor's one summary line per poll round, and notes the
    round's figures for ``status``.  The line is logged when the round's last badge read
    ends, before that read's listeners run, so its wakes are those since the last line."""

    def __init__(self, sink: RecordingSink, clock: Clock, on_round: Callable[[], None]) -> None:
        super().__init__()
        self._sink = sink
        self._clock = clock
        self._on_round = on_round
        self._counted = 0
        self.last: PollFigures | None = None

    def filter(self, record: logging.LogRecord) -> bool:
        if not str(record.msg).startswith("poll round:"):
            return True
        wakes = self._sink.wakes - self._counted
        self._counted = self._sink.wakes
        args = record.args if isinstance(record.args, tuple) else ()
        prs, cost, left = _figures(args)
        self.last = PollFigures(at=self._clock.now(), prs=prs, cost=cost, remaining=left)
        record.msg = f"{record.getMessage()}; {wakes} wake(s) since the last round"
        record.args = None
        record.wakes = wakes
        self._on_round()
        return True


def _figures(args: tuple[Any, ...]) -> tuple[int | None, int | None, str | None]:
    # The monitor's line: PRs, batches, points, points left, then optional parts.
    if len(args) >= 4 and isinstance(args[0], int) and isinstance(args[2], int):
        return args[0], args[2], str(args[3])
    return None, None, None


@contextlib.contextmanager
def _filter_on(logger_name: str, f: logging.Filter) -> Iterator[None]:
    logger = logging.getLogger(logger_name)
    logger.addFilter(f)
    try:
        yield
    finally:
        logger.removeFilter(f)


def snapshot_store(source: Path, target: Path) -> None:
    """Copy the store at ``source`` (if any) to ``target`` with SQLite's backup API, which
    reads a consistent snapshot even while a daemon writes."""
    if not source.exists():
        return
    src = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
    try:
        dst = sqlite3.connect(target)
        try:
            src.backup(dst)
        finally:
            dst.close()
    finally:
        src.close()


class Daemon:
    """comment-wake's daemon over the state directory ``state_dir``.

    ``token``: the GitHub token (or a callable returning it); tests pass ``transport``
    (an httpx transport) or set ``[github] api_url`` to a loopback FakeGitHub.
    ``environ`` is where the webhook and publisher secrets come from (os.environ).
    """

    def __init__(
        self,
        config: AppConfig,
        state_dir: Path,
        *,
        token: str | Callable[[], str],
        dry_run: bool = False,
        clock: Clock | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        retry: RetryPolicy | None = None,
        environ: Mapping[str, str] | None = None,
    ) -> None:
        self.config = config
        self.state_dir = Path(state_dir)
        self.dry_run = dry_run
        self.clock: Clock = clock or SystemClock()
        self._token = token
        self._transport = transport
        self._retry = retry
        self._environ = os.environ if environ is None else environ
        self._started = self.clock.now()
        self._watched: tuple[PrRef, ...] = ()
        self._round = anyio.Event()
        self.hint_port: int | None = None
        self.ready = anyio.Event()
        self.sink: RecordingSink | None = None
        self._figures: _RoundLine | None = None
        self._monitor: Monitor | None = None

    # -- running -----------------------------------------------------------------------

    async def serve(self) -> int:
        """Run until SIGTERM or SIGINT, then stop cleanly; returns the exit status (0)."""
        with anyio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as signals:
            async with anyio.create_task_group() as tg:

                async def stop_on_signal() -> None:
                    async for sig in signals:
                        _log.info(
                            "%s received: finishing the transaction under way and stopping",
                            signal.Signals(sig).name,
                        )
                        tg.cancel_scope.cancel()
                        return

                tg.start_soon(stop_on_signal)
                await self.run()
                tg.cancel_scope.cancel()
        return 0

    async def run(self) -> None:
        """Run until cancelled."""
        with contextlib.ExitStack() as stack:
            path = store_path(self.state_dir)
            registry_dir = self.state_dir
            if self.dry_run:
                tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="cw-dry-")))
                await anyio.to_thread.run_sync(snapshot_store, path, store_path(tmp))
                path, registry_dir = store_path(tmp), tmp
                _log.info(
                    "dry run: deciding on a copy of %s; nothing is delivered, reacted to or "
                    "written to the real store",
                    store_path(self.state_dir),
                )
            await self._run(path, registry_dir)

    async def _run(self, path: Path, registry_dir: Path) -> None:
        c = self.config
        monitor = Monitor(
            store_path=path,
            github=c.github,
            config=c.monitor,
            clock=self.clock,
            token=self._token,
            transport=self._transport,
            retry=self._retry,
            lease=not self.dry_run,
            hint_delay=HINT_DELAY,
        )
        async with monitor:
            self._monitor = monitor
            registry = await anyio.to_thread.run_sync(
                functools.partial(
                    Registry.open,
                    registry_dir,
                    inbox_root=inbox_root(self.state_dir),
                    clock=self.clock,
                    publisher_timeout=c.delivery.publisher_timeout,
                    environ=self._environ,
                )
            )
            try:
                await self._assembled(monitor, registry)
            finally:
                with anyio.CancelScope(shield=True):
                    await self._final_state(monitor)
                    await anyio.to_thread.run_sync(registry.close)

    async def _assembled(self, monitor: Monitor, registry: Registry) -> None:
        c = self.config
        permissions = PermissionLog(monitor.permissions)
        index = ItemIndex()
        sink = RecordingSink(index=index, permissions=permissions, config=c.wake)
        self.sink = sink
        wake = CommentWake(
            store=monitor.store,
            api=monitor.client,
            permissions=permissions,
            bindings=registry,
            sink=sink,
            clock=self.clock,
            config=c.wake,
            monitor=c.monitor,
            details=monitor.read_details,
        )
        monitor.add_listener(Observer(index))
        monitor.add_listener(wake, run=wake.run)
        delivery = DeliveryLoop(
            monitor.store,
            route=registry.route,
            clock=self.clock,
            config=c.delivery,
            orchestrator_of=registry.orchestrator_of,
            on_session=registry.on_session,
            github=None if self.dry_run else monitor.client,
            dry_run=self.dry_run,
        )
        sink.on_wake = delivery.poke

        def on_round() -> None:
            self._round.set()

        figures = _RoundLine(sink, self.clock, on_round)
        self._figures = figures
        with _filter_on(_POLL_LOGGER, figures):
            async with anyio.create_task_group() as tg:
                tg.start_soon(sink.run, monitor.store.sync)
                tg.start_soon(delivery.run)
                await self._refresh_watches(monitor)
                await self._finish_unwatched(wake, monitor)
                if c.webhook.enabled:
                    await self._start_hints(tg, monitor)
                tg.start_soon(self._housekeeping, monitor)
                tg.start_soon(monitor.run)
                _log.info(
                    "comment-wake daemon started (pid %d, state %s%s)",
                    os.getpid(),
                    self.state_dir,
                    ", dry run" if self.dry_run else "",
                )
                self.ready.set()

    async def _finish_unwatched(self, wake: CommentWake, monitor: Monitor) -> None:
        """Look once at every PR whose wake mark outlived its watch: held comments and
        pending retries there wait on timers, which only a poll rebuilds after a restart,
        and an unwatched PR is never polled; the look lets the core decide them."""
        try:
            marked = await monitor.store.marked_prs(wake.name)
        except Exception as exc:
            _log.warning("could not list the PRs with a wake mark: %s", type(exc).__name__)
            return
        watched = set(self._watched)
        for pr in marked:
            if pr in watched:
                continue
            try:
                await wake.look(pr, self.clock.now())
            except Exception as exc:
                _log.error("a look at unwatched %s failed: %s", pr, type(exc).__name__)

    async def _start_hints(self, tg: anyio.abc.TaskGroup, monitor: Monitor) -> None:
        secret = load_secret(self.config.webhook, self._environ)

        def hint(pr: PrRef) -> None:
            match = matching_watch(pr, self._watched)
            if match is not None:
                monitor.poll_now(match)

        listener = HintListener(self.config.webhook, secret, hint)
        self.hint_port = await tg.start(listener.serve)

    async def _refresh_watches(self, monitor: Monitor) -> None:
        try:
            found = await monitor.store.watches()
        except Exception as exc:
            _log.warning("could not read the watch list: %s", type(exc).__name__)
            return
        self._watched = tuple(sorted({w.pr for w in found}))

    # -- housekeeping --------------------------------------------------------------------

    def _prune_every(self) -> timedelta:
        return max(timedelta(minutes=1), min(timedelta(hours=1), self.config.prune_after / 10))

    async def _housekeeping(self, monitor: Monitor) -> None:
        """Prune, refresh the watch list for hints, keep the status entry current."""
        next_prune = self.clock.now()
        next_beat = self.clock.now()
        next_watch = self.clock.now() + _WATCH_REFRESH
        while True:
            now = self.clock.now()
            if now >= next_prune:
                await self.prune(now)
                next_prune = now + self._prune_every()
            if now >= next_watch:
                await self._refresh_watches(monitor)
                next_watch = now + _WATCH_REFRESH
            if now >= next_beat or self._round.is_set():
                self._round = anyio.Event()
                await self._write_state(monitor)
                next_beat = now + _HEARTBEAT
            wake_at = min(next_prune, next_watch, next_beat)
            with anyio.move_on_after(max(0.0, (wake_at - self.clock.now()).total_seconds())):
                await self._round.wait()

    async def prune(self, now: datetime) -> int:
        """Delete what is older than ``prune_after``: finished notices with their attempts,
        finished reactions, decision records.  Returns how many rows went."""
        monitor = self._monitor
        if monitor is None:
            return 0
        before = now - self.config.prune_after
        store = monitor.store
        try:
            notices = await store.prune(before=before)
            reactions = await store.prune_reactions(before=before)
            records = await store.prune_records(DECISIONS, before=before)
        except Exception as exc:
            _log.error("pruning the store failed: %s", type(exc).__name__)
            return 0
        total = notices + reactions + records
        if total:
            _log.info(
                "pruned what is older than %s: %d notice(s), %d reaction(s), %d decision record(s)",
                before.isoformat(timespec="seconds"),
                notices,
                reactions,
                records,
            )
        return total

    def state(self, monitor: Monitor, *, stopped: bool = False) -> DaemonState:
        now = self.clock.now()
        budget = monitor.client.rate_limit
        sink = self.sink
        polled = self.sink_index_polled()
        return DaemonState(
            pid=os.getpid(),
            started_at=self._started,
            updated_at=now,
            dry_run=self.dry_run,
            host=monitor.client.host,
            last_poll=self._figures.last if self._figures is not None else None,
            budget_remaining=budget.remaining if budget else None,
            budget_limit=budget.limit if budget else None,
            budget_reset_at=budget.reset_at if budget else None,
            wakes=sink.wakes if sink else 0,
            decisions=sink.decisions if sink else 0,
            stopped_at=now if stopped else None,
            polled=polled,
        )

    def sink_index_polled(self) -> dict[str, datetime]:
        sink = self.sink
        if sink is None:
            return {}
        return {f"{pr.host}/{pr}": at for pr, at in sorted(sink.index.polled.items())}

    async def _write_state(self, monitor: Monitor, *, stopped: bool = False) -> None:
        state = self.state(monitor, stopped=stopped)
        try:
            await monitor.store.set_state(
                DAEMON_STATE_KEY, msgspec.json.encode(state), at=state.updated_at
            )
        except Exception as exc:
            _log.warning("could not write the daemon's status entry: %s", type(exc).__name__)

    async def _final_state(self, monitor: Monitor) -> None:
        await self._write_state(monitor, stopped=True)
        _log.info("comment-wake daemon stopped")
