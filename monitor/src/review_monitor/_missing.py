"""When a PR GitHub answers NOT_FOUND (GraphQL) or 404 (REST) is read again.  Pure: time
is an argument.

A PR can vanish for a moment (a repository made private and back, a token's access
re-granted, a transfer), so a missing PR is not parked for ``missing_pr_interval`` at
once: it is tried again after ``MISSING_FIRST_RETRY`` (1 minute), then after 2, 4, 8 ...
minutes, each wait twice the last, capped at ``missing_pr_interval``.  A successful read
resets it: the poller forgets the PR's ``Missing`` entry, so a later miss starts at one
minute again.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

__all__ = ["MISSING_FIRST_RETRY", "Missing", "missed", "missing_wait"]

MISSING_FIRST_RETRY = timedelta(minutes=1)
"""The wait after a PR's first NOT_FOUND answer; each later miss doubles it."""

# 2**_MAX_DOUBLINGS minutes is far past any cap a configuration can give; counting further
# would only build big integers.
_MAX_DOUBLINGS = 32


@dataclass(frozen=True)
class Missing:
    """A PR whose last reads GitHub answered NOT_FOUND: since when, how many reads in a
    row, and when it is read again."""

    since: datetime  # the first NOT_FOUND answer of this run of them
    misses: int  # NOT_FOUND answers in a row, at least 1
    retry_at: datetime  # the PR is not read before this


def missing_wait(misses: int, cap: timedelta) -> timedelta:
    """The wait after the ``misses``-th NOT_FOUND answer in a row (1, 2, 4, 8 ... minutes),
    never more than ``cap`` (``missing_pr_interval``)."""
    if misses < 1:
        raise ValueError("misses counts NOT_FOUND answers: at least 1")
    doublings: int = min(misses - 1, _MAX_DOUBLINGS)
    return min(cap, MISSING_FIRST_RETRY * (1 << doublings))


def missed(before: Missing | None, now: datetime, cap: timedelta) -> Missing:
    """The PR was answered NOT_FOUND at ``now``; ``before`` is its entry from earlier
    misses in a row (None after a successful read, or at the first)."""
    misses = 1 if before is None else before.misses + 1
    since = now if before is None else before.since
    return Missing(since=since, misses=misses, retry_at=now + missing_wait(misses, cap))
