"""The post sender: posts what the worker tools asked for, with the daemon's token.

The tools write rows only (``comment_wake.store``'s outbox of posts); this sends them,
records the ids GitHub gave in the transaction that saw the answer, and tells the worker
when GitHub refused one (a ``post-failed`` notice, in the same transaction as the
failure).  Every post and every edit takes a token of the identity's ``content`` bucket
first.  A body holding the daemon's token or a withheld environment value is never sent.
What to do with each due post is ``plan_post``'s (pure); this is the I/O around it.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Awaitable, Callable, Collection
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Final, Protocol

from anyio.to_thread import run_sync

from comment_wake._post_marker import marker
from comment_wake.store import (
    ContentLimits,
    Post,
    due_posts,
    fail_post,
    next_post_at,
    record_posted,
    requeue_post,
    schedule_post,
    sending_post,
    spend_content,
    wrote_progress,
)
from review_monitor import (
    NOTICE_VERSION,
    Clock,
    GitHubError,
    Notice,
    NoticePr,
    RateLimitedError,
    notice_key,
)
from review_monitor.github import (
    Listed,
    Posted,
    PostRefused,
    PostsApi,
    PostUncertain,
    PostUnexpected,
    create_issue_comment,
    create_review,
    get_review,
    list_issue_comments,
    list_review_comments,
    list_reviews,
    pull_head,
    reply_to_review_comment,
    update_issue_comment,
)
from review_monitor.store import Store, SyncStore, enqueue_notices

from ._backoff import Backoff
from ._post_plan import Edit, Search, Wait, plan_post, recheck_at

__all__ = ["POST_FAILED_KIND", "PostPass", "PostSender", "SenderApi", "post_failed_notice"]

_log = logging.getLogger("comment_wake.delivery.posts")

POST_FAILED_KIND: Final = "post-failed"
"""The kind of the notice a worker gets when GitHub refused a post its tools asked for."""

# Why a post failed, in words for the worker (no body, no GitHub text).
_WHY: Final = {
    "not-in-diff": "a line comment is not on a line of the pull request's diff (HTTP 422); "
    "comment only on lines the diff shows",
    "locked": "the conversation is locked; only people with write access to the repository "
    "can comment",
    "too-long": "a body is longer than GitHub's 65,536 characters; post less",
    "not-found": "the pull request or the comment it answers is gone",
    "head-moved": "the pull request's head is no longer the commit the review names; check "
    "out the new head and review again",
    "forbidden": "GitHub refused the token (HTTP 403)",
    "invalid": "GitHub refused it as invalid (HTTP 422)",
    "not-commented": "GitHub made the review in a state other than COMMENTED; look at the "
    "pull request, and delete the review if it carries a verdict",
    "secret": "its text holds the daemon's token or a withheld environment value; it was "
    "never sent",
    "deleted-twice": "a person deleted the progress comment again; it is not posted a third time",
    "attempts": "GitHub did not take it after every attempt",
    "pending-review": "the account has a review of its own pending on this pull request (a "
    "draft started in the browser); GitHub takes no other review until it is submitted or "
    "discarded",
    "other-host": "the daemon's token is for another GitHub host",
}
# A search this far before the intent still counts: GitHub's clock may run behind ours.
_CLOCK_SKEW: Final = timedelta(seconds=30)
_SECRET_MIN: Final = 8  # shorter environment values match too much to mean anything


class SenderApi(PostsApi, Protocol):
    """The client the sender posts with (``GitHubClient``)."""

    @property
    def host(self) -> str: ...


@dataclass(frozen=True, slots=True)
class PostPass:
    """What one pass did: posts (and edits) made, found again after a lost answer,
    failed for good, and put off (a limit, a fault, a search to repeat)."""

    posted: int = 0
    found: int = 0
    failed: int = 0
    deferred: int = 0

    @property
    def done(self) -> int:
        """Posts now on GitHub and recorded."""
        return self.posted + self.found


def post_failed_notice(post: Post, failure: str, at: datetime) -> Notice:
    """The notice telling ``post``'s worker that GitHub will not have it, and why."""
    pr = post.pr
    why = _WHY.get(failure, failure)
    # Every failure but one means GitHub has nothing of the post.
    after = "" if failure == "not-commented" else " Nothing of it is on GitHub."
    text = (
        f"comment-wake: your `{post.tool}` (key {post.key}) on {pr.repo}#{pr.number} failed: "
        f"{why}.{after} Call the tool again if it should still be posted."
    )
    return Notice(
        version=NOTICE_VERSION,
        kind=POST_FAILED_KIND,
        key=notice_key(post.worker, pr, POST_FAILED_KIND, [post.key, failure]),
        worker=post.worker,
        pr=NoticePr(
            host=pr.host,
            repo=pr.repo,
            number=pr.number,
            url=f"https://{pr.host}/{pr.repo}/pull/{pr.number}",
            title="",
        ),
        items=(),
        text=text,
        created_at=at,
    )


