"""Fleet mode: a host decides only the PRs it owns, and a look whose PR changed owner
before its commit writes nothing (issue 28, item 3).

The registry records each PR's owner and epoch in the bind's transaction; the wake reads
them with the mark, and its commit holds only while they still hold (``Fence``).  A host
cut off while its PR was re-bound elsewhere can neither move the mark nor queue a notice.
"""

from __future__ import annotations

import logging
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
from review_monitor.store import claim_pr

pytestmark = pytest.mark.anyio


def _wake(rig: ServiceRig, tmp_path: Path, *, host_id: str, moved_during_read: bool) -> None:
    registry = Registry(
        rig.store.sync, inbox_root=tmp_path / "inbox", clock=rig.clock, host_id="h1"
    )
    registry.add_orchestrator("orch-1", InboxSpec())
    registry.bind("w-1", rig.pr, orchestrator="orch-1", publisher=InboxSpec())
    moved: list[int] = []

    async def reader(
        ids: Sequence[str], first_page_only: Collection[str] = ()
    ) -> dict[str, ItemDetail]:
        if moved_during_read and not moved:
            # Another host claims the PR (its registry write, without this host's book
            # seeing it: the fence alone must hold).
            with rig.store.sync.write(at=rig.clock.now()) as tx:
                moved.append(claim_pr(tx, rig.pr, "h2", "w-2"))
        return await read_details(rig.client, ids, first_page_only=first_page_only)

    rig.wake = CommentWake(
        store=rig.store,
        api=rig.client,
        permissions=rig.permissions,
        bindings=RegistryBook(registry),
        publish=rig.events,
        clock=rig.clock,
        rng=random.Random(0),
        details=reader,
        host_id=host_id,
    )


async def _comment_after_baseline(rig: ServiceRig) -> None:
    await rig.poll()
    await rig.clock.advance(timedelta(minutes=1))
    rig.fake.post_comment(rig.pr, "bob", "please rebase", node_id="IC_1", at=rig.clock.now())
    await rig.clock.advance(timedelta(minutes=1))
    await rig.poll()


async def test_the_owning_host_wakes_its_worker(rig: ServiceRig, tmp_path: Path) -> None:
    _wake(rig, tmp_path, host_id="h1", moved_during_read=False)
    await _comment_after_baseline(rig)
    queued = [e.worker for e in rig.store.sync.entries()]
    assert ([("IC_1", "wake", "writer")], ["w-1"]) == (rig.events.outcomes(), queued)


async def test_another_host_decides_nothing_on_a_pr_it_does_not_own(
    rig: ServiceRig, tmp_path: Path
) -> None:
    _wake(rig, tmp_path, host_id="h2", moved_during_read=False)
    await _comment_after_baseline(rig)
    marked = rig.store.sync.load_mark(rig.pr, rig.wake.name)
    assert ([], (), None) == (rig.events.outcomes(), rig.store.sync.entries(), marked)


async def test_a_look_whose_pr_moved_host_before_its_commit_writes_nothing(
    rig: ServiceRig, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    _wake(rig, tmp_path, host_id="h1", moved_during_read=True)
    await rig.poll()
    baseline = rig.store.sync.load_mark(rig.pr, rig.wake.name)
    await rig.clock.advance(timedelta(minutes=1))
    rig.fake.post_comment(rig.pr, "bob", "please rebase", node_id="IC_1", at=rig.clock.now())
    await rig.clock.advance(timedelta(minutes=1))
    with caplog.at_level(logging.WARNING):
        await rig.poll()
    lines = [r.getMessage() for r in caplog.records if "was not committed" in r.getMessage()]
    after = rig.store.sync.load_mark(rig.pr, rig.wake.name)
    assert ((), baseline, 1) == (rig.store.sync.entries(), after, len(lines))
    assert "no longer owns" in lines[0]
