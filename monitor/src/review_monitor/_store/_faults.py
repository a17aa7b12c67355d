"""What a store fault means, in words a person can act on.

SQLite reports a full disk, a read-only file or a damaged database as one exception type
(``sqlite3.OperationalError`` or ``DatabaseError``) with a result code; ``describe_fault``
turns the code into a sentence that says what happened and what to do.  Only the code is
read, never the message: it names no value, so it is safe for a log line.
``check_store_file`` refuses, before SQLite sees it, a store file that SQLite would
silently treat as a new, empty database.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from review_monitor._errors import StoreCorruptError, StoreError, StoreMissingError

__all__ = ["check_store_file", "corrupt_error", "describe_fault", "is_corrupt"]

_CORRUPT = frozenset({sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB})

# Primary result code -> what it means for the store (extended codes share the low byte).
_MEANING: dict[int, str] = {
    sqlite3.SQLITE_FULL: "the disk is full; the transaction was rolled back and nothing "
    "was lost: free some space and it goes on",
    sqlite3.SQLITE_READONLY: "the state store is read-only; comment-wake must be able to "
    "write state.db, its -wal and -shm files and their directory: check the permissions "
    "and the mount",
    sqlite3.SQLITE_CORRUPT: "the state store is damaged",
    sqlite3.SQLITE_NOTADB: "the state store is not a SQLite database",
    sqlite3.SQLITE_BUSY: "another process kept the state store locked for more than 10 s",
    sqlite3.SQLITE_LOCKED: "the state store is locked",
    sqlite3.SQLITE_IOERR: "a disk I/O error on the state store; check the disk",
    sqlite3.SQLITE_CANTOPEN: "the state store cannot be opened; check that its directory "
    "exists and is writable",
    sqlite3.SQLITE_PERM: "permission denied on the state store; check its permissions",
    sqlite3.SQLITE_AUTH: "permission denied on the state store; check its permissions",
}


def _code(exc: sqlite3.Error) -> int | None:
    code = getattr(exc, "sqlite_errorcode", None)
    return code & 0xFF if isinstance(code, int) else None


def _name(exc: sqlite3.Error) -> str:
    name = getattr(exc, "sqlite_errorname", None)
    return name if isinstance(name, str) else type(exc).__name__


def describe_fault(exc: BaseException) -> str:
    """One line about a store fault: what it means and what to do, with SQLite's code
    name (``the disk is full; ... (SQLITE_FULL)``).  A ``StoreError``'s own message is
    already such a line; any other exception is told by its type only."""
    if isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        return describe_fault(exc.exceptions[0])
    if isinstance(exc, StoreError):
        return str(exc)
    if isinstance(exc, sqlite3.Error):
        meaning = _MEANING.get(_code(exc) or -1)
        name = _name(exc)
        return f"{meaning} ({name})" if meaning else f"SQLite error {name}"
    return type(exc).__name__


def is_corrupt(exc: BaseException) -> bool:
    """Whether ``exc`` says the file is not a database or is damaged."""
    return isinstance(exc, sqlite3.Error) and _code(exc) in _CORRUPT


def _recovery(path: Path) -> str:
    return (
        f"comment-wake will not start afresh on its own (that would drop every binding): "
        f"restore {path.name} from a backup, or move it aside to start with an empty store"
    )


def corrupt_error(path: Path, exc: sqlite3.Error) -> StoreCorruptError:
    """The ``StoreCorruptError`` for ``exc`` raised opening ``path``."""
    return StoreCorruptError(
        f"the state store {path} is damaged or not a SQLite database ({_name(exc)}); "
        + _recovery(path)
    )


def check_store_file(path: Path, *, create: bool) -> None:
    """Refuse what SQLite would open as a new, empty store: a 0-byte file (SQLite calls
    it an empty database), and, unless ``create``, a missing one; a directory in the way
    of the store, or a file in the way of its directory, is told as such."""
    parent = path.parent
    if parent.exists() and not parent.is_dir():
        raise StoreError(
            f"{parent} is a file, not a directory: the state directory must be a "
            "directory (pass another --state-dir)"
        )
    if path.is_dir():
        raise StoreError(f"{path} is a directory, not the state store; move it aside")
    if not path.exists():
        if not create:
            raise StoreMissingError(f"no state store at {path}")
        return
    if path.stat().st_size == 0:
        raise StoreCorruptError(f"the state store {path} is empty (0 bytes); " + _recovery(path))
