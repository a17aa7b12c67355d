"""The monitor's own notices: review verdicts, bot reviews, merges and closes, failing checks.

``MonitorNotices`` is a listener on the observation stream, with its own timers for the
verdicts whose permission lookup waits on a retry (``run``: a PR the sweep proves quiet
gets no observation, so the retry is looked at with the PR's latest observation when it
falls due).  Per PR it keeps a versioned msgspec mark in the store
and enqueues its notices through the outbox in the same transaction (``SyncStore.commit``),
so each notice is enqueued exactly once, across restarts too.  The first look at a PR
takes what was there before its watch began (the earliest of its watches, less
``WATCH_CLOCK_SKEW``: ``history_until``) as history: recorded, never announced; a review
submitted after that is new, as at any later look.  Failing checks and a merge or close
found at the first look are state, not events, and are history too.  A PR whose watches
carry no start time (a caller that registers none) takes everything at the first look as
history.  The mark remembers the watch start it was written under; a PR watched again
later (its earliest watch gone, or a new one) starts again from the new start, keeping
what it handled.  Later looks work out the reviews with ``reviews_step``, pure, on the
seen set the comment wake shares (``_seen``): it returns the new mark and the permission
lookups it still needs, which the listener does between steps.

* An approval or change request by a person with a trusted permission: one notice per
  review, its body fenced.  A verdict by anyone else gets one log line with neither
  author nor text (on a public repository anyone can submit one).
* A bot's review (any state but dismissed): its own notice kind, never the person path,
  never a permission lookup.
* Merged or closed: once.
* A failing check on the current head: once per head commit and check, its output
  fenced.  Checks are read only when the rollup says failure or error and the rollup or
  the head changed since the last read, so a quiet poll costs nothing.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Protocol

import anyio
import msgspec

import untrusted_fence

from ._clock import Clock, SystemClock
from ._listener import Watch
from ._model import (
    Author,
    BadgeItem,
    CheckFailure,
    ItemDetail,
    LookupFailed,
    PermissionAnswer,
    PrRef,
    PrStatus,
)
from ._notice import NOTICE_VERSION, Notice, NoticeItem, NoticePr, notice_key
from ._observations import Observation, ObservationSource, Observed, RoundDone
from ._seen import Seen, history_until, retry_delay, settle_seen, unseen
from ._store._faults import describe_fault
from ._store._marks import load_mark
from ._store._watches import watch_start
from ._wait import sleep_until_or
from .store import Mark, Store, SyncStore

__all__ = [
    "MARK_VERSION",
    "CheckReader",
    "DetailReader",
    "MonitorNotices",
    "NoticesMark",
    "PermissionChecker",
    "ReviewsStep",
    "is_bot",
    "reviews_step",
]

_log = logging.getLogger("review_monitor.notices")

MARK_VERSION = 1
_VERDICTS = {"APPROVED": "Approved", "CHANGES_REQUESTED": "Changes requested"}
_FAILING = frozenset({"FAILURE", "ERROR"})
_KEEP_REVIEWS = 64


class PermissionChecker(Protocol):
    """The permissions component (cache and retry schedule around the collaborator call)."""

    async def lookup(
        self, repo: str, login: str, now: datetime
    ) -> PermissionAnswer | LookupFailed: ...


DetailReader = Callable[[Sequence[str]], Awaitable[Mapping[str, ItemDetail]]]
"""Reads bodies by node id (``functools.partial(read_details, api)``)."""

CheckReader = Callable[[PrRef], Awaitable[tuple[CheckFailure, ...]]]
"""Reads the failing checks of a PR's head commit (``partial(read_failing_checks, api)``)."""


def _bot_name(login: str) -> str:
    login = login.casefold()
    return login.removesuffix("[bot]")


def is_bot(author: Author | None, review_bots: Iterable[str] = ()) -> bool:
    """A bot: ``__typename`` Bot, a ``[bot]`` login, or a configured review bot (logins
    compared case-insensitively, without any ``[bot]`` suffix).  A deleted account
    (None) is not a bot."""
    if author is None:
        return False
    if author.type == "Bot" or author.login.casefold().endswith("[bot]"):
        return True
    return _bot_name(author.login) in {_bot_name(b) for b in review_bots}


class _Waiting(msgspec.Struct, frozen=True, array_like=True):
    """A verdict whose author's permission lookup failed: retried at ``retry_at``."""

    id: str
    at: datetime
    login: str
    state: str
    database_id: int | None
    failures: int
    retry_at: datetime


