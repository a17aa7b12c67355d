"""The daemon's ``WakeSink``: logs every decision and keeps it, with its evidence, in the store.

Three small parts feed it.  ``PermissionLog`` wraps the shared permissions component and
remembers each answer it gave; ``ItemIndex`` (fed by the ``Observer`` listener, which the
poller calls before the comment wake) remembers each listed comment's author and ids.
``RecordingSink`` is called by the service right after a step's transaction: it logs, and
queues a ``DecisionRecord`` per decision, which ``run`` writes in the background (rate
state read from the mark just committed).
"""

from __future__ import annotations

import functools
import logging
from collections import OrderedDict, defaultdict
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime

import anyio
import anyio.to_thread
import msgspec

from comment_wake.service import LISTENER_NAME, NO_EVIDENCE
from comment_wake.wake import Decision, LogLine, MarkError, WakeConfig, WakeMark, decode_mark
from review_monitor import (
    BadgeItem,
    LookupFailed,
    Notice,
    PermissionAnswer,
    PermissionChecker,
    PrRef,
    PrStatus,
    SyncStore,
    Watch,
)

from ._records import (
    DecisionRecord,
    encode_record,
    namespace_of,
    permission_evidence,
    rate_evidence,
    record_key,
)

__all__ = ["OBSERVER_NAME", "ItemIndex", "Observer", "PermissionLog", "RecordingSink"]

OBSERVER_NAME = "comment-wake-daemon"
_MAX_ANSWERS = 10_000
_MAX_ITEMS_PER_PR = 512
_log = logging.getLogger("comment_wake.daemon")
_wake_log = logging.getLogger("comment_wake.service")


class PermissionLog:
    """A ``PermissionChecker`` that remembers the last answer per repository and login."""

    def __init__(self, inner: PermissionChecker) -> None:
        self._inner = inner
        self._answers: OrderedDict[tuple[str, str], PermissionAnswer | LookupFailed] = OrderedDict()

    async def lookup(self, repo: str, login: str, now: datetime) -> PermissionAnswer | LookupFailed:
        answer = await self._inner.lookup(repo, login, now)
        key = (repo.casefold(), login.casefold())
        self._answers[key] = answer
        self._answers.move_to_end(key)
        while len(self._answers) > _MAX_ANSWERS:
            self._answers.popitem(last=False)
        return answer

    def answer(self, repo: str, login: str) -> PermissionAnswer | LookupFailed | None:
        return self._answers.get((repo.casefold(), login.casefold()))


class ItemIndex:
    """The comments and reviews the badge listed lately, per PR, by node id."""

    def __init__(self) -> None:
        self._items: dict[PrRef, OrderedDict[str, BadgeItem]] = defaultdict(OrderedDict)
        self.polled: dict[PrRef, datetime] = {}

    def saw(self, status: PrStatus, at: datetime) -> None:
        found = self._items[status.pr]
        for item in (*status.comments, *status.reviews):
            found[item.id] = item
            found.move_to_end(item.id)
        while len(found) > _MAX_ITEMS_PER_PR:
            found.popitem(last=False)
        self.polled[status.pr] = at

    def item(self, pr: PrRef, item_id: str) -> BadgeItem | None:
        found = self._items.get(pr)
        return None if found is None else found.get(item_id)


class Observer:
    """A listener that only watches: it feeds ``ItemIndex`` before the wake decides."""

    name = OBSERVER_NAME

    def __init__(self, index: ItemIndex) -> None:
        self._index = index

    async def on_poll(
        self, watches: Sequence[Watch], new: PrStatus, old: PrStatus | None, now: datetime
    ) -> None:
        self._index.saw(new, now)


