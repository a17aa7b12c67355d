"""Opening the state store with comment-wake's parts registered: every opener in the app
goes through ``open_store`` / ``open_sync_store`` so both are always migrated."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from review_monitor import Clock
from review_monitor.store import SyncStore, Tables

from ._content import CONTENT
from ._gap import GAP
from ._outcomes import OUTCOMES
from ._posts import POSTS
from ._reactions import REACTIONS
from ._records import RECORDS
from ._spellings import refuse_two_spellings
from ._takes import INBOX_DELIVERIES

if TYPE_CHECKING:
    from review_monitor.store import Executor, Store

__all__ = ["APP_TABLES", "open_store", "open_sync_store"]

APP_TABLES: tuple[Tables, ...] = (
    RECORDS,
    REACTIONS,
    OUTCOMES,
    POSTS,
    CONTENT,
    GAP,
    INBOX_DELIVERIES,
)
"""The app's own parts of the store, registered whenever the app opens it."""


def open_sync_store(
    path: Path | str,
    *,
    clock: Clock | None = None,
    create: bool = True,
    check_spellings: bool = True,
    connect_timeout: float | None = None,
) -> SyncStore:
    """``SyncStore.open`` with comment-wake's tables (``create=False``: refuse a missing
    store with ``StoreMissingError``).  A store that binds one PR under two spellings
    raises ``TwoSpellingsError`` unless ``check_spellings`` is False (the commands that
    fix it, and ``list``).  ``connect_timeout``: as ``SyncStore.open`` (None: the
    daemon's wait for a PostgreSQL server; the short commands pass their own)."""
    db = SyncStore.open(
        path, clock=clock, tables=APP_TABLES, create=create, connect_timeout=connect_timeout
    )
    if check_spellings:
        try:
            refuse_two_spellings(db)
        except BaseException:
            db.close()
            raise
    return db


def open_store(
    path: Path | str,
    *,
    lease: bool = False,
    clock: Clock | None = None,
    executor: Executor | None = None,
) -> Store:
    """``Store.open`` with comment-wake's tables (``executor`` None: ``run_in_thread``);
    ``TwoSpellingsError`` as ``open_sync_store``."""
    # The async store (anyio) only here: the commands that open the sync store never
    # import it.
    from review_monitor.store import Store, run_in_thread

    executor = run_in_thread if executor is None else executor
    store = Store.open(path, lease=lease, clock=clock, tables=APP_TABLES, executor=executor)
    try:
        refuse_two_spellings(store.sync)
    except BaseException:
        store.close()
        raise
    return store
