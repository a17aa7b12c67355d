"""The inbox publisher and ``take`` on a real file system."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import anyio
import msgspec
import pytest

from comment_wake.delivery import InboxError, InboxPublisher, take
from review_monitor import Delivered, Notice, Refused

NoticeFactory = Callable[..., Notice]


@pytest.mark.anyio
async def test_a_published_notice_is_one_json_file_named_by_its_key(
    make_notice: NoticeFactory, tmp_path: Path
) -> None:
    notice = make_notice()
    await InboxPublisher(tmp_path).publish(notice)
    files = sorted(p.name for p in (tmp_path / "w-42" / "new").iterdir())
    assert [f"{1:020d}-{notice.key}.json"] == files


@pytest.mark.anyio
async def test_the_file_holds_the_notice_as_json(
    make_notice: NoticeFactory, tmp_path: Path
) -> None:
    notice = make_notice()
    await InboxPublisher(tmp_path).publish(notice)
    (path,) = (tmp_path / "w-42" / "new").iterdir()
    assert notice == msgspec.json.decode(path.read_bytes(), type=Notice)


@pytest.mark.anyio
async def test_take_returns_pending_notices_in_delivery_order(
    make_notice: NoticeFactory, tmp_path: Path
) -> None:
    # Keys are hashes, so their sort order is unrelated to delivery order.
    notices = [make_notice(item_ids=(f"IC_{i}",), text=f"n{i}") for i in range(12)]
    publisher = InboxPublisher(tmp_path)
    for notice in notices:
        await publisher.publish(notice)
    assert notices == take(tmp_path, "w-42")


@pytest.mark.anyio
async def test_take_marks_notices_taken(make_notice: NoticeFactory, tmp_path: Path) -> None:
    await InboxPublisher(tmp_path).publish(make_notice())
    take(tmp_path, "w-42")
    assert [] == take(tmp_path, "w-42")


@pytest.mark.anyio
async def test_a_redelivery_after_take_is_dropped(
    make_notice: NoticeFactory, tmp_path: Path
) -> None:
    publisher = InboxPublisher(tmp_path)
    notice = make_notice()
    await publisher.publish(notice)
    take(tmp_path, "w-42")
    outcome = await publisher.publish(notice)
    assert (Delivered(), []) == (outcome, take(tmp_path, "w-42"))


@pytest.mark.anyio
async def test_a_redelivery_after_a_restart_is_dropped(
    make_notice: NoticeFactory, tmp_path: Path
) -> None:
    notice = make_notice()
    await InboxPublisher(tmp_path).publish(notice)
    take(tmp_path, "w-42")
    await InboxPublisher(tmp_path).publish(notice)  # a new publisher: no memory but the disk
    assert [] == take(tmp_path, "w-42")


@pytest.mark.anyio
async def test_a_redelivery_while_pending_is_dropped(
    make_notice: NoticeFactory, tmp_path: Path
) -> None:
    publisher = InboxPublisher(tmp_path)
    notice = make_notice()
    await publisher.publish(notice)
    await publisher.publish(notice)
    assert [notice] == take(tmp_path, "w-42")


@pytest.mark.anyio
async def test_workers_have_separate_inboxes(make_notice: NoticeFactory, tmp_path: Path) -> None:
    publisher = InboxPublisher(tmp_path)
    mine, theirs = make_notice(worker="w-1"), make_notice(worker="w-2")
    await publisher.publish(mine)
    await publisher.publish(theirs)
    assert ([mine], [theirs]) == (take(tmp_path, "w-1"), take(tmp_path, "w-2"))


@pytest.mark.anyio
async def test_no_temporary_file_is_left_behind(make_notice: NoticeFactory, tmp_path: Path) -> None:
    await InboxPublisher(tmp_path).publish(make_notice())
    assert [] == list((tmp_path / "w-42" / "tmp").iterdir())


@pytest.mark.anyio
@pytest.mark.parametrize("worker", ["../escape", "a/b", ".hidden", "", "x" * 129, "w\x00"])
async def test_a_worker_name_that_cannot_name_a_directory_is_refused(
    make_notice: NoticeFactory, tmp_path: Path, worker: str
) -> None:
    outcome = await InboxPublisher(tmp_path / "inbox").publish(make_notice(worker=worker))
    assert (True, False) == (isinstance(outcome, Refused), (tmp_path / "escape").exists())


def test_take_of_an_unsafe_worker_name_raises(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="cannot name"):
        take(tmp_path, "../etc")


def test_take_of_a_worker_without_an_inbox_is_empty(tmp_path: Path) -> None:
    assert [] == take(tmp_path, "nobody")


@pytest.mark.anyio
async def test_an_unreadable_pending_file_is_set_aside_and_the_rest_taken(
    make_notice: NoticeFactory, tmp_path: Path
) -> None:
    publisher = InboxPublisher(tmp_path)
    first, second = make_notice(item_ids=("IC_1",)), make_notice(item_ids=("IC_2",))
    await publisher.publish(first)
    await publisher.publish(second)
    (path,) = (p for p in (tmp_path / "w-42" / "new").iterdir() if first.key in p.name)
    path.write_bytes(b"{not json")
    taken = take(tmp_path, "w-42")
    rejected = [p.name for p in (tmp_path / "w-42" / "rejected").iterdir()]
    assert ([second], [path.name]) == (taken, rejected)


@pytest.mark.anyio
async def test_an_inbox_root_that_is_a_file_raises(
    make_notice: NoticeFactory, tmp_path: Path
) -> None:
    root = tmp_path / "inbox"
    root.write_text("not a directory")
    with pytest.raises(InboxError, match=r"ENOTDIR|EEXIST"):
        await InboxPublisher(root).publish(make_notice())


@pytest.fixture
def read_only_dir(tmp_path: Path) -> Iterator[Path]:
    """A directory this process cannot write: mode 0500, or immutable when we are root."""
    path = tmp_path / "inbox" / "w-42"
    path.mkdir(parents=True)
    if os.geteuid() != 0:
        path.chmod(0o500)
        yield path
        path.chmod(0o700)
        return
    # Root writes through permission bits; the immutable attribute stops it.
    if subprocess.run(["chattr", "+i", str(path)], capture_output=True).returncode != 0:
        pytest.skip("running as root without chattr +i: no way to make a directory unwritable")
    try:
        yield path
    finally:
        subprocess.run(["chattr", "-i", str(path)], check=True)


@pytest.mark.anyio
async def test_a_read_only_inbox_raises(make_notice: NoticeFactory, read_only_dir: Path) -> None:
    with pytest.raises(InboxError, match=r"EACCES|EPERM"):
        await InboxPublisher(read_only_dir.parent).publish(make_notice())


def test_a_full_disk_raises_and_leaves_no_partial_notice(tmp_path: Path) -> None:
    # A file-size limit makes the write fail with EFBIG the way a full disk fails with
    # ENOSPC: after the temporary file is created, in the middle of the data.
    program = textwrap.dedent(
        f"""
        import anyio, resource, signal, sys
        from datetime import UTC, datetime
        from review_monitor import Notice, NoticePr
        from comment_wake.delivery import InboxError, InboxPublisher
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))
        notice = Notice(version=1, kind="comment-wake", key="k" * 64, worker="w-42",
            pr=NoticePr(host="github.com", repo="o/r", number=7, url="u", title="t"),
            items=(), text="x" * 100_000, created_at=datetime(2026, 3, 1, tzinfo=UTC))
        try:
            anyio.run(InboxPublisher({str(tmp_path)!r}).publish, notice)
        except InboxError as exc:
            print(exc)
            sys.exit(3)
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, timeout=60
    )
    leftovers = [p.name for d in ("tmp", "new") for p in (tmp_path / "w-42" / d).iterdir()]
    assert (3, True, []) == (result.returncode, "EFBIG" in result.stdout, leftovers)


