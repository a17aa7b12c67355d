"""The hand-off notice: what the orchestrator gets when a worker cannot take a notice (pure)."""

from __future__ import annotations

from datetime import datetime
from typing import Final

from review_monitor import NOTICE_VERSION, Notice, PrRef, notice_key

__all__ = [
    "HANDOFF_KIND",
    "WORKER_KINDS",
    "WORKER_MESSAGE_KIND",
    "WORKER_REPORT_KIND",
    "handoff_notice",
]

HANDOFF_KIND: Final = "handoff"
"""The kind of the notice an orchestrator gets for a worker that cannot take one."""
WORKER_MESSAGE_KIND: Final = "worker-message"
"""The kind of a worker's ``message_orchestrator`` notice, addressed to its orchestrator."""
WORKER_REPORT_KIND: Final = "worker-report"
"""The kind of a worker's ``report`` notice, addressed to its orchestrator."""
WORKER_KINDS: Final = frozenset({WORKER_MESSAGE_KIND, WORKER_REPORT_KIND})
"""The notices a worker sends its orchestrator: never merged, never handed off again."""
_REASON_MAX = 200


def _printable(text: str) -> str:
    flat = " ".join("".join(ch if ch.isprintable() else " " for ch in text).split())
    return flat[:_REASON_MAX]


def handoff_notice(original: Notice, orchestrator: str, why: str, *, at: datetime) -> Notice:
    """A notice for ``orchestrator`` naming the worker, the PR and ``why``, with the original
    notice's text and items.  Its key is derived from the original's, so handing the same
    notice off again (after a crash) enqueues nothing new."""
    owner, _, name = original.pr.repo.partition("/")
    pr = PrRef(owner=owner, name=name, number=original.pr.number, host=original.pr.host)
    reason = _printable(why) or "no reason given"
    header = (
        f"comment-wake hand-off: worker {original.worker} cannot take a {original.kind} notice "
        f"for {original.pr.repo}#{original.pr.number} ({original.pr.url}): {reason}. "
        "The notice follows as it was written for the worker; please route it."
    )
    ids = [f"notice:{original.key}", *(item.id for item in original.items)]
    return Notice(
        version=NOTICE_VERSION,
        kind=HANDOFF_KIND,
        key=notice_key(orchestrator, pr, HANDOFF_KIND, ids),
        worker=orchestrator,
        pr=original.pr,
        items=original.items,
        text=f"{header}\n\n{original.text}",
        created_at=at,
    )
