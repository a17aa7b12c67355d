"""``CommentWake``: the async shell around the wake core, a ``review_monitor`` listener.

It follows the monitor's observation stream: each ``Observation`` (a badge the poller
read) is a look at its PR; each ``RoundDone`` checks the registry version (one store
read) and looks at the PRs whose binding moved.  A PR the sweep proves quiet gets no
observation: its timers (``run``) look at it with its latest observation when they fall
due, and a look that failed is given again at the next round's end.

Per PR and look (an observation, or a timer with the PR's latest one): load the mark, call
``step``; while the core needs reads, do them (details, gap pages, permission lookups,
own-post verdicts) and call ``step`` again with the facts; then write the new mark,
enqueue the notices and put a ``DecisionRecord`` per decision (its evidence: what the
step read) in one store transaction, and only then publish the events
(``CommentDecided``, ``NoticeQueued``, ``Noted``).

A GitHub fault during the reads, or a transcript the own-post check cannot read, commits
nothing ("when unsure, record nothing"), so the mark never moves on a fault: the PR is
looked at again at its next poll, and the fault is one warning line naming neither an
author nor any text.  Everything in memory (the last badge per PR, the timers) is rebuilt
from the marks by the polls after a restart.

Held comments are read again at their release (``Needs.rereads``): always with a fresh
detail query of the client's, never from the monitor's prefetched bodies, and their authors'
permissions through the shared cache, which answers only within ``permission_ttl``.  An
operator's release request (``comment-wake release``, a record in the store) is read at
every look and applied by it: the step releases the held comments whatever the rate limit
says, and the commit deletes the request with the mark it moves.

When the binding source says a PR is no longer bound (its worker unbound or archived, or
the watch removed) while its mark still holds comments waiting on the rate limit or on a
permission retry, the core's ``finish`` decides them (``drop`` / ``skip``), so nothing
is left pending for a worker that will never be woken.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Awaitable, Callable, Collection, Mapping, Sequence
from datetime import datetime, timedelta

import anyio
import anyio.to_thread
import msgspec

from comment_wake import ownpost
from comment_wake.events import CommentDecided, Event, Noted, NoticeQueued
from comment_wake.store import (
    clearing_release,
    has_release_request,
    pr_posts,
    putting_records,
)
from comment_wake.wake import (
    MARK_VERSION,
    RULES,
    Binding,
    Connection,
    Decision,
    Facts,
    KnownPosts,
    LogLine,
    Needs,
    OwnPostVerdict,
    Step,
    WakeConfig,
    WakeMark,
    decode_mark,
    encode_mark,
    finish,
    next_due,
    step,
)
from review_monitor import (
    BadgeItem,
    Clock,
    GapRead,
    GitHubError,
    ItemDetail,
    LookAgain,
    LookupFailed,
    MonitorConfig,
    Notice,
    NotOwnerError,
    Observation,
    ObservationSource,
    Observed,
    PermissionAnswer,
    PermissionChecker,
    Permissions,
    PrRef,
    PrStatus,
    RateLimitedError,
    RoundDone,
    TransientError,
    sleep_until_or,
)
from review_monitor.github import GitHubApi, read_details, read_gap
from review_monitor.store import (
    Fence,
    Mark,
    PrOwner,
    Store,
    SyncStore,
    WriteTx,
    describe_fault,
    load_mark,
    read_owner,
    read_registry_version,
)

from ._gaps import gap_row
from ._ports import LISTENER_NAME, BindingSource, DetailSource
from ._records import (
    DecisionRecord,
    encode_record,
    namespace_of,
    permission_evidence,
    rate_evidence,
    record_key,
)

__all__ = ["CommentWake"]

_MAX_ROUNDS = 8  # details, own posts, permissions, gaps, and a margin
_MAX_DETAIL_IDS = 100  # node aliases one detail query holds
_MAX_MOVES = 4  # a look steps again at most this often when the registry moved under it
_log = logging.getLogger("comment_wake.service")


class _ReadFailed(Exception):
    """A read the step needs failed (a GitHub fault, an unreadable transcript)."""

    def __init__(self, what: str, cause: GitHubError | OSError) -> None:
        super().__init__(what)
        self.what = what
        self.cause = cause


class _Gate:
    """One gap read's ``more``: asks ``pages`` before each page beyond the first, and
    remembers a refusal (the read was deferred, not bounded)."""

    def __init__(self, pages: Callable[[datetime], Awaitable[bool]], clock: Clock) -> None:
        self._pages = pages
        self._clock = clock
        self.refused = False

    async def more(self) -> bool:
        if await self._pages(self._clock.now()):
            return True
        self.refused = True
        return False


class _RegistryMoved(Exception):
    """The registry version moved between a look's binding read and its commit."""


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
        publish: Callable[[Event], None] | None = None,
        clock: Clock,
        config: WakeConfig | None = None,
        monitor: MonitorConfig | None = None,
        rng: random.Random | None = None,
        details: DetailSource | None = None,
        interval: Callable[[], timedelta] | None = None,
        observations: ObservationSource | None = None,
        host_id: str | None = None,
        gap_pages: Callable[[datetime], Awaitable[bool]] | None = None,
    ) -> None:
        self._store = store
        # Fleet mode: asked before each flood gap page beyond the first (the identity's
        # gap bucket and shared budget, ``SharedGapPages``); a refusal defers the rest of
        # the read.  None: every page the core allows is read (a single host).
        self._gap_pages = gap_pages
        # Fleet mode: this host's id.  A look decides only a PR this host owns, and its
        # commit holds only while the owner and epoch it read still hold (a fence).
        self._host_id = host_id
        # The poller's observation stream: the latest badge of each PR, which the timers
        # look at (None: only observations handed to ``observe`` are looked at).
        self._observations = observations
        # The poll interval in force (``Monitor.poll_interval``: the budget governor may
        # stretch it); the gap read's bound grows with it.
        self._interval = interval
        # ``Monitor.read_details`` serves a batch's new bodies from one query for all its
        # PRs; without it, each look reads its own.
        self._details = details
        self._api = api
        self._permissions = permissions
        self._bindings = bindings
        self._publish = publish or _ignore
        self._clock = clock
        self._config = config or WakeConfig()
        self._monitor = monitor or MonitorConfig()
        self._rng = rng
        self._due: dict[PrRef, datetime] = {}
        self._failed: set[PrRef] = set()  # timed looks that failed: again at a round's end
        self._locks: dict[PrRef, anyio.Lock] = {}
        self._changed = anyio.Event()

    # -- the listener ------------------------------------------------------------------

    async def observe(self, item: Observed, now: datetime) -> None:
        """A badge read is a look at its PR (``LookAgain`` when a read it needed failed:
        the dispatcher gives it again at the next round's end); a round's end checks the
        registry and looks again at the PRs whose timed look failed."""
        if isinstance(item, RoundDone):
            await self.refresh_bindings(now)
            failed, self._failed = self._failed, set()
            self._look_soon(failed, now)
            return
        if not isinstance(item, Observation):
            return
        new = item.badge
        try:
            await self._locked(new.pr, new, now)
        except _ReadFailed:
            raise LookAgain from None
        # ``new.pr`` is spelled as GitHub spells it (``nameWithOwner``); a watch bound as
        # ``Octo/Repo#1`` takes that spelling once, so ``list`` and ``status`` show it.
        if any(w.pr.repo != new.pr.repo for w in item.watches if w.pr == new.pr):
            await self._store.call(SyncStore.respell, new.pr, at=now)

    def _latest(self, pr: PrRef) -> PrStatus | None:
        latest = None if self._observations is None else self._observations.latest(pr)
        return None if latest is None else latest.badge

    async def apply_release(self, pr: PrRef, now: datetime) -> bool:
        """Look at ``pr`` now, so that a release request recorded for it is applied (every
        look applies one); False when no badge of it is known yet, and its next poll
        applies the request instead."""
        if self._latest(pr) is None:
            return False
        await self.look(pr, now)
        return True

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
                # A look meanwhile (a poll) may have moved or cleared this PR's timer.
                t = self._due.get(pr)
                if t is not None and t <= now:
                    self._due.pop(pr, None)
                    try:
                        await self._locked(pr, self._latest(pr), now)
                    except _ReadFailed:
                        self._failed.add(pr)  # said already; again at the round's end
                    except Exception as exc:
                        self._failed.add(pr)
                        _log.error("a timed look at %s failed: %s", pr, describe_fault(exc))
            if due:
                continue
            wake_at = min(self._due.values(), default=None)
            await self._sleep_or_changed(wake_at)

    async def _sleep_or_changed(self, t: datetime | None) -> None:
        await sleep_until_or(self._clock, t, self._changed)

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
        """Step ``pr`` with its last badge; None when nothing was committed (no badge seen
        and nothing to finish, or a read failed).

        Without a badge (after a restart, or for a PR no longer polled) it still decides
        what the mark holds when the PR is no longer bound, so a session manager may call
        it right after unbinding or archiving a worker.
        """
        try:
            return await self._locked(pr, self._latest(pr), now)
        except _ReadFailed:
            return None

    async def _locked(self, pr: PrRef, status: PrStatus | None, now: datetime) -> Step | None:
        """``_look`` under the PR's lock, stepped again while the registry moves under its
        commit; ``_ReadFailed`` (reported already) when a read it needed failed."""
        async with self._locks.setdefault(pr, anyio.Lock()):
            return await self._look_moving(pr, status, now)

    async def _look_moving(self, pr: PrRef, status: PrStatus | None, now: datetime) -> Step | None:
        for _ in range(_MAX_MOVES):
            try:
                return await self._look(pr, status, now)
            except _RegistryMoved:
                # An archive, an unbind or a re-bind landed while this look stepped: its
                # commit was undone; step again on the fresh binding.
                await self.refresh_bindings(now)
        raise RuntimeError(
            f"the registry moved at each of {_MAX_MOVES} tries to commit a look at {pr}; "
            "nothing was decided, the next round looks again"
        )

    async def refresh_bindings(self, now: datetime) -> None:
        """Reload the bindings when the registry version moved, and look soon at every PR
        whose binding changed (an unbind or an archive finishes what its mark holds; a
        re-bind or a new watch starts from its watch).  One store read when nothing moved."""
        self._look_soon(await anyio.to_thread.run_sync(self._bindings.refresh), now)

    def _look_soon(self, prs: Collection[PrRef], now: datetime) -> None:
        """Have the timers look at ``prs`` now (an earlier timer of theirs stays)."""
        for pr in prs:
            self._due[pr] = min(now, self._due.get(pr, now))
        if prs:
            self._changed.set()

    async def _look(self, pr: PrRef, status: PrStatus | None, now: datetime) -> Step | None:
        since = now - self._config.own_post_window
        stored, released, posts, owner = await self._store.call(_look_reads, pr, self.name, since)
        fence = None
        if self._host_id is not None:
            if owner is None or owner.host_id != self._host_id:
                return None  # another host's PR: its owner decides it
            fence = Fence(owner.host_id, owner.epoch)
        mark = None if stored is None else decode_mark(stored.blob)
        binding = self._bindings.binding(pr)
        version = self._bindings.version()
        if status is None:
            if mark is None or not _unfinished(binding, mark):
                return None
            closed = finish(binding, mark, None, config=self._config, now=now)
            return await self._commit(
                pr,
                binding,
                stored,
                closed,
                None,
                Facts(posts=posts),
                mark,
                now,
                released,
                version,
                fence=fence,
            )
        stepped, facts = await self._steps(
            binding, mark, status, now, release=released, facts=Facts(posts=posts)
        )
        if _unfinished(binding, stepped.mark):
            closing = finish(binding, stepped.mark, status, config=self._config, now=now)
            stepped = msgspec.structs.replace(
                stepped, mark=closing.mark, decisions=(*stepped.decisions, *closing.decisions)
            )
        return await self._commit(
            pr, binding, stored, stepped, status, facts, mark, now, released, version, fence=fence
        )

    async def _steps(
        self,
        binding: Binding,
        mark: WakeMark | None,
        status: PrStatus,
        now: datetime,
        *,
        release: bool = False,
        facts: Facts,
    ) -> tuple[Step, Facts]:
        """Step from ``facts`` until the core needs no more reads; ``_ReadFailed``
        (reported as a warning line) when a read failed."""
        pr = status.pr
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
                release=release,
                interval=None if self._interval is None else self._interval(),
            )
            if result.done:
                break
            try:
                facts = await self._read(result.needs, facts, status, mark, binding.worker, now)
            except _ReadFailed as exc:
                line = _fault_line(pr, exc)
                self._publish(Noted(at=now, level=line.level, pr=pr, message=line.message))
                raise
        else:
            raise RuntimeError(f"the wake core kept asking for reads on {pr}")
        return result, facts

    async def _commit(
        self,
        pr: PrRef,
        binding: Binding,
        stored: Mark | None,
        result: Step,
        status: PrStatus | None,
        facts: Facts,
        before: WakeMark | None,
        now: datetime,
        released: bool,
        version: int | None,
        *,
        fence: Fence | None,
    ) -> Step | None:
        """Write the mark, enqueue the notices and put the decisions' records in one
        transaction, then publish: if the commit raises, nobody has heard anything and
        the next look decides again.  ``released``: the look applied a release request,
        which the same transaction deletes.  ``version``: the registry version the
        binding was read at; when the registry moved since, the transaction is undone
        (``_RegistryMoved``) before anything is written.  ``fence``: the PR's owner and
        epoch the look read (fleet mode); when they moved (the PR was re-bound on another
        host), nothing is written, one line says so, and nothing is told."""
        blob = encode_mark(result.mark)
        items = _known_items(status, facts, before)
        records = [self._record(d, items, facts, result, now) for d in result.decisions]
        changed = result.notices or records or result.gaps or released
        if stored is None or stored.blob != blob or changed:
            put = putting_records(
                [(namespace_of(pr), record_key(r), encode_record(r)) for r in records]
                + [gap_row(g) for g in result.gaps]
            )
            clear = clearing_release(pr) if released else None

            def also(tx: WriteTx) -> None:
                if version is not None and read_registry_version(tx) != version:
                    raise _RegistryMoved
                put(tx)
                if clear is not None:
                    clear(tx)

            try:
                await self._store.call(
                    SyncStore.commit,
                    pr,
                    self.name,
                    mark=(MARK_VERSION, blob),
                    notices=result.notices,
                    at=now,
                    also=also,
                    fence=fence,
                )
            except NotOwnerError as exc:
                _log.warning("a look at %s was not committed: %s", pr, exc)
                return None
        self._tell(pr, binding, result, records, now)
        self._schedule(pr, result.mark)
        return result

    def _record(
        self,
        d: Decision,
        items: Mapping[str, BadgeItem],
        facts: Facts,
        result: Step,
        now: datetime,
    ) -> DecisionRecord:
        """The decision with its evidence: what the step read about this comment."""
        item = items.get(d.comment)
        login = item.author.login if item is not None and item.author is not None else None
        permission = None
        if login is not None and d.reason in _PERMISSION_REASONS:
            answer = facts.permissions.get(login) or self._cached_permission(d.pr, login, now)
            permission = None if answer is None else permission_evidence(answer)
        verdict = facts.own_posts.get(d.comment)
        notice = _notice_of(result, d)
        return DecisionRecord(
            at=d.at,
            host=d.pr.host,
            pr=str(d.pr),
            comment=d.comment,
            outcome=d.outcome,
            reason=d.reason,
            detail=d.detail,
            database_id=None if item is None else item.database_id,
            kind=None if item is None else item.kind,
            created_at=None if item is None else item.created_at,
            author=login,
            author_type=item.author.type if item is not None and item.author else None,
            viewer_did_author=None if item is None else item.viewer_did_author,
            permission=permission,
            rate=rate_evidence(result.mark, self._config, d.at, bots=_bots_lane(result, d)),
            worker=None if notice is None else notice.worker,
            notice_key=None if notice is None else notice.key,
            own_post=None if verdict is None else verdict.explanation,
            rules=d.rules,
        )

    def _cached_permission(self, pr: PrRef, login: str, now: datetime) -> PermissionAnswer | None:
        # A comment released from the rate limit was looked up in an earlier step; the
        # shared permissions cache still holds that answer for its ten minutes.
        if isinstance(self._permissions, Permissions):
            return self._permissions.cached(pr.repo, login, now)
        return None

    def _tell(
        self,
        pr: PrRef,
        binding: Binding,
        result: Step,
        records: Sequence[DecisionRecord],
        now: datetime,
    ) -> None:
        for d, r in zip(result.decisions, records, strict=True):
            self._publish(
                CommentDecided(
                    at=d.at,
                    pr=d.pr,
                    comment=d.comment,
                    database_id=r.database_id,
                    outcome=d.outcome,
                    reason=d.reason,
                    detail=d.detail,
                    worker=binding.worker,
                    notice_key=r.notice_key,
                    rules=d.rules,
                    created_at=r.created_at,
                )
            )
        for notice in result.notices:
            ids = {i.id for i in notice.items}
            woken = tuple(
                d.comment for d in result.decisions if d.outcome == "wake" and d.comment in ids
            )
            self._publish(
                NoticeQueued(
                    at=now,
                    pr=pr,
                    worker=notice.worker,
                    notice_key=notice.key,
                    comments=woken,
                    part=notice.part,
                    parts=notice.parts,
                )
            )
        for gap in result.gaps:
            self._publish(gap)
        for line in result.logs:
            # Published once: the app's EventLogger writes it (the core's log lines never
            # carry an author or text, LogLine's contract).
            self._publish(Noted(at=now, level=line.level, pr=pr, message=line.message))

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
            # Reviews are read to their first page of inline comments, except the token's
            # own (the re-review and own-post rules read every text): a stranger's long
            # review costs one page; the rest is read once its author passes write-access.
            items = _items(status, facts.gaps)
            partial = {i for i in needs.details if i in items and not items[i].viewer_did_author}
            try:
                found = (
                    await self._details(needs.details, partial)
                    if self._details is not None
                    else await read_details(
                        self._api,
                        needs.details,
                        batch=self._monitor.detail_batch,
                        inline_window=self._monitor.inline_window,
                        first_page_only=partial,
                    )
                )
            except GitHubError as exc:
                raise _ReadFailed("comment details", exc) from None
            details.update(found)
            gone.update(i for i in needs.details if i not in found)
        if needs.rest:
            try:
                whole = await read_details(
                    self._api,
                    needs.rest,
                    batch=self._monitor.detail_batch,
                    inline_window=self._monitor.inline_window,
                )
            except GitHubError as exc:
                raise _ReadFailed("a review's inline comments", exc) from None
            details.update(whole)
            gone.update(i for i in needs.rest if i not in whole)
        rereads: dict[str, ItemDetail | None] = dict(facts.rereads)
        if needs.rereads:
            # Held comments at their release: one fresh query for all of them, never the
            # monitor's prefetched bodies (those may predate a delete or an edit).
            batch = min(_MAX_DETAIL_IDS, max(self._monitor.detail_batch, len(needs.rereads)))
            try:
                fresh = await read_details(
                    self._api,
                    needs.rereads,
                    batch=batch,
                    inline_window=self._monitor.inline_window,
                )
            except GitHubError as exc:
                raise _ReadFailed("held comments at their release", exc) from None
            rereads.update((i, fresh.get(i)) for i in needs.rereads)
        gaps: dict[Connection, GapRead] = dict(facts.gaps)
        deferred = set(facts.deferred_gaps)
        for need in needs.gaps:
            gate = None if self._gap_pages is None else _Gate(self._gap_pages, self._clock)
            try:
                gaps[need.connection] = await read_gap(
                    self._api,
                    pr,
                    need.connection,
                    need.cursor,
                    stop_at=need.stop,
                    max_pages=need.max_pages,
                    more=None if gate is None else gate.more,
                )
            except GitHubError as exc:
                raise _ReadFailed(f"the {need.connection} gap", exc) from None
            if gate is not None and gate.refused:
                deferred.add(need.connection)
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
        return Facts(
            details,
            frozenset(gone),
            own_posts,
            permissions,
            gaps,
            state,
            rereads=rereads,
            posts=facts.posts,
            deferred_gaps=frozenset(deferred),
        )

    async def _own_posts(
        self,
        blob: bytes,
        pr: PrRef,
        comments: Sequence[ownpost.CommentText],
        worker: str | None,
        now: datetime,
    ) -> tuple[bytes, Mapping[str, OwnPostVerdict]]:
        state = _decode_own(blob)
        window = self._config.own_post_window
        bindings = self._bindings

        def scan() -> ownpost.OwnPostState:
            sources = tuple(bindings.transcripts(worker)) if worker is not None else ()
            _check_readable(sources)
            return ownpost.scan(state, sources, now, window=window)

        try:
            # Finding the transcripts and reading them is file and SQLite I/O: off the
            # event loop.
            scanned = await anyio.to_thread.run_sync(scan)
        except OSError as exc:
            # A post the worker made may be in the file we could not read: deciding now
            # could wake the worker on its own words, so decide nothing this time.
            raise _ReadFailed("a transcript for the own-post check", exc) from None
        matched, verdicts = ownpost.match(
            scanned, pr, comments, window=window, skew=self._config.post_clock_skew
        )
        return msgspec.msgpack.encode(matched), verdicts


