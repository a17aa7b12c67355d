"""The ``inbox`` publisher: a durable per-worker directory a hook drains with ``take``.

Layout under the inbox root, one directory per worker::

    <root>/<worker>/lock                    held (flock) by every write and every take
    <root>/<worker>/tmp/<key>.json          a write in progress
    <root>/<worker>/new/<seq>-<key>.json    pending, in delivery order (seq is 20 digits)
    <root>/<worker>/taken/<key>.json        a tombstone per key ever taken (the notice)
    <root>/<worker>/rejected/<name>         a pending file ``take`` could not read

A write goes to ``tmp/``, is fsynced, renamed into ``new/`` and the directory fsynced, so a
reader never sees half a notice and a crash never loses an acknowledged one.  A notice whose
key is pending or has a tombstone is dropped, so redelivery has no second effect.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import re
import stat
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path

import msgspec

from comment_wake._paths import private_dir
from review_monitor import Delivered, Notice, PublishOutcome, Refused

from ._errors import InboxError

__all__ = [
    "InboxPublisher",
    "backlog",
    "default_inbox_root",
    "take",
    "was_taken",
    "worker_dir",
    "write_notice",
]

_WORKER = re.compile(r"[A-Za-z0-9_@+-][A-Za-z0-9._@+-]{0,127}")
_KEY = re.compile(r"[A-Za-z0-9_-]{1,128}")
_PENDING = re.compile(r"([0-9]{20})-([A-Za-z0-9_-]{1,128})\.json")
_DIR_MODE = 0o700
_FILE_MODE = 0o600


def default_inbox_root() -> Path:
    """``$COMMENT_WAKE_INBOX``, else ``$XDG_STATE_HOME/comment-wake/inbox``, else
    ``~/.local/state/comment-wake/inbox``."""
    explicit = os.environ.get("COMMENT_WAKE_INBOX")
    if explicit:
        return Path(explicit)
    state = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(state) / "comment-wake" / "inbox"


def worker_dir(root: Path, worker: str) -> Path:
    """The worker's directory; ``ValueError`` for a name that is not a safe file name."""
    if _WORKER.fullmatch(worker) is None:
        raise ValueError(
            f"worker {worker!r} cannot name an inbox directory: use letters, digits and "
            "._@+- (at most 128, not starting with a dot)"
        )
    return root / worker


def _private(folder: Path) -> None:
    """Create ``folder`` 0700, or take group and other permissions off it (an inbox an
    older version made under a loose umask)."""
    private_dir(folder)
    mode = stat.S_IMODE(os.stat(folder).st_mode)
    if mode & 0o077:
        os.chmod(folder, mode & _DIR_MODE)


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


