"""The gap pages a fleet owner may read (issue 28): the identity's ``gap`` bucket and its
shared budget row, asked once before each flood gap page beyond the first.

Only those pages are optional reads: a refused one defers the rest of the read (the wake
core keeps the span above the floor and reads it at a later look), and nothing else an
owner reads ever waits on this.  A store fault refuses too (one warning line): a deferred
read loses nothing, while a read the budget cannot pay for could hold every host up.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from datetime import datetime

from comment_wake.store import GapLimits, spend_gap
from review_monitor.store import Store, describe_fault

__all__ = ["SharedGapPages"]

_log = logging.getLogger("comment_wake.service.gaps")


class SharedGapPages:
    """``await pages(now)``: whether one more gap page may be read now, a token of the
    identity's gap bucket taken when so.  ``host``: the GitHub host (the bucket is the
    host's identity's, as the content bucket is); ``viewer``: the token's login, which
    names the budget row (``host:login``, as the monitor writes it)."""

    def __init__(
        self,
        store: Store,
        *,
        host: str,
        viewer: Callable[[], Awaitable[str | None]],
        limits: GapLimits,
    ) -> None:
        self._store = store
        self._host = host
        self._viewer = viewer
        self._limits = limits

    async def __call__(self, now: datetime) -> bool:
        login = await self._viewer()
        budget = None if login is None else f"{self._host}:{login.lower()}"
        try:
            return await self._store.call(
                spend_gap, self._host.casefold(), budget, self._limits, now
            )
        except Exception as exc:
            _log.warning("a gap page was deferred: the store failed: %s", describe_fault(exc))
            return False
