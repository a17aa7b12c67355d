"""``Store``: the async store, one generic ``call`` that runs ``SyncStore`` work on an
executor, and the daemon's lease."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Concatenate, ParamSpec, Protocol, TypeVar

import anyio.lowlevel
import anyio.to_thread

from review_monitor._clock import Clock
from review_monitor._lease import Lease

from ._schema import Tables
from ._sync import SyncStore

__all__ = ["Executor", "Store", "run_in_thread", "run_inline"]

_P = ParamSpec("_P")
_T = TypeVar("_T")


class Executor(Protocol):
    """Runs one blocking store call for the event loop."""

    async def __call__(self, fn: Callable[[], _T], /) -> _T: ...


async def run_in_thread(fn: Callable[[], _T], /) -> _T:
    """In a worker thread.  Not cancellable mid-transaction: a cancellation waits for the
    call to finish and lands at the caller's next checkpoint."""
    return await anyio.to_thread.run_sync(fn)


async def run_inline(fn: Callable[[], _T], /) -> _T:
    """On the event loop itself, after a checkpoint: for a local temporary store that
    answers in microseconds (the replay), where a thread hand-off costs more."""
    await anyio.lowlevel.checkpoint()
    return fn()


class Store:
    """The async store: ``await store.call(SyncStore.due, now)`` runs a ``SyncStore``
    call on the store's executor (a worker thread unless told otherwise).

    ``Store.open(path, lease=True)`` is what a daemon does: it takes the lease first
    (``StoreLockedError`` when another daemon holds it) and keeps it until ``close``.
    Short commands open without the lease, or use ``SyncStore`` directly.
    """

    def __init__(
        self, sync: SyncStore, lease: Lease | None = None, *, executor: Executor = run_in_thread
    ) -> None:
        self.sync = sync
        self.lease = lease
        self._executor = executor

    @classmethod
    def open(
        cls,
        path: Path | str,
        *,
        lease: bool = False,
        clock: Clock | None = None,
        tables: Sequence[Tables] = (),
        executor: Executor = run_in_thread,
    ) -> Store:
        """Take the lease when asked, then open ``SyncStore.open(path, tables=...)``.

        A daemon (``lease``) also checks that it may write: SQLite opens a ``state.db`` it
        cannot write (in a directory it can) read-only without a word, and every round's
        write would then fail the same way; it stops at once instead, with SQLite's
        ``SQLITE_READONLY``."""
        held = Lease.acquire(Path(path)) if lease else None
        try:
            sync = SyncStore.open(path, clock=clock, tables=tables)
            if lease:
                try:
                    sync.check_writable()
                except BaseException:
                    sync.close()
                    raise
            return cls(sync, held, executor=executor)
        except BaseException:
            if held is not None:
                held.release()
            raise

    async def call(
        self, fn: Callable[Concatenate[SyncStore, _P], _T], /, *args: _P.args, **kwargs: _P.kwargs
    ) -> _T:
        """``fn(store.sync, *args, **kwargs)`` on the executor: a ``SyncStore`` method
        (``store.call(SyncStore.due, now)``) or any function whose first parameter is
        the store (an application's part: ``store.call(due_reactions, now)``)."""
        sync = self.sync
        return await self._executor(lambda: fn(sync, *args, **kwargs))

    @property
    def path(self) -> Path:
        return self.sync.path

    def close(self) -> None:
        self.sync.close()
        if self.lease is not None:
            self.lease.release()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
