"""``Daemon``: the app from ``open_app``, run as a process until SIGTERM or SIGINT.

    daemon = Daemon(config, state_dir, token=token)
    await daemon.serve()  # until SIGTERM or SIGINT; or ``await daemon.run()`` until cancelled

Entering takes the store's lease (``StoreLockedError`` names the other daemon).  A stop
(a signal, or cancelling ``run``) lets the store transaction under way finish: every
store call runs in a worker thread that a cancellation waits for, and the monitor
closes the store (releasing the lease) shielded.  ``dry_run`` runs everything on a copy
of the store and delivers nothing, reacts to nothing: the real store is never written,
so a later real run decides everything afresh.  The daemon adds only the process's own
concern to the app: signals.  When GitHub keeps refusing the token, ``run`` and ``serve``
raise ``TokenRefusedError`` (not inside an exception group): ``comment-wake run`` prints
its one line and exits 2.
"""

from __future__ import annotations

import logging
import os
import signal
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import anyio

from comment_wake.app import App, TokenRefusedError, open_app
from comment_wake.config import AppConfig
from comment_wake.delivery import NoticeCallback
from comment_wake.events import Subscriber
from review_monitor import Clock
from review_monitor.github import RetryPolicy

if TYPE_CHECKING:
    import httpx

__all__ = ["Daemon"]

_log = logging.getLogger("comment_wake.daemon")
_poll_log = logging.getLogger("review_monitor.poll")


class Daemon:
    """comment-wake's daemon over the state directory ``state_dir``.

    ``token``: the GitHub token (or a callable returning it); tests pass ``transport``
    (an httpx transport) or set ``[github] api_url`` to a loopback FakeGitHub.
    ``environ`` is where the webhook and publisher secrets come from (os.environ).
    ``callbacks``: in-process publishers for ``CallbackSpec`` bindings; ``subscribers``:
    functions that get every event (``comment_wake.events``).
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
        callbacks: Mapping[str, NoticeCallback] | None = None,
        subscribers: Sequence[Subscriber] = (),
    ) -> None:
        self.config = config
        self.state_dir = Path(state_dir)
        self.dry_run = dry_run
        self.clock = clock
        self._token = token
        self._transport = transport
        self._retry = retry
        self._environ = environ
        self._callbacks = callbacks
        self._subscribers = tuple(subscribers)
        self.app: App | None = None
        self.ready = anyio.Event()

    async def serve(self) -> int:
        """Run until SIGTERM or SIGINT, then stop cleanly; returns the exit status (0).
        Raises ``TokenRefusedError`` when GitHub kept refusing the token."""
        refused: TokenRefusedError | None = None
        with anyio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as signals:
            try:
                await self._serve(signals)
            except* TokenRefusedError as group:
                refused = _first(group)
        if refused is not None:
            raise refused
        return 0

    async def _serve(self, signals: AsyncIterator[int]) -> None:
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

    async def run(self) -> None:
        """Run until cancelled; ``TokenRefusedError`` when GitHub kept refusing the token."""
        refused: TokenRefusedError | None = None
        try:
            await self._run()
        except* TokenRefusedError as group:
            refused = _first(group)
        if refused is not None:
            raise refused

    async def _run(self) -> None:
        async with open_app(
            self.config,
            state_dir=self.state_dir,
            token=self._token,
            transport=self._transport,
            clock=self.clock,
            callbacks=self._callbacks,
            environ=self._environ,
            dry_run=self.dry_run,
            retry=self._retry,
        ) as app:
            self.app = app
            for fn in self._subscribers:
                app.subscribe(fn)
            try:
                async with anyio.create_task_group() as tg:
                    tg.start_soon(app.run)
                    await app.ready.wait()
                    _log.info(
                        "comment-wake daemon started (pid %d, state %s%s)",
                        os.getpid(),
                        self.state_dir,
                        ", dry run" if self.dry_run else "",
                    )
                    self.ready.set()
            finally:
                _log.info("comment-wake daemon stopped")


def _first(group: BaseExceptionGroup[TokenRefusedError]) -> TokenRefusedError:
    """The refusal in ``group`` (an exception group nests when task groups do)."""
    found = group.exceptions[0]
    while isinstance(found, BaseExceptionGroup):
        found = found.exceptions[0]
    return found
