"""Opening the worker tools on a state directory, and serving them on stdio."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import anyio.to_thread

from comment_wake._paths import inbox_root, store_target
from comment_wake.config import AppConfig
from comment_wake.fleet import known_host_id
from comment_wake.registry import Registry
from comment_wake.store import open_sync_store
from review_monitor import Clock, StoreError, SystemClock

from ._server import build_server
from ._tools import ToolLimits, Tools, UnavailableTools, WorkerTools

__all__ = ["serve", "worker_tools"]


@contextmanager
def worker_tools(
    worker: str, config: AppConfig, state_dir: Path, *, clock: Clock | None = None
) -> Iterator[Tools]:
    """``WorkerTools`` for ``worker`` over the store (``[store] url``, else ``state_dir``'s
    SQLite file; opened without the daemon's lease: the tools write short transactions
    beside it; never created here).  On PostgreSQL the server holds one connection (the
    engine's pool has one), for as long as it runs.
    A store that cannot be opened gives ``UnavailableTools`` saying why."""
    clock = clock or SystemClock()
    try:
        store = open_sync_store(
            store_target(state_dir, config.store.url), clock=clock, create=False
        )
    except StoreError as exc:
        yield UnavailableTools(worker, f"{exc}; start the server with the daemon's --state-dir")
        return
    try:
        registry = Registry(store, inbox_root=inbox_root(state_dir), clock=clock)
        yield WorkerTools(
            worker,
            store=store,
            registry=registry,
            clock=clock,
            wake=config.wake,
            pickup_reaction=config.delivery.reaction,
            done_reaction=config.delivery.done_reaction,
            host_id=known_host_id(state_dir, config.fleet.host_id),
            limits=ToolLimits(
                messages_per_hour=config.delivery.worker_messages_per_hour,
                posts_per_hour=config.delivery.posts_per_hour,
                progress_min_gap=config.delivery.progress_min_gap,
            ),
        )
    finally:
        store.close()


async def serve(worker: str, config: AppConfig, state_dir: Path) -> None:
    """Serve ``worker``'s tools over MCP on stdin/stdout until the client hangs up."""
    with worker_tools(worker, config, state_dir) as tools:
        posting = await anyio.to_thread.run_sync(tools.posting)
        await build_server(tools, post_tools=posting).run_stdio_async()
