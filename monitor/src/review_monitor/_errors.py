"""The monitor's errors.  No message ever carries a token."""

from __future__ import annotations

from datetime import datetime
from typing import Any

__all__ = [
    "AuthError",
    "GitHubError",
    "GraphQLError",
    "RateLimitedError",
    "StoreCorruptError",
    "StoreError",
    "StoreLockedError",
    "StoreMissingError",
    "StoreSchemaError",
    "TokenNotFoundError",
    "TransientError",
]


class GitHubError(Exception):
    """Base of everything that went wrong talking to GitHub."""


class TokenNotFoundError(GitHubError):
    """No token in ``GH_TOKEN``, ``GITHUB_TOKEN`` or ``gh auth token``."""


class AuthError(GitHubError):
    """GitHub refused the token (401), or it lacks a needed scope."""


class RateLimitedError(GitHubError):
    """A primary or secondary rate limit; ``retry_at`` is when GitHub allows the next call."""

    def __init__(self, message: str, *, retry_at: datetime | None, secondary: bool) -> None:
        super().__init__(message)
        self.retry_at = retry_at
        self.secondary = secondary


class TransientError(GitHubError):
    """A 5xx, a timeout or a connection fault that outlasted the retries.

    ``maybe_sent`` is False only when no attempt can have reached GitHub (every one failed
    to open the connection): a write that failed so was surely not made."""

    def __init__(self, message: str, *, status: int | None = None, maybe_sent: bool = True) -> None:
        super().__init__(message)
        self.status = status
        self.maybe_sent = maybe_sent


class GraphQLError(GitHubError):
    """GraphQL ``errors`` (HTTP 200); ``data`` holds any partial data beside them."""

    def __init__(self, message: str, *, errors: list[dict[str, Any]], data: Any) -> None:
        super().__init__(message)
        self.errors = errors
        self.data = data


class StoreError(Exception):
    """Base of the state store's errors."""


class StoreLockedError(StoreError):
    """Another daemon owns this state store."""


class StoreUnavailableError(StoreError):
    """The store's database server cannot be reached (PostgreSQL): nothing was written,
    and the caller goes on when it answers again."""


class NotOwnerError(StoreError):
    """A commit's host no longer owns its PR at the epoch its look read (fleet mode): the
    PR was re-bound or given up meanwhile, and nothing was written."""


class StoreSchemaError(StoreError):
    """The store's schema is newer than this build, or a migration failed."""


class StoreMissingError(StoreError):
    """No store at the path, and the opener asked not to create one (a command that
    only reads, or changes what must already be there)."""


class StoreCorruptError(StoreError):
    """The file is empty, not a SQLite database, or damaged: never silently replaced by a
    fresh store (that would drop every binding); the message says how to recover."""