class PostSender:
    """Sends the due posts of ``store`` through ``api`` as the token's login.

    ``viewer()`` gives that login (None while unknown: a search waits).  ``secrets()``
    gives the values no body may hold (the token, withheld environment values), asked at
    each send (a token may rotate).
    """

    def __init__(
        self,
        store: Store,
        api: SenderApi,
        *,
        clock: Clock,
        viewer: Callable[[], Awaitable[str | None]],
        secrets: Callable[[], Collection[str]],
        grace: timedelta,
        progress_gap: timedelta,
        content: ContentLimits,
        backoff: Backoff,
        rng: random.Random,
        max_attempts: int = 8,
        recipients: Callable[[], Collection[str]] | None = None,
    ) -> None:
        self._store = store
        self._api = api
        # Fleet mode: the workers bound on this host, whose posts it sends.
        self._recipients = recipients
        self._clock = clock
        self._viewer = viewer
        self._secrets = secrets
        self._grace = grace
        self._gap = progress_gap
        self._content = content
        self._backoff = backoff
        self._rng = rng
        self._max_attempts = max_attempts

    async def _workers(self) -> Collection[str] | None:
        return None if self._recipients is None else await run_sync(self._recipients)

    def next_due(self, db: SyncStore, workers: Collection[str] | None) -> datetime | None:
        return next_post_at(db, workers=workers)

    async def run_once(self) -> PostPass:
        """Act on every post due now, oldest first."""
        counts = dict.fromkeys(PostPass.__dataclass_fields__, 0)
        due = await self._store.call(due_posts, self._clock.now(), workers=await self._workers())
        for post in due:
            counts[await self._one(post)] += 1
        return PostPass(**counts)

    # -- one post ------------------------------------------------------------------

    async def _one(self, post: Post) -> str:
        now = self._clock.now()
        action = plan_post(post, now, grace=self._grace)
        if isinstance(action, Wait):
            await self._write(schedule_post, post.key, action.until)
            return "deferred"
        if isinstance(action, Search):
            return await self._search(post, final=action.final)
        body = action.body if isinstance(action, Edit) else post.body
        if any(len(secret) >= _SECRET_MIN and secret in body for secret in self._secrets()):
            return await self._fail(post, "secret")
        if post.pr.host.casefold() != self._api.host.casefold():
            return await self._fail(post, "other-host")
        retry_at = await self._store.call(spend_content, self._identity(), self._content, now)
        if retry_at is not None:
            await self._write(schedule_post, post.key, retry_at)
            return "deferred"
        if isinstance(action, Edit):
            return await self._edit(post, body)
        return await self._create(post)

    async def _create(self, post: Post) -> str:
        target = post.target
        try:
            # The head may have moved since the tool checked: a review names a commit.
            if post.tool == "review" and await pull_head(self._api, post.pr) != target.commit:
                return await self._fail(post, "head-moved")
            await self._write(sending_post, post.key, post.body)
            posted = await self._send_new(post)
        except PostRefused as exc:
            return await self._fail(post, exc.kind)
        except PostUnexpected:
            return await self._fail(post, "not-commented")
        except PostUncertain:
            # It may be on GitHub: the next pass looks for it before anything is sent.
            await self._write(schedule_post, post.key, self._clock.now())
            return "deferred"
        except GitHubError as exc:
            # GitHub surely does not have it (a rate limit, a fault before sending).
            return await self._retry(post, exc)
        await self._recorded(post, posted)
        return "posted"

    async def _send_new(self, post: Post) -> Posted:
        target, pr, body = post.target, post.pr, post.body
        if post.tool == "review":
            return await create_review(
                self._api, pr, commit_id=target.commit, body=body, comments=target.lines
            )
        if post.tool == "reply" and target.in_thread:
            assert target.comment_database_id is not None
            return await reply_to_review_comment(self._api, pr, target.comment_database_id, body)
        return await create_issue_comment(self._api, pr, body)

    async def _edit(self, post: Post, body: str) -> str:
        assert post.database_id is not None
        await self._write(sending_post, post.key, body)
        try:
            await update_issue_comment(self._api, post.pr, post.database_id, body)
        except PostRefused as exc:
            if exc.kind != "not-found":
                return await self._fail(post, exc.kind)
            if post.recreated:
                return await self._fail(post, "deleted-twice")
            # A person deleted the progress comment: it is made again, once.
            await self._write(requeue_post, post.key, recreate=True)
            return "deferred"
        except GitHubError as exc:
            return await self._retry(post, exc, edit=True)
        await self._write(wrote_progress, post.key, next_at=self._clock.now() + self._gap)
        return "posted"

    async def _search(self, post: Post, *, final: bool) -> str:
        viewer = await self._viewer()
        now = self._clock.now()
        if viewer is None:
            await self._write(schedule_post, post.key, now + self._backoff.delay(1, self._rng))
            return "deferred"
        assert post.sent_at is not None
        try:
            # Since the send it looks for (an earlier send was looked for before this one
            # went), by the daemon's clock, less GitHub's possible skew.
            found = await self._find(post, viewer, since=post.sent_at - _CLOCK_SKEW)
        except GitHubError:
            await self._write(schedule_post, post.key, now + self._backoff.delay(1, self._rng))
            return "deferred"
        if found is not None:
            await self._recorded(post, found)
            _log.info("post %s was on GitHub already (its answer was lost)", post.key)
            return "found"
        if final:
            await self._write(requeue_post, post.key)
        else:
            last = recheck_at(post.sent_at, self._grace)
            await self._write(schedule_post, post.key, last, searched=True)
        return "deferred"

    async def _find(self, post: Post, viewer: str, *, since: datetime) -> Posted | None:
        """The post by its key among ``viewer``'s items created since ``since``: never an
        item by another author, whatever its body holds."""
        pr, tag = post.pr, marker(post.key)
        if post.tool == "review":
            listed = await list_reviews(self._api, pr)
            anchor = "pullrequestreview-"
        elif post.tool == "reply" and post.target.in_thread:
            listed = await list_review_comments(self._api, pr, since)
            anchor = "discussion_r"
        else:
            listed = await list_issue_comments(self._api, pr, since)
            anchor = "issuecomment-"
        for item in listed:
            if _by(item, viewer) and item.created_at >= since and tag in item.body:
                return Posted(
                    database_id=item.database_id,
                    node_id=item.node_id,
                    html_url=f"https://{pr.host}/{pr.repo}/pull/{pr.number}#{anchor}{item.database_id}",
                    created_at=item.created_at,
                    review_database_id=item.review_database_id,
                )
        return None

    # -- outcomes ------------------------------------------------------------------

    async def _recorded(self, post: Post, posted: Posted) -> None:
        review_node_id = None
        if posted.review_database_id is not None and post.tool == "reply":
            # The review GitHub made to hold a reply in a thread is listed by the badge
            # under its own node id; its database id is recorded too, so a failed read here
            # loses nothing.
            try:
                made = await get_review(self._api, post.pr, posted.review_database_id)
            except GitHubError:
                pass
            else:
                review_node_id = made.node_id
        now = self._clock.now()
        next_at = now + self._gap if post.tool == "progress" else now
        await self._write(
            record_posted, post.key, posted, next_at=next_at, review_node_id=review_node_id
        )

    async def _fail(self, post: Post, failure: str) -> str:
        now = self._clock.now()
        notice = post_failed_notice(post, failure, now)

        def write(db: SyncStore) -> None:
            with db.write(at=now) as tx:
                fail_post(tx, post.key, failure)
                enqueue_notices(tx, [notice])

        await self._store.call(write)
        _log.warning("post %s of worker %s failed: %s", post.key, post.worker, failure)
        return "failed"

    async def _retry(self, post: Post, exc: GitHubError, *, edit: bool = False) -> str:
        attempts = post.attempts + 1
        if attempts >= self._max_attempts:
            return await self._fail(post, "attempts")
        now = self._clock.now()
        retry_at = now + self._backoff.delay(attempts, self._rng)
        if isinstance(exc, RateLimitedError) and exc.retry_at is not None:
            retry_at = max(retry_at, exc.retry_at)

        def write(db: SyncStore) -> None:
            with db.write(at=now) as tx:
                if not edit:
                    requeue_post(tx, post.key)
                schedule_post(tx, post.key, retry_at)

        await self._store.call(write)
        _log.info("post %s put off until %s: %s", post.key, retry_at, type(exc).__name__)
        return "deferred"

    async def _write(
        self, fn: Callable[..., None], key: str, *args: object, **kwargs: object
    ) -> None:
        now = self._clock.now()

        def write(db: SyncStore) -> None:
            with db.write(at=now) as tx:
                fn(tx, key, *args, **kwargs)

        await self._store.call(write)

    def _identity(self) -> str:
        return self._api.host.casefold()


def _by(item: Listed, viewer: str) -> bool:
    return item.author is not None and item.author.casefold() == viewer.casefold()
