"""Acknowledgement on GitHub: a reaction on each comment a delivered comment wake carried.

The reactions a delivery owes are written by the store in the transaction that marks the
notice delivered (``mark_delivered(..., also=owing(...))``); ``Acknowledger`` sends them
later, several per ``addReaction`` request, and retries failures on their own backoff.  A
reaction never holds an outbox entry, and a retried one cannot repeat a wake: GitHub keeps
one reaction per person and content, so sending it twice is harmless.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Final

from anyio.to_thread import run_sync

from comment_wake.store import (
    ContentLimits,
    ReactionEntry,
    due_reactions,
    next_reaction_at,
    settle_reactions,
    spend_content,
)
from review_monitor import Clock, GitHubError, Notice, RateLimitedError
from review_monitor.github import GitHubApi, add_reactions
from review_monitor.store import Store, SyncStore

from ._backoff import Backoff

__all__ = [
    "ACKED_KIND",
    "ACK_ITEM_KINDS",
    "AckPass",
    "Acknowledger",
    "ack_subjects",
    "reaction_content",
]

_log = logging.getLogger("comment_wake.delivery.ack")

# The notice kind that is acknowledged, and the items in it that are a person's words.
ACKED_KIND: Final = "comment-wake"
"""The notice kind whose comments are acknowledged and tracked once delivered."""
ACK_ITEM_KINDS: Final = frozenset({"comment", "review", "review-comment"})
"""The notice item kinds that get a pick-up reaction once the worker has the notice."""

_CONTENTS: Final = {
    "+1": "THUMBS_UP",
    "-1": "THUMBS_DOWN",
    "thumbs_up": "THUMBS_UP",
    "thumbs_down": "THUMBS_DOWN",
    "laugh": "LAUGH",
    "confused": "CONFUSED",
    "heart": "HEART",
    "hooray": "HOORAY",
    "rocket": "ROCKET",
    "eyes": "EYES",
}


def reaction_content(name: str) -> str | None:
    """A configured reaction (``eyes``, ``+1``, ``ROCKET``...) as GitHub's ``ReactionContent``;
    None for the empty string (acknowledgement off).  Raise ``ValueError`` for anything else."""
    text = name.strip()
    if not text:
        return None
    found = _CONTENTS.get(text.lower())
    if found is None:
        raise ValueError(
            f"not a GitHub reaction: {name!r}; use one of {', '.join(sorted(_CONTENTS))} "
            'or "" to turn acknowledgements off'
        )
    return found


def ack_subjects(notice: Notice) -> tuple[str, ...]:
    """The node ids a delivered ``notice`` acknowledges: the comments, reviews and review
    comments of a comment wake; nothing for any other kind (a hand-off included)."""
    if notice.kind != ACKED_KIND:
        return ()
    return tuple(dict.fromkeys(i.id for i in notice.items if i.kind in ACK_ITEM_KINDS))


@dataclass(frozen=True)
class AckPass:
    """What one pass did: reactions confirmed, to be retried, and given up."""

    done: int = 0
    retried: int = 0
    given_up: int = 0


class Acknowledger:
    """Sends the reactions the store owes, through ``api``, on ``backoff``.

    A reaction GitHub did not confirm (a deleted comment, a fault, a rate limit) is retried
    with backoff up to ``max_attempts`` attempts, then given up (status ``failed``, logged).
    """

    def __init__(
        self,
        store: Store,
        api: GitHubApi,
        *,
        clock: Clock,
        backoff: Backoff,
        rng: random.Random,
        max_attempts: int = 8,
        batch: int = 90,
        content: ContentLimits | None = None,
        recipients: Callable[[], Collection[str]] | None = None,
    ) -> None:
        if max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")
        self._store = store
        self._api = api
        self._clock = clock
        self._backoff = backoff
        self._rng = rng
        self._max_attempts = max_attempts
        self._batch = batch
        self._content = content
        # Fleet mode: the workers bound on this host, whose deliveries' reactions it owes.
        self._recipients = recipients

    @property
    def host(self) -> str:
        return self._api.host

    async def _workers(self) -> Collection[str] | None:
        return None if self._recipients is None else await run_sync(self._recipients)

    def next_due(self, db: SyncStore, workers: Collection[str] | None) -> datetime | None:
        return next_reaction_at(db, workers=workers)

    async def run_once(self) -> AckPass:
        """Send every reaction due now (one request per content and 30 subjects)."""
        now = self._clock.now()
        due = await self._store.call(
            due_reactions, now, limit=self._batch, workers=await self._workers()
        )
        total = AckPass()
        by_content: dict[str, list[ReactionEntry]] = {}
        for row in due:
            by_content.setdefault(row.content, []).append(row)
        for content, rows in by_content.items():
            step = await self._send(content, rows)
            total = AckPass(
                total.done + step.done, total.retried + step.retried, total.given_up + step.given_up
            )
        return total

    async def _send(self, content: str, rows: Sequence[ReactionEntry]) -> AckPass:
        ours = [r for r in rows if r.host == self._api.host]
        foreign = [r.subject_id for r in rows if r.host != self._api.host]
        if foreign:
            # Owed on a host this client does not reach: nothing will ever change that.
            await self._store.call(
                settle_reactions,
                content,
                failed=foreign,
                at=self._clock.now(),
                detail="no client for its host",
            )
        if not ours:
            return AckPass(given_up=len(foreign))
        ids = [r.subject_id for r in ours]
        if self._content is not None:
            # One request is one token of the identity's content bucket, which the posts
            # the worker tools make share: wait for it without spending an attempt.  A
            # reaction is shed first: it leaves the bucket's reserve to the posts.
            now = self._clock.now()
            wait = await self._store.call(
                spend_content, self.host.casefold(), self._content, now, reaction=True
            )
            if wait is not None:
                await self._store.call(
                    settle_reactions,
                    content,
                    failed=ids,
                    at=now,
                    detail="content limit",
                    retry_at=wait,
                    count=False,
                )
                return AckPass(retried=len(ids), given_up=len(foreign))
        retry_after: datetime | None = None
        detail = "GitHub did not confirm the reaction"
        try:
            confirmed = await add_reactions(self._api, ids, content)
        except RateLimitedError as exc:
            confirmed = {}
            retry_after = exc.retry_at
            detail = "rate limited"
        except GitHubError as exc:
            confirmed = {}
            detail = type(exc).__name__
        now = self._clock.now()
        done = [s for s in ids if confirmed.get(s)]
        failed = [r for r in ours if not confirmed.get(r.subject_id)]
        if done:
            await self._store.call(settle_reactions, content, done=done, at=now)
        retried = given_up = 0
        # Rows with the same attempt count share one retry time; a rate limit's reset
        # time, when GitHub named one, comes first.
        by_attempts: dict[int, list[str]] = {}
        for r in failed:
            by_attempts.setdefault(r.attempts + 1, []).append(r.subject_id)
        for attempts, subjects in sorted(by_attempts.items()):
            if attempts >= self._max_attempts:
                given_up += len(subjects)
                _log.warning(
                    "giving up %d %s reaction(s) after %d attempts: %s",
                    len(subjects),
                    content,
                    attempts,
                    detail,
                )
                await self._store.call(
                    settle_reactions, content, failed=subjects, at=now, detail=detail
                )
                continue
            retried += len(subjects)
            retry_at = now + self._backoff.delay(attempts, self._rng)
            if retry_after is not None:
                retry_at = max(retry_at, retry_after)
            await self._store.call(
                settle_reactions, content, failed=subjects, at=now, detail=detail, retry_at=retry_at
            )
        return AckPass(done=len(done), retried=retried, given_up=given_up + len(foreign))
