"""Merging a later notice into a busy head of a worker's queue (pure).

While a worker is busy its first notice stays first; a later notice for the same pull
request is folded into it instead of queuing behind it, so the worker gets one notice
with everything when it frees up.
"""

from __future__ import annotations

from comment_wake._limits import NOTICE_BUILD_LIMIT
from review_monitor import Notice, NoticeItem, PrRef, fold, notice_key

from ._handoff import HANDOFF_KIND, WORKER_KINDS

__all__ = ["can_merge", "merge_notices"]

# A comment wake is the kind that gets acknowledged on GitHub, so a mix that holds one
# stays a comment wake; any other mix keeps the head's kind.
_LEADING_KIND = "comment-wake"
_NEVER_MERGED = frozenset({HANDOFF_KIND, *WORKER_KINDS})


def _same_pr(a: Notice, b: Notice) -> bool:
    # GitHub's names are case-insensitive: a notice queued before the first poll spelled
    # the repository as it was bound, later ones as GitHub spells it.
    return (fold(a.pr.host), fold(a.pr.repo), a.pr.number) == (
        fold(b.pr.host),
        fold(b.pr.repo),
        b.pr.number,
    )


def can_merge(head: Notice, later: Notice) -> bool:
    """Same worker, same pull request, neither is addressed to the orchestrator (a hand-off, a
    worker's message or report), and the merged text still fits ``NOTICE_BUILD_LIMIT``
    (what a hook can hand over whole, with room for a hand-off's header)."""
    return (
        head.worker == later.worker
        and _same_pr(head, later)
        and head.kind not in _NEVER_MERGED
        and later.kind not in _NEVER_MERGED
        and len(head.text.rstrip()) + 2 + len(later.text) <= NOTICE_BUILD_LIMIT
    )


def merge_notices(head: Notice, later: Notice) -> Notice:
    """The head with ``later`` folded in: items united in order, both texts, a new key.

    Raises ``ValueError`` when ``can_merge`` is false.  A later notice that adds no item and
    no kind (a repeat of something already folded in) returns the head unchanged.
    """
    if not can_merge(head, later):
        raise ValueError("only notices for the same worker and pull request merge")
    seen = {item.id for item in head.items}
    added: list[NoticeItem] = []
    for item in later.items:
        if item.id not in seen:
            seen.add(item.id)
            added.append(item)
    if head.kind == later.kind:
        kind = head.kind
    elif _LEADING_KIND in (head.kind, later.kind):
        kind = _LEADING_KIND
    else:
        kind = head.kind
    if not added and kind == head.kind:
        return head
    items = (*head.items, *added)
    text = f"{head.text.rstrip()}\n\n{later.text}"
    owner, _, name = head.pr.repo.partition("/")
    ref = PrRef(owner=owner, name=name, number=head.pr.number, host=head.pr.host)
    key = notice_key(head.worker, ref, kind, (item.id for item in items))
    return Notice(
        version=max(head.version, later.version),
        kind=kind,
        key=key,
        worker=head.worker,
        pr=head.pr,
        items=items,
        text=text,
        created_at=head.created_at,
        # Each text keeps its own first line, part label included; the struct keeps the head's.
        part=head.part,
        parts=head.parts,
    )
