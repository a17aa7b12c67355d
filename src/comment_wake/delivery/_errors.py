"""Faults a publisher cannot classify as delivered, busy, gone or refused.

The delivery loop keeps the notice in the outbox and retries it with the worker's
backoff.  No message ever carries a secret, a token or a notice's text.
"""

from __future__ import annotations

__all__ = [
    "CallbackError",
    "CommandFailedError",
    "InboxError",
    "PublishError",
    "PublishTimeoutError",
    "WebhookError",
]


class PublishError(Exception):
    """Base: the attempt failed in a way worth retrying later (with backoff)."""


class PublishTimeoutError(PublishError):
    """The publisher did not finish within its timeout (a command's process group is killed)."""


class CommandFailedError(PublishError):
    """A command exited with a code outside the contract, or was killed by a signal."""

    def __init__(self, message: str, *, exit_code: int | None, stderr_tail: str = "") -> None:
        super().__init__(message)
        self.exit_code = exit_code
        self.stderr_tail = stderr_tail


class WebhookError(PublishError):
    """A 5xx answer, a timeout or a connection fault; ``status`` is None without an answer."""

    def __init__(self, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class InboxError(PublishError):
    """The inbox could not be written (a full disk, an unwritable directory)."""


class CallbackError(PublishError):
    """The embedded callback raised; the original exception is the ``__cause__``."""
