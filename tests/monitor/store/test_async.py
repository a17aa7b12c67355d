"""``Store.call``: one store call on the store's executor, a worker thread or the loop."""

from __future__ import annotations

import threading
import time
from datetime import datetime
from pathlib import Path

import anyio
import pytest

from review_monitor import PrRef
from review_monitor.store import Mark, Store, SyncStore, run_inline

pytestmark = pytest.mark.anyio


async def test_a_call_runs_in_a_worker_thread_by_default(db_path: Path) -> None:
    with Store.open(db_path) as store:
        ident = await store.call(lambda db: threading.get_ident())
    assert threading.get_ident() != ident


async def test_an_inline_call_runs_on_the_event_loop(db_path: Path) -> None:
    with Store.open(db_path, executor=run_inline) as store:
        ident = await store.call(lambda db: threading.get_ident())
    assert threading.get_ident() == ident


async def test_a_call_passes_its_arguments_to_the_store_method(
    db_path: Path, pr: PrRef, t0: datetime
) -> None:
    with Store.open(db_path) as store:
        await store.call(SyncStore.commit, pr, "l", mark=(1, b"m"), at=t0)
        assert Mark(1, b"m") == await store.call(SyncStore.load_mark, pr, "l")


async def test_a_call_cancelled_under_way_still_finishes_its_transaction(
    db_path: Path, pr: PrRef, t0: datetime
) -> None:
    def slow(tx: object) -> None:
        time.sleep(0.3)  # still inside the commit's transaction when the cancel comes

    with Store.open(db_path) as store:
        with anyio.move_on_after(0.05) as scope:
            await store.call(SyncStore.commit, pr, "l", mark=(1, b"m"), at=t0, also=slow)
        # The deadline passed during the call; the transaction committed all the same.
        assert (True, Mark(1, b"m")) == (scope.cancel_called, store.sync.load_mark(pr, "l"))