def _look_reads(
    db: SyncStore, pr: PrRef, listener: str, since: datetime
) -> tuple[Mark | None, bool, KnownPosts, PrOwner | None]:
    """The PR's mark, whether a release of it is requested, the posts the worker tools
    made on it (their intents since ``since``) and its owner, in one read."""
    with db.read() as tx:
        posts = KnownPosts(*pr_posts(tx, pr, since=since))
        return load_mark(tx, pr, listener), has_release_request(tx, pr), posts, read_owner(tx, pr)


def _unfinished(binding: Binding, mark: WakeMark) -> bool:
    """No longer bound, yet the mark still holds comments that wait for a wake or a retry."""
    return not binding.is_bound and bool(mark.held or mark.pending)


# A permission answer is evidence for the rules that read one, and for a comment that
# passed them all (woken, or held by the rate limit).
_PERMISSION_REASONS = frozenset(
    {r for rule in RULES if "permission" in rule.needs for r in rule.reasons}
    | {"writer", "rate-limit", "operator-release"}
)


def _ignore(event: Event) -> None:
    pass


def _bots_lane(result: Step, d: Decision) -> bool:
    """Whether ``d`` went by the trusted bots' own windows: a trusted bot's comment woken,
    or held by those windows."""
    if d.reason == "trusted-bot":
        return True
    return d.outcome == "held" and any(
        h.item.id == d.comment and h.trusted_bot for h in result.mark.held
    )


def _notice_of(result: Step, d: Decision) -> Notice | None:
    if d.outcome != "wake":
        return None
    for notice in result.notices:
        if any(i.id == d.comment for i in notice.items):
            return notice
    return None


def _known_items(
    status: PrStatus | None, facts: Facts, mark: WakeMark | None
) -> dict[str, BadgeItem]:
    """Every comment a look may decide, by id: listed now, or held in the mark."""
    found: dict[str, BadgeItem] = {}
    if mark is not None:
        found.update((h.item.id, h.item) for h in mark.held)
        found.update((p.item.id, p.item) for p in mark.pending)
    if status is not None:
        found.update(_items(status, facts.gaps))
    return found


def _check_readable(sources: Sequence[ownpost.TranscriptSource]) -> None:
    """Raise ``OSError`` when a transcript file cannot be opened: the scan itself passes
    over a file it cannot open, which would read as "the worker posted nothing"."""
    for source in sources:
        ownpost.check_readable(source.path)


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


def _reason(exc: GitHubError | OSError) -> str:
    """A fault in one phrase: its type and status, never a body, a path or a token."""
    if isinstance(exc, OSError):
        return type(exc).__name__
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
