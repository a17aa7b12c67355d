"""``SyncStore``: the blocking store, the monitor's parts over one database."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

from review_monitor._clock import Clock
from review_monitor._errors import NotOwnerError
from review_monitor._model import PrRef
from review_monitor._notice import Notice

from ._budget import BUDGET
from ._leases import LEASES
from ._marks import MARKS, Mark, MarksPart, put_mark
from ._outbox import OUTBOX, Also, OutboxPart, enqueue_notices
from ._owners import OWNERS, Fence, check_fence
from ._permission_cache import PERMISSION_CACHE
from ._poll_requests import POLL_REQUESTS
from ._schema import Tables
from ._state import STATE, StatePart
from ._stream import STREAM
from ._watches import WATCHES, WatchesPart

__all__ = ["MONITOR_TABLES", "SyncStore"]

MONITOR_TABLES: tuple[Tables, ...] = (
    WATCHES,
    MARKS,
    OUTBOX,
    STATE,
    LEASES,
    OWNERS,
    STREAM,
    BUDGET,
    PERMISSION_CACHE,
    POLL_REQUESTS,
)


class SyncStore(WatchesPart, MarksPart, OutboxPart, StatePart):
    """The blocking store API (short commands, worker threads).  Thread-safe: one
    connection, used under a lock.  ``write(at=...)`` and ``read()`` are its
    transactions, for the application's own tables."""

    @classmethod
    def open(
        cls,
        target: Path | str,
        *,
        clock: Clock | None = None,
        tables: Sequence[Tables] = (),
        create: bool = True,
        connect_timeout: float | None = None,
    ) -> SyncStore:
        """Open the store at ``target`` (a SQLite file's path, or a ``postgresql://``
        URL) and migrate the monitor's parts and ``tables``, the application's parts.
        ``create=False`` (a command that only reads) raises ``StoreMissingError``
        instead of creating a store.  ``connect_timeout``: how long a PostgreSQL server
        is waited for (None: the daemon's default, 10 s)."""
        return cls(
            cls.connect(
                target,
                (*MONITOR_TABLES, *tables),
                clock,
                create=create,
                connect_timeout=connect_timeout,
            )
        )

    def commit(
        self,
        pr: PrRef,
        listener: str,
        *,
        mark: Mark | tuple[int, bytes] | None,
        notices: Sequence[Notice] = (),
        at: datetime,
        also: Also = None,
        fence: Fence | None = None,
    ) -> list[int]:
        """Write ``listener``'s new mark for ``pr`` (None: leave it), enqueue ``notices``
        and run ``also`` (the application's records), all in one transaction (the
        transactional outbox: a crash can neither lose a notice nor record its cause as
        handled without it).  Returns the seqs of the notices newly enqueued; a notice
        whose key is already in the outbox is skipped.

        ``fence``: the PR's owner and epoch as the caller's look read them (fleet mode);
        when they no longer hold, nothing is written (``NotOwnerError``)."""
        if mark is not None and not isinstance(mark, Mark):
            mark = Mark(*mark)
        with self.write(at=at) as tx:
            if fence is not None and not check_fence(tx, pr, fence):
                raise NotOwnerError(
                    f"host {fence.host_id} no longer owns {pr} at epoch {fence.epoch}; "
                    "nothing was written"
                )
            if mark is not None:
                put_mark(tx, pr, listener, mark)
            if also is not None:
                also(tx)
            return enqueue_notices(tx, notices)
