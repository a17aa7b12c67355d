"""The hand-off notice: what the orchestrator gets when a worker cannot take a notice (pure)."""

from __future__ import annotations

from datetime import datetime
from typing import Final

from comment_wake._limits import HANDOFF_HEADER_MAX
from review_monitor import NOTICE_VERSION, Notice, PrRef, notice_key

__all__ = [
    "HANDOFF_KIND",
    "ORCHESTRATOR_KINDS",
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
ORCHESTRATOR_KINDS: Final = frozenset({HANDOFF_KIND}) | WORKER_KINDS
"""The notices for an orchestrator, not for a PR's worker: ``unpark`` never re-addresses
them to the PR's current worker."""
_REASON_MAX = 200
# How much of each name the header shows, so that it fits ``HANDOFF_HEADER_MAX``.
_WORKER_MAX, _KIND_MAX, _REPO_MAX, _URL_MAX = 100, 40, 140, 300


def _printable(text: str, limit: int = _REASON_MAX) -> str:
    flat = " ".join("".join(ch if ch.isprintable() else " " for ch in text).split())
    return flat[:limit]


def handoff_notice(original: Notice, orchestrator: str, why: str, *, at: datetime) -> Notice:
    """A notice for ``orchestrator`` naming the worker, the PR and ``why``, with the original
    notice's text and items.  Its key is derived from the original's, so handing the same
    notice off again (after a crash) enqueues nothing new."""
    owner, _, name = original.pr.repo.partition("/")
    pr = PrRef(owner=owner, name=name, number=original.pr.number, host=original.pr.host)
    reason = _printable(why) or "no reason given"
    worker, kind = _printable(original.worker, _WORKER_MAX), _printable(original.kind, _KIND_MAX)
    repo, url = _printable(original.pr.repo, _REPO_MAX), _printable(original.pr.url, _URL_MAX)
    header = (
        f"comment-wake hand-off: worker {worker} cannot take a {kind} notice "
        f"for {repo}#{original.pr.number} ({url}): {reason}. "
        "The notice follows as it was written for the worker; please route it."
    )
    # Every builder leaves this much free, so the hand-off never cuts the notice it carries.
    assert len(header) + 2 <= HANDOFF_HEADER_MAX
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
        part=original.part,
        parts=original.parts,
    )
