"""``CommentWake``: the async shell around the wake core, a ``review_monitor`` listener.

Per PR and look (a badge poll, or a timer with the last badge): load the mark, call
``step``; while the core needs reads, do them (details, gap pages, permission lookups,
own-post verdicts) and call ``step`` again with the facts; then write the new mark and
enqueue the notices in one store transaction, and only then tell the sink.

A GitHub fault during the reads commits nothing, so the mark never moves on a fault:
the PR is looked at again at its next poll.  Everything in memory (the last badge per PR,
the timers) is rebuilt from the marks by the polls after a restart.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Mapping, Sequence
from datetime import datetime

import anyio
import anyio.to_thread
import msgspec

from comment_wake import ownpost
from comment_wake.wake import (
    MARK_VERSION,
    Connection,
    Facts,
    LogLine,
    Needs,
    OwnPostVerdict,
    Step,
    WakeConfig,
    WakeMark,
    decode_mark,
    encode_mark,
    next_due,
    step,
)
from review_monitor import (
    BadgeItem,
    Clock,
    GapRead,
    GitHubApi,
    GitHubError,
    ItemDetail,
    LookupFailed,
    MonitorConfig,
    PermissionAnswer,
    PermissionChecker,
    PrRef,
    PrStatus,
    RateLimitedError,
    Store,
    TransientError,
    Watch,
    read_details,
    read_gap,
)

from ._ports import BindingSource, WakeSink

__all__ = ["LISTENER_NAME", "CommentWake"]

LISTENER_NAME = "comment-wake"
_MAX_ROUNDS = 8  # details, own posts, permissions, gaps, and a margin
_log = logging.getLogger("comment_wake.service")


class _ReadFailed(Exception):
    def __init__(self, what: str, cause: GitHubError) -> None:
        super().__init__(what)
        self.what = what
        self.cause = cause


class CommentWake:
    """The comment wake as a listener on the badge poll, plus its timers (``run``)."""

    name = LISTENER_NAME

    def __init__(
        self,
        *,
        store: Store,
        api: GitHubApi,
        permissions: PermissionChecker,
        bindings: BindingSource,
        sink: WakeSink,
        clock: Clock,
        config: WakeConfig | None = None,
        monitor: MonitorConfig | None = None,
        rng: random.Random | None = None,
    ) -> None:
        self._store = store
        self._api = api
        self._permissions = permissions
        self._bindings = bindings
        self._sink = sink
        self._clock = clock
        self._config = config or WakeConfig()
        self._monitor = monitor or MonitorConfig()
        self._rng = rng
        self._last: dict[PrRef, PrStatus] = {}
        self._due: dict[PrRef, datetime] = {}
        self._locks: dict[PrRef, anyio.Lock] = {}
        self._changed = anyio.Event()

    # -- the listener ------------------------------------------------------------------

    async def on_poll(
        self, watches: Sequence[Watch], new: PrStatus, old: PrStatus | None, now: datetime
    ) -> None:
        self._last[new.pr] = new
        await self.look(new.pr, now)

    def due(self, pr: PrRef) -> datetime | None:
        """When the PR's timer fires next (None: no timer)."""
        return self._due.get(pr)

    # -- the timers --------------------------------------------------------------------

    async def run(self) -> None:
        """Serve the timers until cancelled: a PR whose ``next_due`` comes is looked at
        again with its last badge."""
        while True:
            self._changed = anyio.Event()
            now = self._clock.now()
            due = sorted(pr for pr, t in self._due.items() if t <= now)
            for pr in due:
                if self._due.get(pr, now) <= now:
                    self._due.pop(pr, None)
                    try:
                        await self.look(pr, now)
                    except Exception as exc:
                        _log.error("a timed look at %s failed: %s", pr, type(exc).__name__)
            if due:
                continue
            wake_at = min(self._due.values(), default=None)
            await self._sleep_or_changed(wake_at)

    async def _sleep_or_changed(self, t: datetime | None) -> None:
        changed = self._changed
        async with anyio.create_task_group() as tg:
            if t is not None:

                async def sleeper() -> None:
                    await self._clock.sleep_until(t)
                    tg.cancel_scope.cancel()

                tg.start_soon(sleeper)
            await changed.wait()
            tg.cancel_scope.cancel()

    def _schedule(self, pr: PrRef, mark: WakeMark) -> None:
        due = next_due(mark)
        if due is None:
            if self._due.pop(pr, None) is None:
                return
        else:
            if self._due.get(pr) == due:
                return
            self._due[pr] = due
        self._changed.set()

    # -- one look ----------------------------------------------------------------------

    async def look(self, pr: PrRef, now: datetime) -> Step | None:
        """Step ``pr`` with its last badge; None when no badge was seen or a read failed."""
        lock = self._locks.setdefault(pr, anyio.Lock())
        async with lock:
            status = self._last.get(pr)
            if status is None:
                return None
            return await self._look(status, now)

    async def _look(self, status: PrStatus, now: datetime) -> Step | None:
        pr = status.pr
        stored = await self._store.load_mark(pr, self.name)
        mark = None if stored is None else decode_mark(stored.blob)
        binding = self._bindings.binding(pr)
        facts = Facts()
        for _ in range(_MAX_ROUNDS):
            result = step(
                binding,
                mark,
                status,
                facts,
                config=self._config,
                monitor=self._monitor,
                now=now,
                rng=self._rng,
            )
            if result.done:
                break
            try:
                facts = await self._read(result.needs, facts, status, mark, binding.worker, now)
            except _ReadFailed as exc:
                self._sink.logged(now, pr, _fault_line(pr, exc))
                return None
        else:
            raise RuntimeError(f"the wake core kept asking for reads on {pr}")
        blob = encode_mark(result.mark)
        if stored is None or stored.blob != blob or result.notices:
            await self._store.commit(
                pr, self.name, mark=(MARK_VERSION, blob), notices=result.notices, at=now
            )
        self._tell(pr, result, now)
        self._schedule(pr, result.mark)
        return result

    def _tell(self, pr: PrRef, result: Step, now: datetime) -> None:
        if result.decisions:
            self._sink.decided(result.decisions)
        for notice in result.notices:
            woken = [d.comment for d in result.decisions if d.outcome == "wake"]
            self._sink.woke(now, notice, woken)
        for line in result.logs:
            self._sink.logged(now, pr, line)

    # -- the reads ---------------------------------------------------------------------

    async def _read(
        self,
        needs: Needs,
        facts: Facts,
        status: PrStatus,
        mark: WakeMark | None,
        worker: str | None,
        now: datetime,
    ) -> Facts:
        pr = status.pr
        details = dict(facts.details)
        gone = set(facts.gone)
        if needs.details:
            try:
                found = await read_details(
                    self._api,
                    needs.details,
                    batch=self._monitor.detail_batch,
                    inline_window=self._monitor.inline_window,
                )
            except GitHubError as exc:
                raise _ReadFailed("comment details", exc) from None
            details.update(found)
            gone.update(i for i in needs.details if i not in found)
        gaps: dict[Connection, GapRead] = dict(facts.gaps)
        for need in needs.gaps:
            try:
                gaps[need.connection] = await read_gap(
                    self._api,
                    pr,
                    need.connection,
                    need.cursor,
                    stop_at=need.stop,
                    max_pages=need.max_pages,
                )
            except GitHubError as exc:
                raise _ReadFailed(f"the {need.connection} gap", exc) from None
        permissions: dict[str, PermissionAnswer | LookupFailed] = dict(facts.permissions)
        for login in needs.permissions:
            permissions[login] = await self._permissions.lookup(pr.repo, login, now)
        own_posts: dict[str, OwnPostVerdict] = dict(facts.own_posts)
        state = facts.own_post_state
        if needs.own_posts:
            items = _items(status, gaps)
            comments = [_comment_text(items[i], details[i]) for i in needs.own_posts]
            previous = state if state is not None else (mark.own_posts if mark else b"")
            state, verdicts = await self._own_posts(previous, pr, comments, worker, now)
            own_posts.update(verdicts)
        return Facts(details, frozenset(gone), own_posts, permissions, gaps, state)

    async def _own_posts(
        self,
        blob: bytes,
        pr: PrRef,
        comments: Sequence[ownpost.CommentText],
        worker: str | None,
        now: datetime,
    ) -> tuple[bytes, Mapping[str, OwnPostVerdict]]:
        state = _decode_own(blob)
        sources = tuple(self._bindings.transcripts(worker)) if worker is not None else ()
        window = self._config.own_post_window

        def scan() -> ownpost.OwnPostState:
            return ownpost.scan(state, sources, now, window=window)

        # Transcript reads are file I/O: off the event loop.
        scanned = await anyio.to_thread.run_sync(scan)
        matched, verdicts = ownpost.match(
            scanned, pr, comments, window=window, skew=self._config.post_clock_skew
        )
        return msgspec.msgpack.encode(matched), verdicts


