"""comment-wake's parts of the monitor's state store, and opening the store with them.

The store (``review_monitor.store.SyncStore`` / ``Store``) is one SQLite file in parts, each
with its own migrations.  comment-wake registers three: ``RECORDS`` (``app_records``: the
registry's workers and orchestrators, the decision records), ``REACTIONS`` (the
acknowledgements the delivery owes) and ``OUTCOMES`` (what became of each delivered
comment).  Release and poll requests (``comment-wake release``, ``comment-wake poll``)
are application records too (``RELEASES``, ``POLLS``).  Every opener in the app
goes through ``open_store`` / ``open_sync_store`` so both are always migrated.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from comment_wake._lazy import lazy_exports

if TYPE_CHECKING:
    from ._open import APP_TABLES, open_store, open_sync_store
    from ._outcomes import (
        OUTCOME_ITEM_KINDS,
        OUTCOMES,
        Addressed,
        CommentFate,
        CommentOutcome,
        Outcome,
        OutcomeSummary,
        address,
        delivering,
        outcome_summary,
        outcomes,
        prune_outcomes,
    )
    from ._polls import POLLS, PollRequest, clear_poll_request, poll_requests, request_poll
    from ._reactions import (
        REACTIONS,
        ReactionEntry,
        ReactionStatus,
        due_reactions,
        next_reaction_at,
        owing,
        prune_reactions,
        reactions,
        settle_reactions,
    )
    from ._records import (
        RECORDS,
        delete_record,
        get_record,
        prune_records,
        put_record,
        putting_records,
        read_record,
        read_records,
        record_items,
        records_under,
    )
    from ._releases import (
        RELEASES,
        ReleaseRequest,
        clearing_release,
        has_release_request,
        release_requests,
        request_release,
    )
    from ._spellings import TwoSpellingsError, refuse_two_spellings, two_spellings

__all__ = [
    "APP_TABLES",
    "OUTCOMES",
    "OUTCOME_ITEM_KINDS",
    "POLLS",
    "REACTIONS",
    "RECORDS",
    "RELEASES",
    "Addressed",
    "CommentFate",
    "CommentOutcome",
    "Outcome",
    "OutcomeSummary",
    "PollRequest",
    "ReactionEntry",
    "ReactionStatus",
    "ReleaseRequest",
    "TwoSpellingsError",
    "address",
    "clear_poll_request",
    "clearing_release",
    "delete_record",
    "delivering",
    "due_reactions",
    "get_record",
    "has_release_request",
    "next_reaction_at",
    "open_store",
    "open_sync_store",
    "outcome_summary",
    "outcomes",
    "owing",
    "poll_requests",
    "prune_outcomes",
    "prune_reactions",
    "prune_records",
    "put_record",
    "putting_records",
    "reactions",
    "read_record",
    "read_records",
    "record_items",
    "records_under",
    "refuse_two_spellings",
    "release_requests",
    "request_poll",
    "request_release",
    "settle_reactions",
    "two_spellings",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    globals(),
    {
        "._open": ("APP_TABLES", "open_store", "open_sync_store"),
        "._outcomes": (
            "OUTCOME_ITEM_KINDS",
            "OUTCOMES",
            "Addressed",
            "CommentOutcome",
            "CommentFate",
            "Outcome",
            "OutcomeSummary",
            "address",
            "delivering",
            "outcome_summary",
            "outcomes",
            "prune_outcomes",
        ),
        "._polls": ("POLLS", "PollRequest", "clear_poll_request", "poll_requests", "request_poll"),
        "._reactions": (
            "REACTIONS",
            "ReactionEntry",
            "ReactionStatus",
            "due_reactions",
            "next_reaction_at",
            "owing",
            "prune_reactions",
            "reactions",
            "settle_reactions",
        ),
        "._records": (
            "RECORDS",
            "delete_record",
            "get_record",
            "prune_records",
            "put_record",
            "putting_records",
            "read_record",
            "read_records",
            "record_items",
            "records_under",
        ),
        "._releases": (
            "RELEASES",
            "ReleaseRequest",
            "clearing_release",
            "has_release_request",
            "release_requests",
            "request_release",
        ),
        "._spellings": ("TwoSpellingsError", "refuse_two_spellings", "two_spellings"),
    },
)
