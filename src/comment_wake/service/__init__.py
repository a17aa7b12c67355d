"""The comment-wake service: the async shell that runs the wake core on every badge poll.

``CommentWake`` is a ``review_monitor`` listener named ``"comment-wake"``; its ``run()``
task serves the permission-retry and rate-limit timers.  Bindings and transcripts come
from a ``BindingSource``; each look commits its mark, notices and ``DecisionRecord``s in
one transaction, with the ``FloodGap`` records of what no read covered, and then
publishes its events (``comment_wake.events``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from comment_wake._lazy import lazy_exports

if TYPE_CHECKING:
    from ._gap_pages import SharedGapPages
    from ._gaps import GAPS, describe_gap, gap_row, read_gaps
    from ._ports import LISTENER_NAME, BindingSource
    from ._records import (
        DECISIONS,
        DecisionRecord,
        PermissionEvidence,
        RateEvidence,
        decode_record,
        latest_by_comment,
        namespace_of,
        rate_evidence,
    )
    from ._service import CommentWake

__all__ = [
    "DECISIONS",
    "GAPS",
    "LISTENER_NAME",
    "BindingSource",
    "CommentWake",
    "DecisionRecord",
    "PermissionEvidence",
    "RateEvidence",
    "SharedGapPages",
    "decode_record",
    "describe_gap",
    "gap_row",
    "latest_by_comment",
    "namespace_of",
    "rate_evidence",
    "read_gaps",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    globals(),
    {
        "._gap_pages": ("SharedGapPages",),
        "._gaps": ("GAPS", "describe_gap", "gap_row", "read_gaps"),
        "._ports": ("LISTENER_NAME", "BindingSource"),
        "._records": (
            "DECISIONS",
            "DecisionRecord",
            "PermissionEvidence",
            "RateEvidence",
            "decode_record",
            "latest_by_comment",
            "namespace_of",
            "rate_evidence",
        ),
        "._service": ("CommentWake",),
    },
)
