"""A look whose binding moved before its commit steps again (issue 26, item 1).

The wake reads bindings from the registry's snapshot (``RegistryBook``); its commit
re-reads the registry version inside the transaction.  An archive that lands while a
look reads GitHub undoes that look's commit, and the look steps again on the fresh
binding: the archived worker is never woken.
"""

from __future__ import annotations

import random
from collections.abc import Collection, Sequence
from datetime import timedelta
from pathlib import Path

import pytest

from comment_wake.registry import InboxSpec, Registry, RegistryBook
from comment_wake.service import CommentWake
from comment_wake.service.testing import ServiceRig
from review_monitor import ItemDetail
from review_monitor.github import read_details

pytestmark = pytest.mark.anyio


def _wake(rig: ServiceRig, tmp_path: Path, *, archive_during_read: bool) -> Registry:
    registry = Registry(rig.store.sync, inbox_root=tmp_path / "inbox", clock=rig.clock)
    registry.add_orchestrator("orch-1", InboxSpec())
    registry.bind("w-1", rig.pr, orchestrator="orch-1", publisher=InboxSpec())
    book = RegistryBook(registry)
    archived: list[str] = []

    async def reader(
        ids: Sequence[str], first_page_only: Collection[str] = ()
    ) -> dict[str, ItemDetail]:
        if archive_during_read and not archived:
            archived.append(registry.archive("w-1").worker)
        return await read_details(rig.client, ids, first_page_only=first_page_only)

    rig.wake = CommentWake(
        store=rig.store,
        api=rig.client,
        permissions=rig.permissions,
        bindings=book,
        publish=rig.events,
        clock=rig.clock,
        rng=random.Random(0),
        details=reader,
    )
    return registry


async def _comment_after_baseline(rig: ServiceRig) -> None:
    await rig.poll()
    await rig.clock.advance(timedelta(minutes=1))
    rig.fake.post_comment(rig.pr, "bob", "please rebase", node_id="IC_1", at=rig.clock.now())
    await rig.clock.advance(timedelta(minutes=1))
    await rig.poll()


async def test_an_archive_during_a_look_leaves_the_worker_unwoken(
    rig: ServiceRig, tmp_path: Path
) -> None:
    _wake(rig, tmp_path, archive_during_read=True)
    await _comment_after_baseline(rig)
    queued = [e.worker for e in rig.store.sync.entries()]
    assert ([("IC_1", "skip", "unbound")], []) == (rig.events.outcomes(), queued)


async def test_a_look_with_its_binding_unmoved_wakes_the_worker(
    rig: ServiceRig, tmp_path: Path
) -> None:
    _wake(rig, tmp_path, archive_during_read=False)
    await _comment_after_baseline(rig)
    queued = [e.worker for e in rig.store.sync.entries()]
    assert ([("IC_1", "wake", "writer")], ["w-1"]) == (rig.events.outcomes(), queued)