class NoticesMark(msgspec.Struct, frozen=True, kw_only=True):
    """What the monitor's notices have handled on one PR (version ``MARK_VERSION``)."""

    reviews_floor: datetime | None = None  # reviews at or before it are old
    reviews: tuple[Seen, ...] = ()  # handled reviews above the floor, oldest first
    waiting: tuple[_Waiting, ...] = ()
    ended: str | None = None  # "merged" or "closed" once announced (or seen at baseline)
    checks_head: str | None = None
    checks_state: str | None = None  # the rollup state when checks were last considered
    checks: tuple[str, ...] = ()  # failing check ids handled on ``checks_head``
    # The start of the earliest watch this mark was written under, as an identity: a mark
    # of an earlier watch starts again from the new one's start.  None: an older mark, or
    # watches with no start time, taken as the same watch.
    watched_since: datetime | None = None


_MARK_DECODER = msgspec.msgpack.Decoder(NoticesMark)


_CUT_NOTE = "Cut to fit this notice: read the whole text at the link above."
_MIN_CUT = 200


def _quoted(
    first: str, text: str, url: str, *, kind: untrusted_fence.Kind, source: str, limit: int | None
) -> str:
    """``first``, ``text`` fenced, then ``url``, as one notice text of at most ``limit``
    characters: the fenced text is cut to fit (rendered once, cut again as needed), and a
    note after the URL says where to read the whole."""
    parts = [first]
    if not text.strip():
        return "\n\n".join([*parts, url])
    # Looked up at call time, so a test may stand in for the fence.
    view = untrusted_fence.render(text)
    max_chars = untrusted_fence.DEFAULT_MAX_CHARS
    while True:
        fenced = untrusted_fence.fence(view, kind=kind, source=source, max_chars=max_chars)
        note = [_CUT_NOTE] if fenced.truncated else []
        joined = "\n\n".join([*parts, fenced.text, url, *note])
        over = 0 if limit is None else len(joined) - limit
        if over <= 0 or max_chars <= _MIN_CUT:
            return joined
        max_chars = max(_MIN_CUT, max_chars - over - len(_CUT_NOTE) - 2)


class _Draft(msgspec.Struct, frozen=True):
    """A notice for every watcher: kind, items and text, before it is addressed."""

    kind: str
    items: tuple[NoticeItem, ...]
    text: str


