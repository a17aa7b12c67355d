"""The daemon as a subprocess against FakeGitHub on loopback: wakes, refusals, signals."""

from __future__ import annotations

import json
import signal
from typing import Any

from review_monitor import Lease, SyncStore


def _started(world: Any) -> Any:
    world.bind()
    daemon = world.start()
    daemon.wait_rounds(1)
    return daemon


def test_trusted_comment_is_delivered_and_acknowledged_a_strangers_is_not(world: Any) -> None:
    daemon = _started(world)
    stranger = world.fake.post_comment(world.pr, world.stranger, "STRANGER-TEXT please rm -rf")
    trusted = world.fake.post_comment(world.pr, "maintainer", "please rename the widget")
    world.wait_until(lambda: len(world.delivered_texts()) == 1, "the trusted comment's notice")
    world.wait_until(lambda: world.fake.reactions(trusted) != (), "the acknowledgement")
    daemon.wait_rounds(2)
    texts = world.delivered_texts()
    assert 1 == len(texts)
    assert "please rename the widget" in texts[0]
    assert "STRANGER-TEXT" not in texts[0]
    assert () == world.fake.reactions(stranger)
    assert 0 == daemon.stop()


def test_dry_run_delivers_and_reacts_to_nothing_and_leaves_the_store(world: Any) -> None:
    world.bind()
    daemon = world.start("--dry-run")
    daemon.wait_rounds(1)
    trusted = world.fake.post_comment(world.pr, "maintainer", "please rename the widget")
    daemon.wait_for(lambda m: "woke worker" in m)
    daemon.wait_for(lambda m: m.startswith("dry run: would publish"))
    assert 0 == daemon.stop()
    assert [] == world.delivered_texts()
    assert () == world.fake.reactions(trusted)
    store = SyncStore.open(world.state_dir / "state.db")
    try:
        assert () == store.entries(statuses=("pending", "delivered"))
    finally:
        store.close()


def test_sigterm_mid_run_exits_zero_with_the_store_consistent_and_the_lease_free(
    world: Any,
) -> None:
    daemon = _started(world)
    for n in range(5):
        world.fake.post_comment(world.pr, "maintainer", f"change number {n}")
    daemon.wait_for(lambda m: "woke worker" in m)
    assert 0 == daemon.stop(signal.SIGTERM)
    assert any("SIGTERM received" in m for m in daemon.messages())
    assert "comment-wake daemon stopped" == daemon.messages()[-1]
    store = SyncStore.open(world.state_dir / "state.db")
    try:
        check = store._conn.execute("PRAGMA integrity_check").fetchone()[0]
        delivered = store.entries(statuses=("delivered",))
    finally:
        store.close()
    assert "ok" == check
    assert len(delivered) == len(world.delivered_texts())
    Lease.acquire(world.state_dir / "state.db").release()


def test_sigint_stops_cleanly_too(world: Any) -> None:
    daemon = _started(world)
    assert 0 == daemon.stop(signal.SIGINT)
    assert "comment-wake daemon stopped" == daemon.messages()[-1]


def test_a_second_daemon_on_the_same_state_dir_is_refused(world: Any) -> None:
    first = _started(world)
    second = world.start()
    assert 1 == second.proc.wait(timeout=30)
    second.stop()
    assert "another comment-wake daemon" in second.output()
    assert str(first.proc.pid) in second.output()
    assert 0 == first.stop()


def test_the_token_never_appears_in_the_daemons_output(world: Any) -> None:
    daemon = _started(world)
    world.fake.post_comment(world.pr, "maintainer", "please rename the widget")
    world.fake.post_comment(world.pr, world.stranger, "hello")
    world.wait_until(lambda: len(world.delivered_texts()) == 1, "the notice")
    daemon.wait_rounds(1)
    assert 0 == daemon.stop()
    out = daemon.output()
    assert "poll round:" in out
    assert world.token not in out
    assert world.token[4:20] not in out


def test_logs_are_json_lines_with_one_summary_per_poll_carrying_the_wakes(world: Any) -> None:
    daemon = _started(world)
    world.fake.post_comment(world.pr, "maintainer", "please rename the widget")
    world.wait_until(lambda: len(world.delivered_texts()) == 1, "the notice")
    daemon.wait_rounds(2)
    assert 0 == daemon.stop()
    for line in daemon.lines:
        json.loads(line)
    summaries = [r for r in daemon.records() if r["message"].startswith("poll round:")]
    assert 1 == sum(r["wakes"] for r in summaries)
    assert all("1 PRs" in r["message"] and "points left" in r["message"] for r in summaries)


def test_a_strangers_decision_is_logged_without_author_or_text(world: Any) -> None:
    daemon = _started(world)
    world.fake.post_comment(world.pr, world.stranger, "STRANGER-TEXT")
    daemon.wait_for(lambda m: "(not-writer)" in m)
    assert 0 == daemon.stop()
    out = daemon.output()
    assert "STRANGER-TEXT" not in out
    assert world.stranger not in out
