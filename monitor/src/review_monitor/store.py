"""The state store: one SQLite database (WAL) of parts, one transaction API, one lease.

``Store`` is the async face (``await store.call(SyncStore.method, ...)`` on a thread or
inline executor); ``SyncStore`` the blocking one.  An application registers its own
parts (``Tables`` with their ``Migration``s) when it opens the store; ``commit(...,
also=fn)`` writes a listener's mark, its notices and the application's rows in one
transaction.  docs/monitor.md ("The state store") has the whole story.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from review_monitor._lazy import lazy_exports

if TYPE_CHECKING:
    from ._lease import Lease
    from ._lease_keeper import LeaseKeeper, LeaseLostError, LeaseNow
    from ._store._async import Executor, Store, run_in_thread, run_inline
    from ._store._budget import read_budget, read_budgets, record_budget
    from ._store._db import ReadTx, WriteTx, parse_store_time, store_time
    from ._store._faults import describe_fault
    from ._store._leases import (
        HeldLease,
        LeaseHeld,
        LeaseRow,
        acquire_lease,
        database_now,
        read_lease,
        read_leases,
        release_lease,
        renew_lease,
    )
    from ._store._marks import Mark, load_mark
    from ._store._outbox import (
        Attempt,
        OutboxEntry,
        OutboxStatus,
        count_enqueued,
        enqueue_notices,
        readdressed,
    )
    from ._store._owners import (
        LOCAL_HOST,
        Fence,
        PrOwner,
        check_fence,
        claim_pr,
        pr_lock,
        read_owner,
        release_pr,
    )
    from ._store._schema import Migration, Tables
    from ._store._stream import unread_prs
    from ._store._sync import SyncStore
    from ._store._watches import (
        add_watch,
        bump_registry,
        read_registry_version,
        read_watch_starts,
        read_watches,
        remove_watch,
    )

__all__ = [
    "LOCAL_HOST",
    "Attempt",
    "Executor",
    "Fence",
    "HeldLease",
    "Lease",
    "LeaseHeld",
    "LeaseKeeper",
    "LeaseLostError",
    "LeaseNow",
    "LeaseRow",
    "Mark",
    "Migration",
    "OutboxEntry",
    "OutboxStatus",
    "PrOwner",
    "ReadTx",
    "Store",
    "SyncStore",
    "Tables",
    "WriteTx",
    "acquire_lease",
    "add_watch",
    "bump_registry",
    "check_fence",
    "claim_pr",
    "count_enqueued",
    "database_now",
    "describe_fault",
    "enqueue_notices",
    "load_mark",
    "parse_store_time",
    "pr_lock",
    "read_budget",
    "read_budgets",
    "read_lease",
    "read_leases",
    "read_owner",
    "read_registry_version",
    "read_watch_starts",
    "read_watches",
    "readdressed",
    "record_budget",
    "release_lease",
    "release_pr",
    "remove_watch",
    "renew_lease",
    "run_in_thread",
    "run_inline",
    "store_time",
    "unread_prs",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    globals(),
    {
        "._lease": ("Lease",),
        "._lease_keeper": ("LeaseKeeper", "LeaseLostError", "LeaseNow"),
        "._store._async": ("Executor", "Store", "run_in_thread", "run_inline"),
        "._store._budget": ("read_budget", "read_budgets", "record_budget"),
        "._store._db": ("ReadTx", "WriteTx", "parse_store_time", "store_time"),
        "._store._faults": ("describe_fault",),
        "._store._leases": (
            "HeldLease",
            "LeaseHeld",
            "LeaseRow",
            "acquire_lease",
            "database_now",
            "read_lease",
            "read_leases",
            "release_lease",
            "renew_lease",
        ),
        "._store._marks": ("Mark", "load_mark"),
        "._store._stream": ("unread_prs",),
        "._store._owners": (
            "LOCAL_HOST",
            "Fence",
            "PrOwner",
            "check_fence",
            "claim_pr",
            "pr_lock",
            "read_owner",
            "release_pr",
        ),
        "._store._outbox": (
            "Attempt",
            "OutboxEntry",
            "OutboxStatus",
            "count_enqueued",
            "enqueue_notices",
            "readdressed",
        ),
        "._store._schema": ("Migration", "Tables"),
        "._store._sync": ("SyncStore",),
        "._store._watches": (
            "add_watch",
            "bump_registry",
            "read_registry_version",
            "read_watch_starts",
            "read_watches",
            "remove_watch",
        ),
    },
)
