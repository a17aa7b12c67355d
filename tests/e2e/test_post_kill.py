"""A post whose daemon is SIGKILLed between the post and its record is posted once.

``comment-wake run`` as a real process against FakeGitHub on loopback.  GitHub takes the
post but its answer never comes (a timeout after the request was sent), and lists the new
comment 20 s late; the daemon is killed while it waits for the answer, then started again
on the same store.  The restarted daemon finds the post left ``sending``, looks for its
key (a miss: not listed yet), looks again once GitHub lists it, and records it: one
comment on GitHub, never two.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from comment_wake._paths import store_path
from comment_wake._post_marker import new_post_key
from comment_wake.registry import InboxSpec, Registry
from comment_wake.store import Post, insert_post, open_sync_store, posts
from comment_wake.tools._posting import post_body
from review_monitor import PrRef
from review_monitor.testing import FakeGitHub, Fault

pytestmark = pytest.mark.slow

TOKEN = "ghp_PostKillSentinel0123456789abcdefghijk"
VIEWER = "octo-worker"


def _wait(what: str, pred: Callable[[], bool], timeout: float) -> None:
    end = time.monotonic() + timeout
    while not pred():
        if time.monotonic() > end:
            raise AssertionError(f"{what} did not happen within {timeout} s")
        time.sleep(0.2)


def _rows(state: Path) -> tuple[Post, ...]:
    db = open_sync_store(store_path(state), create=False)
    try:
        return posts(db)
    finally:
        db.close()


@pytest.mark.timeout(240)
def test_a_post_killed_before_its_record_is_posted_once(tmp_path: Path) -> None:
    fake = FakeGitHub(viewer=VIEWER, token=TOKEN, hang_seconds=30.0)
    pr = fake.add_pr("octo/repo", 1, title="Add the widget")
    fake.set_permission("octo/repo", VIEWER, "write")
    fake.list_posts_late = timedelta(seconds=20)
    state = tmp_path / "state"
    with Registry.open(state) as registry:
        registry.add_orchestrator("orch", InboxSpec())
        registry.bind("w1", PrRef("octo", "repo", 1), orchestrator="orch", publisher=InboxSpec())
    env = {k: v for k, v in os.environ.items() if k not in ("GH_TOKEN", "GITHUB_TOKEN")}
    env.update(GH_TOKEN=TOKEN, HOME=str(tmp_path / "home"), PYTHONUNBUFFERED="1")
    config = tmp_path / "config.toml"
    log = tmp_path / "daemon.log"

    def start() -> subprocess.Popen[bytes]:
        with log.open("ab") as out:
            return subprocess.Popen(
                [sys.executable, "-m", "comment_wake", "run", "--config", str(config),
                 "--state-dir", str(state)],
                env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=out,
            )  # fmt: skip

    def mine() -> list[str]:
        return [i.id for i in fake.items(pr) if i.author == VIEWER]

    with fake.serve_in_thread() as url:
        config.write_text(
            f'[github]\napi_url = "{url}"\ntimeout = "20s"\n'
            '[monitor]\npoll_interval = "1s"\nsweep_grace = "2s"\n'
            '[delivery]\nscan_interval = "1s"\n',
            encoding="utf-8",
        )
        fake.inject(Fault.lost_answer())
        key = new_post_key()
        db = open_sync_store(store_path(state))
        try:
            with db.write(at=datetime.now(UTC)) as tx:
                insert_post(tx, key=key, worker="w1", pr=pr, tool="progress",
                            body=post_body("step 1 of 3", "w1", key))  # fmt: skip
        finally:
            db.close()
        first = start()
        try:
            _wait("the post on GitHub", lambda: len(mine()) == 1, 60)
            os.kill(first.pid, signal.SIGKILL)  # its answer is still on its way
        finally:
            first.wait(timeout=30)
        left = [p.status for p in _rows(state)]
        second = start()
        try:
            _wait("the post recorded", lambda: _rows(state)[0].status == "posted", 150)
            time.sleep(3)  # a few more scans: nothing is posted again
        finally:
            second.send_signal(signal.SIGTERM)
            second.wait(timeout=30)
    (post,) = _rows(state)
    assert (["sending"], 1, mine()[0]) == (left, len(mine()), post.node_id), log.read_text()
