"""One daemon per store: an exclusive ``flock`` on a lock file beside the database.

The OS drops the lock when the holder's process dies, however it dies, so a restart
after a crash takes the lease at once.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from pathlib import Path
from types import TracebackType

from ._errors import StoreLockedError

__all__ = ["Lease", "lease_path"]


def lease_path(db_path: Path) -> Path:
    """The lock file that guards ``db_path``: ``state.db`` -> ``state.db.lock``."""
    return db_path.with_name(db_path.name + ".lock")


class Lease:
    """The daemon lease on one store.  ``Lease.acquire(db)`` or use as a context manager."""

    def __init__(self, path: Path, fd: int) -> None:
        self.path = path
        self._fd: int | None = fd

    @classmethod
    def acquire(cls, db_path: Path) -> Lease:
        """Take the lease without waiting; raise ``StoreLockedError`` when it is held."""
        path = lease_path(Path(db_path))
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            with contextlib.suppress(PermissionError):  # the owner's alone, also an old one
                os.fchmod(fd, 0o600)
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _read_holder(fd)
            os.close(fd)
            who = f"process {holder}" if holder else "another process"
            raise StoreLockedError(
                f"another comment-wake daemon ({who}) owns the state store {db_path}; "
                "stop it first, or give this daemon a different store"
            ) from None
        except BaseException:
            os.close(fd)
            raise
        # The pid is only a hint for the message above; the lock itself is the truth.
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        return cls(path, fd)

    @property
    def held(self) -> bool:
        return self._fd is not None

    def release(self) -> None:
        if self._fd is None:
            return
        fd, self._fd = self._fd, None
        with contextlib.suppress(OSError):
            os.ftruncate(fd, 0)
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)

    def __enter__(self) -> Lease:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.release()


def _read_holder(fd: int) -> int | None:
    try:
        text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None
