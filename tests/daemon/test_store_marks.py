"""``marked_prs``: the store lists every PR with a mark for one listener, watched or not."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from comment_wake.store import open_store, open_sync_store
from review_monitor import PrRef
from review_monitor.store import SyncStore

T0 = datetime(2026, 1, 1, tzinfo=UTC)
A = PrRef("octo", "repo", 2)
B = PrRef("octo", "repo", 1)
C = PrRef("octo", "other", 7)


def _marked(store: SyncStore) -> None:
    store.commit(A, "comment-wake", mark=(1, b"a"), at=T0)
    store.commit(B, "comment-wake", mark=(1, b"b"), at=T0)
    store.commit(C, "someone-else", mark=(1, b"c"), at=T0)


def test_marked_prs_lists_only_the_listeners_prs_sorted(tmp_path: Path) -> None:
    store = open_sync_store(tmp_path / "state.db")
    try:
        _marked(store)
        assert (B, A) == store.marked_prs("comment-wake")
    finally:
        store.close()


@pytest.mark.anyio
async def test_the_async_store_lists_the_same(tmp_path: Path) -> None:
    store = open_store(tmp_path / "state.db")
    try:
        _marked(store.sync)
        assert (C,) == await store.call(SyncStore.marked_prs, "someone-else")
    finally:
        store.close()