class MonitorNotices:
    """The monitor's notices as a listener (see the module docstring)."""

    name = "monitor-notices"

    def __init__(
        self,
        *,
        store: Store,
        permissions: PermissionChecker,
        read_details: DetailReader,
        read_checks: CheckReader,
        review_bots: Sequence[str] = (),
        permission_retries: Sequence[timedelta] = (
            timedelta(minutes=1),
            timedelta(minutes=2),
            timedelta(minutes=4),
        ),
        logger: logging.Logger | None = None,
        text_limit: int | None = None,
        observations: ObservationSource | None = None,
        clock: Clock | None = None,
    ) -> None:
        self._store = store
        self._observations = observations
        self._clock: Clock = clock or SystemClock()
        self._due: dict[PrRef, datetime] = {}
        self._failed: set[PrRef] = set()  # timed looks that failed: again at a round's end
        self._changed = anyio.Event()
        self._text_limit = text_limit
        self._permissions = permissions
        self._read_details = read_details
        self._read_checks = read_checks
        self._review_bots = tuple(review_bots)
        self._retries = tuple(permission_retries)
        self._log = logger or _log

    async def observe(self, item: Observed, now: datetime) -> None:
        if isinstance(item, Observation):
            await self.look(item.watches, item.badge, now, checks=item.failing_checks)
        elif isinstance(item, RoundDone) and self._failed:
            for pr in self._failed:
                self._due[pr] = min(now, self._due.get(pr, now))
            self._failed.clear()
            self._changed.set()

    def next_due(self, pr: PrRef) -> datetime | None:
        """When a waiting verdict of ``pr`` is looked at again (None: nothing waits)."""
        return self._due.get(pr)

    async def run(self) -> None:
        """Serve the timers until cancelled: a PR whose waiting verdict falls due is looked
        at again with its latest observation (a quiet PR gets none from the poller)."""
        while True:
            self._changed = anyio.Event()
            now = self._clock.now()
            due = sorted(pr for pr, t in self._due.items() if t <= now)
            for pr in due:
                del self._due[pr]
                latest = None if self._observations is None else self._observations.latest(pr)
                if latest is None:
                    continue  # no longer polled: its next observation looks again
                try:
                    await self.look(latest.watches, latest.badge, now)
                except Exception as exc:
                    self._failed.add(pr)  # its mark did not move: again at the round's end
                    self._log.error("a timed look at %s failed: %s", pr, describe_fault(exc))
            if not due:
                await sleep_until_or(
                    self._clock, min(self._due.values(), default=None), self._changed
                )

    def _schedule(self, pr: PrRef, mark: NoticesMark) -> None:
        due = min((w.retry_at for w in mark.waiting), default=None)
        if due is None:
            self._due.pop(pr, None)
        elif self._due.get(pr) != due:
            self._due[pr] = due
            self._changed.set()

    async def look(
        self,
        watches: Sequence[Watch],
        new: PrStatus,
        now: datetime,
        *,
        checks: tuple[CheckFailure, ...] | None = None,
    ) -> None:
        """Decide what ``new`` holds for ``watches`` (every watch of its PR) and commit the
        mark with the notices it queues.  ``checks``: the failing checks on ``new``'s head
        when the poller read them with it (None: read here if needed)."""
        reader = self._read_checks
        if checks is not None:
            known = checks

            async def reader(pr: PrRef) -> tuple[CheckFailure, ...]:
                del pr
                return known

        threads = tuple(w.thread_id for w in watches)
        stored, since = await self._store.call(_load, new.pr, self.name, threads)
        drafts: list[_Draft] = []
        if stored is None or stored.version != MARK_VERSION:
            # No mark, or one this build cannot read: a first look, which announces only
            # the reviews submitted since the watch began.
            mark = await self._baseline(new, since, reader)
            if mark.reviews_floor is not None:
                mark, drafts = await self._reviews(mark, new, now)
        else:
            mark = _MARK_DECODER.decode(stored.blob)
            if since is not None and mark.watched_since not in (None, since):
                mark = _watched_again(mark, since)
            mark, drafts = await self._changes(mark, new, now, reader)
            if since is not None and mark.watched_since is None:
                mark = msgspec.structs.replace(mark, watched_since=since)
            if stored.blob == msgspec.msgpack.encode(mark) and not drafts:
                self._schedule(new.pr, mark)
                return
        notices = [self._address(d, w, new, now) for d in drafts for w in watches]
        await self._store.call(
            SyncStore.commit,
            new.pr,
            self.name,
            mark=(MARK_VERSION, msgspec.msgpack.encode(mark)),
            notices=notices,
            at=now,
        )
        self._schedule(new.pr, mark)

    # -- the first look -------------------------------------------------------------

    async def _baseline(
        self, new: PrStatus, since: datetime | None, read_checks: CheckReader
    ) -> NoticesMark:
        """The mark of a first look: failing checks and the PR's end recorded; reviews up
        to ``history_until(since)`` are old (the floor), or all listed ones when no watch
        start is known."""
        checks: tuple[str, ...] = ()
        if new.is_open and new.check_state in _FAILING:
            checks = tuple(f.id for f in await read_checks(new.pr))
        cutoff = history_until(since)
        reviews: tuple[Seen, ...] = ()
        if cutoff is None:
            reviews = settle_seen(None, (), [_seen(r) for r in new.reviews], (), _KEEP_REVIEWS)[1]
        return NoticesMark(
            reviews_floor=cutoff,
            reviews=reviews,
            ended=None if new.is_open else _ending(new),
            checks_head=new.head_ref_oid,
            checks_state=new.check_state,
            checks=checks,
            watched_since=since,
        )

    # -- a later look ---------------------------------------------------------------

    async def _changes(
        self, mark: NoticesMark, new: PrStatus, now: datetime, read_checks: CheckReader
    ) -> tuple[NoticesMark, list[_Draft]]:
        drafts: list[_Draft] = []
        mark, review_drafts = await self._reviews(mark, new, now)
        drafts += review_drafts
        if new.is_open:
            if mark.ended is not None:
                mark = msgspec.structs.replace(mark, ended=None)  # reopened
            mark, check_drafts = await self._checks(mark, new, read_checks)
            drafts += check_drafts
        elif mark.ended != (ending := _ending(new)):
            mark = msgspec.structs.replace(mark, ended=ending)
            verb = "Merged" if ending == "merged" else "Closed without merging"
            item = NoticeItem(f"{ending}:{new.head_ref_oid}", None, new.url, None, "pr")
            drafts.append(_Draft(f"pr-{ending}", (item,), f"{verb}: {_header(new)}."))
        return mark, drafts

    async def _reviews(
        self, mark: NoticesMark, new: PrStatus, now: datetime
    ) -> tuple[NoticesMark, list[_Draft]]:
        """Run the pure ``reviews_step`` until it needs nothing, doing its lookups between
        the steps; then read the bodies of what it announces."""
        answers: dict[str, PermissionAnswer | LookupFailed] = {}
        while True:
            step = reviews_step(
                mark,
                new,
                answers,
                now,
                review_bots=self._review_bots,
                retries=self._retries,
            )
            if not step.needs:
                break
            for login in step.needs:
                answers[login] = await self._permissions.lookup(new.pr.repo, login, now)
        for level, message in step.logs:
            self._log.log(level, message, new.pr)
        drafts: list[_Draft] = []
        if step.announce:
            details = await self._read_details([r.id for r, _ in step.announce])
            limit = self._text_limit
            drafts = [
                _review_draft(new, r, kind, details.get(r.id), limit) for r, kind in step.announce
            ]
        return step.mark, drafts

    async def _checks(
        self, mark: NoticesMark, new: PrStatus, read_checks: CheckReader
    ) -> tuple[NoticesMark, list[_Draft]]:
        head, state = new.head_ref_oid, new.check_state
        handled = mark.checks if mark.checks_head == head else ()
        if state not in _FAILING or (mark.checks_head, mark.checks_state) == (head, state):
            return msgspec.structs.replace(
                mark, checks_head=head, checks_state=state, checks=handled
            ), []
        failures = await read_checks(new.pr)
        fresh = [f for f in failures if f.id not in handled]
        drafts = [_check_draft(new, f, self._text_limit) for f in fresh]
        return msgspec.structs.replace(
            mark,
            checks_head=head,
            checks_state=state,
            checks=(*handled, *(f.id for f in fresh)),
        ), drafts

    # -- addressing -----------------------------------------------------------------

    @staticmethod
    def _address(draft: _Draft, watch: Watch, new: PrStatus, now: datetime) -> Notice:
        pr = new.pr
        return Notice(
            version=NOTICE_VERSION,
            kind=draft.kind,
            key=notice_key(watch.thread_id, pr, draft.kind, [i.id for i in draft.items]),
            worker=watch.thread_id,
            pr=NoticePr(host=pr.host, repo=pr.repo, number=pr.number, url=new.url, title=new.title),
            items=draft.items,
            text=draft.text,
            created_at=now,
        )


