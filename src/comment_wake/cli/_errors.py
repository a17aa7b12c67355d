"""The command line's one place for expected failures: each becomes one line and an exit
status; anything else is a bug and keeps its traceback.

A command raises (or lets through) one of the errors ``failure_line`` knows; ``main``
prints ``comment-wake COMMAND: <line>`` on stderr and exits 1 (the store, the disk, the
network: something to fix outside the command) or 2 (the command, its configuration or
its token: something to fix in what was asked).  anyio wraps an error raised in a task
group in an ``ExceptionGroup``; the group is unwrapped here: when every error in it is an
expected one (cancellations aside), its first one is the line.  Ctrl-C is exit 130 with
no traceback, as git and gh do.
"""

from __future__ import annotations

import sqlite3
import sys
from collections.abc import Iterator

from comment_wake.config import ConfigError
from comment_wake.hints import WebhookSecretError
from comment_wake.registry import RegistryError
from review_monitor import (
    AuthError,
    StoreError,
    StoreMissingError,
    TokenNotFoundError,
)
from review_monitor.store import describe_fault

__all__ = ["INTERRUPTED", "CliError", "failure_line", "leaves"]

INTERRUPTED = 130
"""The exit status after Ctrl-C (128 + SIGINT), as shells, git and gh use."""


class CliError(Exception):
    """An expected failure a command found itself: ``message`` is the line, ``status``
    the exit status (1: fix something outside the command; 2: fix the command)."""

    def __init__(self, message: str, status: int = 1) -> None:
        super().__init__(message)
        self.status = status


def leaves(exc: BaseException) -> Iterator[BaseException]:
    """The exceptions inside ``exc``, groups opened all the way down."""
    if isinstance(exc, BaseExceptionGroup):
        for inner in exc.exceptions:
            yield from leaves(inner)
    else:
        yield exc


def _missing(exc: StoreMissingError) -> str:
    return (
        f"{exc}: nothing is bound in this state directory; check --state-dir, "
        "$COMMENT_WAKE_STATE_DIR or state_dir, or bind a worker first (comment-wake bind)"
    )


def _os_line(exc: OSError) -> str:
    what = exc.strerror or type(exc).__name__
    return f"{what}: {exc.filename}" if exc.filename else what


def _one(exc: BaseException) -> tuple[str, int] | None:
    if isinstance(exc, CliError):
        return str(exc), exc.status
    if isinstance(exc, ConfigError | TokenNotFoundError | WebhookSecretError | RegistryError):
        return str(exc), 2
    if isinstance(exc, AuthError):
        return str(exc), 2  # its messages say what GitHub refused and what to check
    if isinstance(exc, StoreMissingError):
        return _missing(exc), 1
    if isinstance(exc, StoreError):
        return str(exc), 1
    if isinstance(exc, sqlite3.Error):
        return f"the state store failed: {describe_fault(exc)}", 1
    if isinstance(exc, OSError):
        return _os_line(exc), 1
    return None


def _ignorable(exc: BaseException) -> bool:
    # A task cancelled because its sibling failed says nothing of its own.  Only a command
    # that imported asyncio can have one: the light commands never import it for this.
    asyncio = sys.modules.get("asyncio")
    return asyncio is not None and isinstance(exc, asyncio.CancelledError)


def failure_line(exc: BaseException) -> tuple[str, int] | None:
    """The line and exit status for an expected failure (a group of them: the first);
    None when ``exc`` is (or holds) anything else, a bug whose traceback must show."""
    found: tuple[str, int] | None = None
    for leaf in leaves(exc):
        one = _one(leaf)
        if one is None:
            if _ignorable(leaf):
                continue
            return None
        found = found or one
    return found
