"""The state store: one SQLite database (WAL) of parts, one transaction API, one lease.

``Store`` is the async face (``await store.call(SyncStore.method, ...)`` on a thread or
inline executor); ``SyncStore`` the blocking one.  An application registers its own
parts (``Tables`` with their ``Migration``s) when it opens the store; ``commit(...,
also=fn)`` writes a listener's mark, its notices and the application's rows in one
transaction.  docs/monitor.md ("The state store") has the whole story.
"""

from ._lease import Lease
from ._store import (
    Attempt,
    Executor,
    Mark,
    Migration,
    OutboxEntry,
    OutboxStatus,
    ReadTx,
    Store,
    SyncStore,
    Tables,
    WriteTx,
    add_watch,
    parse_store_time,
    remove_watch,
    run_in_thread,
    run_inline,
    store_time,
)

__all__ = [
    "Attempt",
    "Executor",
    "Lease",
    "Mark",
    "Migration",
    "OutboxEntry",
    "OutboxStatus",
    "ReadTx",
    "Store",
    "SyncStore",
    "Tables",
    "WriteTx",
    "add_watch",
    "parse_store_time",
    "remove_watch",
    "run_in_thread",
    "run_inline",
    "store_time",
]