def _load(
    db: SyncStore, pr: PrRef, listener: str, threads: Sequence[str]
) -> tuple[Mark | None, datetime | None]:
    """The PR's stored mark and the start of its earliest watch among ``threads`` (None
    when none has one), in one read."""
    with db.read() as tx:
        starts = [s for t in threads if (s := watch_start(tx, t, pr)) is not None]
        return load_mark(tx, pr, listener), min(starts, default=None)


def _watched_again(mark: NoticesMark, since: datetime) -> NoticesMark:
    """The mark of an earlier watch, for the watch that began at ``since``: what came
    before the new start (less the clock-skew allowance) is history, the reviews it handled
    stay handled, and a verdict waiting for a permission retry from before is dropped."""
    cutoff = history_until(since)
    floor = (
        cutoff if mark.reviews_floor is None or cutoff is None else max(cutoff, mark.reviews_floor)
    )
    kept = tuple(s for s in mark.reviews if floor is None or s.at > floor)
    waiting = tuple(w for w in mark.waiting if floor is None or w.at > floor)
    return msgspec.structs.replace(
        mark, reviews_floor=floor, reviews=kept, waiting=waiting, watched_since=since
    )


class ReviewsStep(msgspec.Struct, frozen=True):
    """One pure step over a PR's reviews.

    While ``needs`` (logins whose permission answer is missing) is non-empty nothing else is
    final: ``mark`` is the mark passed in.  ``announce`` holds each review to announce with
    its notice kind; ``logs`` the lines to log, ``(level, message)`` with one ``%s`` for the
    PR, never an author or any text.
    """

    mark: NoticesMark
    announce: tuple[tuple[BadgeItem, str], ...] = ()
    logs: tuple[tuple[int, str], ...] = ()
    needs: tuple[str, ...] = ()