@contextlib.contextmanager
def _locked(wdir: Path) -> Iterator[None]:
    fd = os.open(wdir / "lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, _FILE_MODE)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the lock


def _pending(wdir: Path) -> list[tuple[int, str, Path]]:
    """``(seq, key, path)`` of every well-named pending file, oldest first."""
    found = []
    for path in (wdir / "new").iterdir():
        m = _PENDING.fullmatch(path.name)
        if m is not None:
            found.append((int(m[1]), m[2], path))
    found.sort()
    return found


def _write_file(path: Path, data: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, _FILE_MODE)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
    finally:
        os.close(fd)


def write_notice(root: Path, notice: Notice) -> bool:
    """Put ``notice`` in its worker's inbox; False when its key was already there or taken.

    Raises ``ValueError`` for a worker or key that cannot name a file, ``OSError`` when
    the inbox cannot be written.
    """
    wdir = worker_dir(root, notice.worker)
    if _KEY.fullmatch(notice.key) is None:
        raise ValueError("notice key cannot name an inbox file")
    _private(Path(root))
    _private(wdir)
    for sub in ("tmp", "new", "taken", "rejected"):
        private_dir(wdir / sub)
    with _locked(wdir):
        if (wdir / "taken" / f"{notice.key}.json").exists():
            return False
        pending = _pending(wdir)
        if any(key == notice.key for _, key, _ in pending):
            return False
        seq = pending[-1][0] + 1 if pending else 1
        tmp = wdir / "tmp" / f"{notice.key}.json"
        try:
            _write_file(tmp, msgspec.json.encode(notice) + b"\n")
            os.rename(tmp, wdir / "new" / f"{seq:020d}-{notice.key}.json")
        except BaseException:
            with contextlib.suppress(OSError):
                tmp.unlink()
            raise
        _fsync_dir(wdir / "new")
    return True


def was_taken(root: Path, worker: str, key: str) -> bool:
    """Whether ``take`` handed out the notice ``key`` from the worker's inbox (its
    tombstone is there).  A look without the lock: a take under way shows at the next.
    Raises ``ValueError`` for an unsafe worker name."""
    if _KEY.fullmatch(key) is None:
        return False
    return (worker_dir(Path(root), worker) / "taken" / f"{key}.json").exists()


def backlog(inbox_root: Path, worker: str) -> tuple[int, datetime | None]:
    """How many notices wait in the worker's inbox, not taken yet, and when the oldest
    was written (None when none waits).  A read-only look without the lock: a take or a
    write under way may change the answer a moment later, never corrupt it.  Raises
    ``ValueError`` for an unsafe worker name."""
    wdir = worker_dir(Path(inbox_root), worker)
    if not (wdir / "new").is_dir():
        return 0, None
    pending = _pending(wdir)
    oldest: datetime | None = None
    for _, _, path in pending:
        try:
            oldest = datetime.fromtimestamp(path.stat().st_mtime, UTC)
        except FileNotFoundError:  # taken meanwhile
            continue
        break
    return len(pending), oldest


def take(
    inbox_root: Path,
    worker: str,
    *,
    limit: int | None = None,
    too_long: Callable[[Notice], None] | None = None,
) -> list[Notice]:
    """The worker's pending notices in delivery order, each marked taken (a tombstone).

    Runs under the worker's lock, so concurrent takes never hand out one notice twice and
    a write never slips in between.  A pending file that does not decode as a notice is
    moved to ``rejected/`` and skipped.  Raises ``ValueError`` for an unsafe worker name.

    With ``limit`` (characters of text, for a hook: ``NOTICE_TEXT_LIMIT``) it takes whole
    notices, in order, while their texts joined by blank lines fit, and leaves the rest
    pending in order.  A notice whose text alone is over the limit stays pending, never
    taken, and is passed to ``too_long``; the notices after it are still taken.
    """
    wdir = worker_dir(Path(inbox_root), worker)
    if not (wdir / "new").is_dir():
        return []
    taken: list[Notice] = []
    used = 0
    with _locked(wdir):
        for _, key, path in _pending(wdir):
            tombstone = wdir / "taken" / f"{key}.json"
            try:
                notice = msgspec.json.decode(path.read_bytes(), type=Notice)
            except (msgspec.DecodeError, msgspec.ValidationError, UnicodeDecodeError):
                (wdir / "rejected").mkdir(mode=_DIR_MODE, exist_ok=True)
                os.rename(path, wdir / "rejected" / path.name)
                continue
            if notice.key != key or tombstone.exists():
                # A file renamed by hand, or a copy of something already taken.
                (wdir / "rejected").mkdir(mode=_DIR_MODE, exist_ok=True)
                os.rename(path, wdir / "rejected" / path.name)
                continue
            if limit is not None:
                size = len(notice.text.rstrip("\n"))
                if size > limit:
                    if too_long is not None:
                        too_long(notice)
                    continue
                if used + size > limit:
                    break  # it and the rest wait, in order, for the next hook
                used += size + 2  # the blank line between two texts
            (wdir / "taken").mkdir(mode=_DIR_MODE, exist_ok=True)
            os.rename(path, tombstone)
            taken.append(notice)
        _fsync_dir(wdir / "new")
        if (wdir / "taken").is_dir():
            _fsync_dir(wdir / "taken")
    return taken


class InboxPublisher:
    """Writes each notice into ``<root>/<notice.worker>/`` (see the module doc for the layout).

    Outcome ``Delivered`` once the file is durable, also for a repeat that was dropped;
    ``Refused`` for a worker name that cannot name a directory; an unwritable directory
    or a full disk raises ``InboxError`` so the notice stays in the outbox.
    """

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)

    def __repr__(self) -> str:
        return f"InboxPublisher(root={str(self.root)!r})"

    async def publish(self, notice: Notice) -> PublishOutcome:
        # anyio here, not at the top: ``take`` (a hook's ``inbox take``) never needs it.
        import anyio.to_thread

        try:
            await anyio.to_thread.run_sync(write_notice, self.root, notice)
        except ValueError as exc:
            return Refused(str(exc))
        except OSError as exc:
            name = errno.errorcode.get(exc.errno or 0, "OSError")
            raise InboxError(
                f"cannot write the inbox of {notice.worker!r} under {self.root}: "
                f"{name} ({exc.strerror or 'no detail'})"
            ) from exc
        return Delivered()
