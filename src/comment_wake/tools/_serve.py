"""Opening the worker tools on a state directory, and serving them on stdio."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import anyio.to_thread

from comment_wake._paths import inbox_root, store_path
from comment_wake.config import AppConfig
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
    """``WorkerTools`` for ``worker`` over ``state_dir``'s store (opened without the
    daemon's lease: the tools write short transactions beside it; never created here).
    A store that cannot be opened gives ``UnavailableTools`` saying why."""
    clock = clock or SystemClock()
    try:
        store = open_sync_store(store_path(state_dir), clock=clock, create=False)
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