class RecordingSink:
    """``WakeSink`` for the daemon: log lines, and decision records written by ``run``."""

    def __init__(
        self,
        *,
        index: ItemIndex,
        permissions: PermissionLog,
        config: WakeConfig,
    ) -> None:
        self.index = index
        self._permissions = permissions
        self._config = config
        self.on_wake: Callable[[], None] | None = None  # the delivery loop's poke
        self._queue: list[DecisionRecord] = []
        self._queued = anyio.Event()
        self.wakes = 0  # wakes since the daemon started
        self.decisions = 0

    # -- the WakeSink protocol ---------------------------------------------------------

    def decided(
        self,
        decisions: Sequence[Decision],
        created: Mapping[str, datetime] | None = None,
        evidence: Mapping[str, str] = NO_EVIDENCE,
    ) -> None:
        for d in decisions:
            self.decisions += 1
            detail = f": {d.detail}" if d.detail else ""
            # Ids, outcome and reason only: never the author or any text of the comment.
            _wake_log.info("%s %s: %s (%s)%s", d.pr, d.comment, d.outcome, d.reason, detail)
            record = self._record(d)
            if d.comment in evidence:
                record = msgspec.structs.replace(record, own_post=evidence[d.comment])
            if record.created_at is None and created is not None and d.comment in created:
                record = msgspec.structs.replace(record, created_at=created[d.comment])
            self._queue.append(record)
        self._queued.set()

    def woke(self, at: datetime, notice: Notice, comments: Sequence[str]) -> None:
        self.wakes += 1
        _wake_log.info(
            "%s#%d: woke worker %s with %d comment(s), notice %s",
            notice.pr.repo,
            notice.pr.number,
            notice.worker,
            len(comments),
            notice.key[:12],
        )
        chosen = set(comments)
        self._queue = [
            msgspec.structs.replace(r, worker=notice.worker, notice_key=notice.key)
            if r.comment in chosen and r.outcome == "wake" and r.notice_key is None
            else r
            for r in self._queue
        ]
        if self.on_wake is not None:
            self.on_wake()

    def logged(self, at: datetime, pr: PrRef | None, line: LogLine) -> None:
        # The core's log lines never carry an author or text (LogLine's contract).
        _wake_log.log(logging.WARNING if line.level == "warning" else logging.INFO, line.message)

    # -- records -----------------------------------------------------------------------

    def _record(self, d: Decision) -> DecisionRecord:
        item = self.index.item(d.pr, d.comment)
        record = DecisionRecord(
            at=d.at,
            host=d.pr.host,
            pr=str(d.pr),
            comment=d.comment,
            outcome=d.outcome,
            reason=d.reason,
            detail=d.detail,
            rules=d.rules,
        )
        return _with_item(record, item, self._permissions, d.pr)

    @property
    def pending(self) -> int:
        return len(self._queue)

    def take(self) -> list[DecisionRecord]:
        taken, self._queue = self._queue, []
        return taken

    def write(self, store: SyncStore, records: Sequence[DecisionRecord]) -> int:
        """Write ``records`` (blocking: call it in a worker thread), each with the rate
        state of its PR's mark as committed; returns how many were written."""
        if not records:
            return 0
        by_pr: dict[str, list[DecisionRecord]] = defaultdict(list)
        for r in records:
            by_pr[f"{r.host}/{r.pr}"].append(r)
        finished: list[tuple[str, DecisionRecord]] = []
        for group in by_pr.values():
            pr = PrRef.parse(group[0].pr, host=group[0].host)
            mark = _load_mark(store, pr)
            for r in group:
                if mark is not None:
                    r = msgspec.structs.replace(r, rate=rate_evidence(mark, self._config, r.at))
                    if r.author is None:
                        r = _with_item(r, _held_item(mark, r.comment), self._permissions, pr)
                finished.append((namespace_of(pr), r))
        with store.write_records(at=max(r.at for r in records)) as tx:
            for namespace, r in finished:
                tx.put(namespace, record_key(r), encode_record(r))
        return len(finished)

    async def run(self, store: SyncStore) -> None:
        """Write queued records until cancelled; the last batch is written on the way out."""
        try:
            while True:
                await self._queued.wait()
                self._queued = anyio.Event()
                await self._flush(store)
        finally:
            with anyio.CancelScope(shield=True):
                await self._flush(store)

    async def _flush(self, store: SyncStore) -> None:
        records = self.take()
        if not records:
            return
        try:
            await anyio.to_thread.run_sync(functools.partial(self.write, store, records))
        except Exception as exc:
            _log.error(
                "could not record %d decision(s) for explain: %s",
                len(records),
                type(exc).__name__,
            )


def _load_mark(store: SyncStore, pr: PrRef) -> WakeMark | None:
    stored = store.load_mark(pr, LISTENER_NAME)
    if stored is None:
        return None
    try:
        return decode_mark(stored.blob)
    except MarkError:
        return None


def _held_item(mark: WakeMark, comment: str) -> BadgeItem | None:
    for h in mark.held:
        if h.item.id == comment:
            return h.item
    for p in mark.pending:
        if p.item.id == comment:
            return p.item
    return None


def _with_item(
    record: DecisionRecord, item: BadgeItem | None, permissions: PermissionLog, pr: PrRef
) -> DecisionRecord:
    if item is None:
        return record
    login = item.author.login if item.author is not None else None
    answer = permissions.answer(pr.repo, login) if login is not None else None
    # A permission answer is evidence only for the rules that read it.
    uses_permission = record.reason in ("writer", "not-writer", "lookup-failed", "rate-limit")
    return msgspec.structs.replace(
        record,
        database_id=item.database_id,
        kind=item.kind,
        created_at=item.created_at,
        author=login,
        author_type=item.author.type if item.author is not None else None,
        viewer_did_author=item.viewer_did_author,
        permission=permission_evidence(answer)
        if answer is not None and uses_permission
        else record.permission,
    )
