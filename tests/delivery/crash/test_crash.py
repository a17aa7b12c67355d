"""The crash proof: delivery runs killed with SIGKILL, restarted on the same store."""

from __future__ import annotations

import time
from pathlib import Path
from types import ModuleType

import pytest

from comment_wake._paths import store_path
from comment_wake.store import open_sync_store, reactions
from review_monitor.testing import FakeGitHub

NOTICES = 210
PER_POINT = 5
RANDOM_KILLS = 16


@pytest.mark.slow
@pytest.mark.timeout(240)
def test_sigkilled_delivery_loses_nothing_and_applies_each_notice_once(
    tmp_path: Path, harness: ModuleType
) -> None:
    started = time.monotonic()
    fake = FakeGitHub()
    batches, planned = harness.build_plan(fake, notices=NOTICES, workers=5, seed=4)
    receiver = harness.Receiver(busy_rate=0.35, seed=4)
    with fake.serve_in_thread() as github_url, harness.serve(receiver):
        runner = harness.Runner(tmp_path, receiver, github_url, batches, seed=4)
        runner.crash_many(per_point=PER_POINT, random_kills=RANDOM_KILLS, max_runs=140)
        runner.finish()
    figures = harness.verdict(receiver, planned)
    tally = runner.tally
    store = open_sync_store(store_path(runner.state_dir))
    try:
        leftover = (len(store.entries()), len(reactions(store, statuses=("pending", "failed"))))
    finally:
        store.close()
    acked = {p.notice.items[0].id for p in planned if p.acked}
    reacted = {
        p.notice.items[0].id
        for p in planned
        if p.notice.kind == "comment-wake" and fake.reactions(p.notice.items[0].id)
    }
    print(
        f"\ncrash test: {tally.kills} kills ({tally.random_kills} random, points "
        f"{dict(tally.point_kills)}; ended before the point {dict(tally.missed)}), "
        f"{len(planned)} notices, {figures}, "
        f"{runner.runs} runs in {time.monotonic() - started:.1f}s"
    )
    assert (0, 0) == (figures["lost"], figures["duplicated"])
    assert tally.kills >= 50
    assert PER_POINT <= min(tally.point_kills[p] for p in harness.KILL_POINTS)
    assert (0, 0) == leftover
    assert acked == reacted
    assert 0 == receiver.bad_signatures


@pytest.mark.slow
def test_a_kill_between_publish_and_record_redelivers_exactly_the_unrecorded_notices(
    tmp_path: Path, harness: ModuleType
) -> None:
    fake = FakeGitHub()
    batches, _ = harness.build_plan(fake, notices=8, workers=2, seed=9)
    receiver = harness.Receiver(busy_rate=0.0, seed=9)
    with fake.serve_in_thread() as github_url, harness.serve(receiver):
        runner = harness.Runner(tmp_path, receiver, github_url, batches, seed=9)
        killed = runner.run_once(len(batches), "published", nth=2)
        store = open_sync_store(store_path(runner.state_dir))
        recorded = {e.notice.key for e in store.entries(statuses=("delivered",))}
        store.close()
        unrecorded = set(receiver.applied) - recorded
        runner.finish()
    assert (True, len(unrecorded)) == (killed, receiver.redeliveries)
    assert unrecorded