def test_a_reader_never_sees_a_partial_notice(make_notice: NoticeFactory, tmp_path: Path) -> None:
    # A thread keeps reading whatever appears in new/ while large notices are written;
    # every file it opens must decode as a whole notice.
    notices = [make_notice(item_ids=(f"IC_{i}",), text="y" * 300_000) for i in range(40)]
    new = tmp_path / "w-42" / "new"
    stop = threading.Event()
    seen: dict[str, bool] = {}

    def reader() -> None:
        finished = False
        while not finished:
            finished = stop.is_set()  # one more pass after the last write
            if not new.is_dir():
                continue
            for path in list(new.iterdir()):
                try:
                    data = path.read_bytes()
                except FileNotFoundError:
                    continue
                try:
                    msgspec.json.decode(data, type=Notice)
                    seen.setdefault(path.name, True)
                except msgspec.DecodeError:
                    seen[path.name] = False

    thread = threading.Thread(target=reader)
    thread.start()

    async def write_all() -> None:
        publisher = InboxPublisher(tmp_path)
        for notice in notices:
            await publisher.publish(notice)

    try:
        anyio.run(write_all)
    finally:
        stop.set()
        thread.join()
    assert (40, True) == (len(seen), all(seen.values()))


def test_concurrent_takes_hand_out_each_notice_exactly_once(
    make_notice: NoticeFactory, tmp_path: Path
) -> None:
    takers = [
        subprocess.Popen(
            [
                sys.executable,
                "-c",
                "import sys, time\n"
                "from comment_wake.delivery import take\n"
                "for _ in range(200):\n"
                f"    for n in take({str(tmp_path)!r}, 'w-42'): print(n.key, flush=True)\n"
                "    time.sleep(0.002)\n",
            ],
            stdout=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    notices = [make_notice(item_ids=(f"IC_{i}",)) for i in range(150)]

    async def write_all() -> None:
        publisher = InboxPublisher(tmp_path)
        for notice in notices:
            await publisher.publish(notice)

    anyio.run(write_all)
    keys: list[str] = []
    for proc in takers:
        out, _ = proc.communicate(timeout=120)
        keys.extend(out.split())
    keys.extend(n.key for n in take(tmp_path, "w-42"))
    assert sorted(n.key for n in notices) == sorted(keys)
