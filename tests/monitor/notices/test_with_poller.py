"""The poller, the real store and the monitor's notices together, on a virtual clock."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta

import anyio
import pytest

from review_monitor import (
    CheckFailure,
    ItemDetail,
    LookupFailed,
    PermissionAnswer,
    PrRef,
    PrStatus,
    Watch,
)
from review_monitor._notices import MonitorNotices
from review_monitor._poller import Poller
from review_monitor.poll import BadgeBatch
from review_monitor.store import Store, SyncStore
from review_monitor.testing import VirtualClock

PR = PrRef(owner="octo-org", name="octo-repo", number=7)


def status(state: str) -> PrStatus:
    return PrStatus(
        pr=PR,
        title="Add a flag",
        url="https://github.com/octo-org/octo-repo/pull/7",
        state=state,
        merged=state == "MERGED",
        is_draft=False,
        head_ref_oid="c" * 40,
        review_decision=None,
        check_state=None,
        comments=(),
        reviews=(),
        person_comments_from=None,
    )


class Everyone:
    async def lookup(self, repo: str, login: str, now: datetime) -> PermissionAnswer | LookupFailed:
        return PermissionAnswer(login, "write", None, True, now)


async def no_details(ids: Sequence[str]) -> Mapping[str, ItemDetail]:
    return {}


async def no_checks(pr: PrRef) -> tuple[CheckFailure, ...]:
    return ()


class _Watches:
    """The store's watch registry as the poller's ``WatchSource``."""

    def __init__(self, store: Store) -> None:
        self._store = store

    async def watches(self) -> tuple[Watch, ...]:
        return await self._store.call(SyncStore.watches)


@pytest.mark.anyio
async def test_a_merge_seen_by_the_poller_lands_once_in_the_outbox(store: Store) -> None:
    clock = VirtualClock()
    current = {"state": "OPEN"}

    async def badges(prs: Sequence[PrRef]) -> BadgeBatch:
        return BadgeBatch(statuses={p: status(current["state"]) for p in prs}, cost=1)

    await store.call(SyncStore.add_watch, "w1", PR, at=clock.now())
    notices = MonitorNotices(
        store=store, permissions=Everyone(), read_details=no_details, read_checks=no_checks
    )
    poller = Poller(watches=_Watches(store), read_badges=badges, listeners=[notices], clock=clock)
    async with anyio.create_task_group() as tg:
        tg.start_soon(poller.run)
        await clock.advance(timedelta(seconds=30))
        current["state"] = "MERGED"
        await clock.advance(timedelta(minutes=5))
        tg.cancel_scope.cancel()
    assert [("w1", "pr-merged")] == [
        (e.worker, e.notice.kind) for e in await store.call(SyncStore.entries)
    ]
