"""One daemon per store (an OS file lock), while short commands share the file."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path

import pytest

from review_monitor import Notice, PrRef
from review_monitor._errors import StoreLockedError
from review_monitor._lease import Lease
from review_monitor.store import Store, SyncStore

_DAEMON = textwrap.dedent(
    """
    import sys, time
    from datetime import UTC, datetime
    from review_monitor import PrRef
    from review_monitor.store import Store
    store = Store.open(sys.argv[1], lease=True)
    pr = PrRef(owner="o", name="r", number=1)
    print("ready", flush=True)
    n = 0
    while True:  # a daemon busy writing marks while it holds the lease
        n += 1
        store.sync.commit(pr, "busy", mark=(1, str(n).encode()), at=datetime.now(UTC))
        time.sleep(0.002)
    """
)


@pytest.fixture
def daemon(db_path: Path) -> Iterator[subprocess.Popen[str]]:
    db_path.parent.mkdir(parents=True, exist_ok=True)
    proc = subprocess.Popen(
        [sys.executable, "-c", _DAEMON, str(db_path)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    assert "ready" == proc.stdout.readline().strip()
    yield proc
    if proc.poll() is None:
        proc.kill()
    proc.wait(timeout=10)
    proc.stdout.close()


def test_a_second_lease_on_the_same_store_is_refused(db_path: Path) -> None:
    db_path.parent.mkdir(parents=True)
    with Lease.acquire(db_path), pytest.raises(StoreLockedError, match="owns the state store"):
        Lease.acquire(db_path)


def test_a_released_lease_can_be_taken_again(db_path: Path) -> None:
    db_path.parent.mkdir(parents=True)
    Lease.acquire(db_path).release()
    with Lease.acquire(db_path) as lease:
        assert lease.held


def test_a_second_daemon_is_told_which_process_owns_the_store(
    daemon: subprocess.Popen[str], db_path: Path
) -> None:
    with pytest.raises(StoreLockedError, match=f"process {daemon.pid}"):
        Store.open(db_path, lease=True)


def test_a_killed_daemons_lease_is_free_at_once(
    daemon: subprocess.Popen[str], db_path: Path
) -> None:
    os.kill(daemon.pid, signal.SIGKILL)
    daemon.wait(timeout=10)
    with Store.open(db_path, lease=True) as store:
        assert store.lease is not None
        assert store.lease.held


def test_a_short_command_works_while_a_daemon_holds_the_lease(
    daemon: subprocess.Popen[str],
    db_path: Path,
    make_notice: Callable[..., Notice],
    pr: PrRef,
    t0: datetime,
) -> None:
    short = SyncStore.open(db_path)
    try:
        for i in range(20):
            short.add_watch(f"w{i}", pr, at=t0)
        short.enqueue([make_notice()], at=t0)
        assert (20, 1, None) == (len(short.watches()), len(short.entries()), daemon.poll())
    finally:
        short.close()


@pytest.mark.anyio
async def test_the_async_store_commits_and_reads_off_the_event_loop(
    db_path: Path, make_notice: Callable[..., Notice], pr: PrRef, t0: datetime
) -> None:
    with Store.open(db_path) as store:
        n = make_notice()
        await store.call(SyncStore.add_watch, "w1", pr, at=t0)
        (seq,) = await store.call(
            SyncStore.commit, pr, "notices", mark=(1, b"m"), notices=[n], at=t0
        )
        await store.call(SyncStore.mark_delivered, seq, at=t0, session_id="s")
        entry = await store.call(SyncStore.entry, seq)
        assert entry is not None
        assert (1, ("delivered", "s")) == (
            len(await store.call(SyncStore.watches)),
            (entry.status, entry.session_id),
        )
