"""One pull request bound under two spellings: a store an earlier build left that way.

GitHub's owner and repository names are case-insensitive, and the store compares them so
(``review_monitor.store``'s watches and marks fold ASCII case).  A build before that
accepted ``bind w1 octo/repo#1`` and ``bind w2 Octo/Repo#1``: two live workers of one
PR.  Which one keeps it is the operator's choice, so such a store refuses to open until
one is unbound or archived (those commands, and ``list``, open it regardless).
"""

from __future__ import annotations

from review_monitor import WATCH_TOOL, PrRef, StoreError
from review_monitor.store import SyncStore

__all__ = ["TwoSpellingsError", "refuse_two_spellings", "two_spellings"]


class TwoSpellingsError(StoreError):
    """The store binds one pull request to two live workers under two spellings."""


def two_spellings(db: SyncStore) -> tuple[tuple[str, PrRef, str, PrRef], ...]:
    """Each ``(first worker, its PR, later worker, its PR)`` whose watches name one PR in
    two letter cases, the later one bound after the first; sorted by PR."""
    with db.read() as tx:
        rows = tx.execute(
            "SELECT a.thread_id, a.host, a.owner, a.name, a.number, b.thread_id, b.host, "
            "b.owner, b.name FROM watches a JOIN watches b ON b.pr_key = a.pr_key "
            "AND b.tool = a.tool AND (a.added_at < b.added_at "
            "OR (a.added_at = b.added_at AND a.thread_id < b.thread_id)) "
            "WHERE a.tool = ? AND (a.owner != b.owner OR a.name != b.name)",
            (WATCH_TOOL,),
        ).fetchall()
    out = [
        (
            str(r[0]),
            PrRef(host=r[1], owner=r[2], name=r[3], number=r[4]),
            str(r[5]),
            PrRef(host=r[6], owner=r[7], name=r[8], number=r[4]),
        )
        for r in rows
    ]
    return tuple(sorted(out, key=lambda c: (c[1], c[0], c[2])))


def refuse_two_spellings(db: SyncStore) -> None:
    """Raise ``TwoSpellingsError`` (one line naming both bindings and the command that
    fixes it) when ``two_spellings`` finds any."""
    found = two_spellings(db)
    if not found:
        return
    first, pr, later, other = found[0]
    more = f" (and {len(found) - 1} more such pairs)" if len(found) > 1 else ""
    raise TwoSpellingsError(
        f"the state store binds one pull request under two spellings: worker {first} to "
        f"{pr} and worker {later} to {other}{more}; GitHub's names are case-insensitive, so "
        f"keep one: run `comment-wake unbind {later}` (or `comment-wake archive {later}`)"
    )
