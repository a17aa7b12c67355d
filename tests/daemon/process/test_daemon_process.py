"""The daemon as a real process against FakeGitHub on loopback: what only a process shows
(signals, the lease between two processes, and that ``run --dry-run`` reaches the
daemon).  Everything else the daemon does is pinned in process on virtual time, in
``tests/daemon``."""

from __future__ import annotations

import signal
import sqlite3
from contextlib import closing
from typing import Any

from comment_wake.store import open_sync_store
from review_monitor.store import Lease


def _started(live: Any) -> Any:
    live.bind()
    daemon = live.start()
    daemon.wait_rounds(1)
    return daemon


def test_sigterm_mid_run_exits_zero_with_the_store_consistent_and_the_lease_free(
    live: Any,
) -> None:
    daemon = _started(live)
    for n in range(5):
        live.fake.post_comment(live.pr, "maintainer", f"change number {n}")
    daemon.wait_for(lambda m: "woke worker" in m)
    assert 0 == daemon.stop(signal.SIGTERM)
    assert any("SIGTERM received" in m for m in daemon.messages())
    assert "comment-wake daemon stopped" == daemon.messages()[-1]
    with closing(sqlite3.connect(live.state_dir / "state.db")) as db:
        check = db.execute("PRAGMA integrity_check").fetchone()[0]
    store = open_sync_store(live.state_dir / "state.db")
    try:
        delivered = store.entries(statuses=("delivered",))
    finally:
        store.close()
    assert "ok" == check
    assert len(delivered) == len(live.delivered_texts())
    Lease.acquire(live.state_dir / "state.db").release()


def test_sigint_stops_cleanly_too(live: Any) -> None:
    daemon = _started(live)
    assert 0 == daemon.stop(signal.SIGINT)
    assert "comment-wake daemon stopped" == daemon.messages()[-1]


def test_a_second_daemon_on_the_same_state_dir_is_refused(live: Any) -> None:
    first = _started(live)
    second = live.start()
    assert 1 == second.proc.wait(timeout=30)
    second.stop()
    assert "another comment-wake daemon" in second.output()
    assert str(first.proc.pid) in second.output()
    assert 0 == first.stop()


def test_run_with_dry_run_starts_a_dry_run_daemon(live: Any) -> None:
    live.bind()
    daemon = live.start("--dry-run")
    started = daemon.wait_for(lambda m: m.startswith("comment-wake daemon started"))
    assert 0 == daemon.stop()
    assert started.endswith(", dry run)")


def test_a_token_github_refuses_stops_the_daemon_with_exit_2_and_one_line_naming_the_host(
    live: Any,
) -> None:
    live.bind()
    wrong = "ghp_RefusedSentinel0123456789abcdefghijk"
    daemon = live.start(env=live.env(GH_TOKEN=wrong))
    code = daemon.proc.wait(timeout=60)
    daemon.stop()
    [line] = [m for m in daemon.messages() if m.startswith("comment-wake run:")]
    named = f"comment-wake run: GitHub at github.com ({live.base_url}) refused the token"
    assert (2, True, True, False) == (
        code,
        line.startswith(named),
        "the daemon stopped" in line,
        wrong in daemon.output(),
    )