def _decode_own(blob: bytes) -> ownpost.OwnPostState:
    if not blob:
        return ownpost.OwnPostState()
    try:
        return msgspec.msgpack.decode(blob, type=ownpost.OwnPostState)
    except (msgspec.DecodeError, msgspec.ValidationError):
        # The matcher's state is a cache of the transcripts: read them afresh.
        return ownpost.OwnPostState()


def _items(status: PrStatus, gaps: Mapping[Connection, GapRead]) -> dict[str, BadgeItem]:
    found: dict[str, BadgeItem] = {}
    for gap in gaps.values():
        found.update((i.id, i) for i in gap.items)
    found.update((i.id, i) for i in (*status.comments, *status.reviews))
    return found


def _comment_text(item: BadgeItem, detail: ItemDetail) -> ownpost.CommentText:
    return ownpost.CommentText(
        id=item.id,
        kind=item.kind,
        url=detail.url,
        created_at=item.created_at,
        viewer_did_author=item.viewer_did_author,
        body=detail.body,
        inline=tuple(ownpost.InlineText(i.url, i.body) for i in detail.inline),
    )


def _reason(exc: GitHubError) -> str:
    """A fault in one phrase: its type and status, never a body or a token."""
    if isinstance(exc, RateLimitedError):
        return "rate limited"
    if isinstance(exc, TransientError) and exc.status is not None:
        return f"{type(exc).__name__} (HTTP {exc.status})"
    return type(exc).__name__


def _fault_line(pr: PrRef, exc: _ReadFailed) -> LogLine:
    return LogLine(
        "warning",
        f"reading {exc.what} of {pr} failed: {_reason(exc.cause)}; nothing was decided, "
        "the next poll looks again",
    )