def reviews_step(
    mark: NoticesMark,
    new: PrStatus,
    answers: Mapping[str, PermissionAnswer | LookupFailed],
    now: datetime,
    *,
    review_bots: Sequence[str] = (),
    retries: Sequence[timedelta] = (),
    capacity: int = _KEEP_REVIEWS,
) -> ReviewsStep:
    """The reviews a later look announces, from the badge and the permission ``answers``
    read so far (by login), with the seen set's rules (``_seen``): new is above the floor
    and not known, a failed lookup waits on ``retries``, at most ``capacity`` ids kept."""
    waiting = {w.id: w for w in mark.waiting}
    listed = {r.id: r for r in new.reviews}
    candidates = unseen(new.reviews, mark.reviews_floor, {*(s.id for s in mark.reviews), *waiting})
    for w in mark.waiting:
        candidates.append(
            listed.get(w.id)
            or BadgeItem("review", w.id, w.database_id, w.at, Author(w.login), state=w.state)
        )
    handled: list[Seen] = []
    announce: list[tuple[BadgeItem, str]] = []
    logs: list[tuple[int, str]] = []
    still_waiting: list[_Waiting] = []
    needs: dict[str, None] = {}
    for review in sorted(candidates, key=lambda r: (r.created_at, r.id)):
        verdict = review.state in _VERDICTS
        bot = is_bot(review.author, review_bots)
        if not new.is_open or review.state == "DISMISSED" or not (verdict or bot):
            handled.append(_seen(review))
        elif bot:
            handled.append(_seen(review))
            announce.append((review, "bot-review"))
        elif review.id in waiting and waiting[review.id].retry_at > now:
            still_waiting.append(waiting[review.id])
        elif review.author is None:
            handled.append(_seen(review))
            logs.append((logging.INFO, "a review verdict on %s by a deleted account was ignored"))
        elif (answer := answers.get(review.author.login)) is None:
            needs[review.author.login] = None
        elif isinstance(answer, PermissionAnswer):
            handled.append(_seen(review))
            if answer.trusted:
                announce.append((review, "review-verdict"))
            else:
                logs.append((logging.INFO, _NOT_WRITER))
        else:
            failures = waiting[review.id].failures + 1 if review.id in waiting else 1
            delay = retry_delay(failures, retries)
            if delay is None:
                handled.append(_seen(review))
                logs.append((logging.WARNING, _GIVEN_UP))
            else:
                still_waiting.append(
                    _Waiting(
                        review.id,
                        review.created_at,
                        review.author.login,
                        review.state or "",
                        review.database_id,
                        failures,
                        now + delay,
                    )
                )
    if needs:
        return ReviewsStep(mark, needs=tuple(needs))
    open_at = [w.at for w in still_waiting]
    floor, kept = settle_seen(mark.reviews_floor, (), [*mark.reviews, *handled], open_at, capacity)
    new_mark = msgspec.structs.replace(
        mark, reviews=kept, reviews_floor=floor, waiting=tuple(still_waiting)
    )
    return ReviewsStep(new_mark, tuple(announce), tuple(logs))


_NOT_WRITER = "a review verdict on %s by an account without write access was not passed on"
_GIVEN_UP = "a review verdict on %s was not passed on: the permission lookup kept failing"


def _seen(review: BadgeItem) -> Seen:
    return Seen(review.id, review.created_at)


def _ending(status: PrStatus) -> str:
    return "merged" if status.merged or status.state == "MERGED" else "closed"


def _header(new: PrStatus) -> str:
    return f"{untrusted_fence.one_line(new.title)} ({new.pr})"


def _review_draft(
    new: PrStatus, review: BadgeItem, kind: str, detail: ItemDetail | None, limit: int | None
) -> _Draft:
    login = review.author.login if review.author else "ghost"
    if kind == "bot-review":
        state = (review.state or "").replace("_", " ").lower()
        first = f"Review ({state}) from the bot @{login} on {_header(new)}."
    else:
        first = f"{_VERDICTS[review.state or '']} by @{login} on {_header(new)}."
    url = detail.url if detail else new.url
    body = detail.body if detail else ""
    text = _quoted(first, body, url, kind="comment", source=f"@{login}", limit=limit)
    item = NoticeItem(review.id, review.database_id, url, login, "review")
    return _Draft(kind, (item,), text)


def _check_draft(new: PrStatus, failure: CheckFailure, limit: int | None) -> _Draft:
    name = untrusted_fence.one_line(failure.name, 100)
    first = (
        f"Check {name} failed ({untrusted_fence.one_line(failure.conclusion, 40).lower()}) on "
        f"{new.head_ref_oid[:7]} of {_header(new)}."
    )
    text = _quoted(
        first, failure.summary, failure.url, kind="check-output", source=name, limit=limit
    )
    item = NoticeItem(f"check:{new.head_ref_oid}:{failure.id}", None, failure.url, None, "check")
    return _Draft("check-failed", (item,), text)
