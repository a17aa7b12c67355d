"""The replay: a scenario run through the real service on a virtual clock.

Real parts: the SQLite store in a temporary directory, ``GitHubClient`` against
``FakeGitHub`` in-process, ``Permissions``, the ``Poller`` with ``MonitorNotices`` and
``CommentWake`` as its listeners, and the own-post matcher on the scenario's transcripts.
Transcript lines are copied into the files the service reads once the virtual time
reaches their own timestamp.  An event takes effect just before a poll due at the same
instant, so that poll sees it.  Every random draw (fence nonces, retry jitter) comes
from one ``random.Random(seed)``.
"""

from __future__ import annotations

import contextlib
import functools
import json
import random
import tempfile
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

import anyio
import anyio.lowlevel

from comment_wake import events
from comment_wake.app import App, open_app
from comment_wake.config import AppConfig
from comment_wake.ownpost import TranscriptSource
from comment_wake.service import LISTENER_NAME
from comment_wake.store import open_store
from comment_wake.wake import NOTICE_KIND, Binding, Trigger
from review_monitor import GitHubConfig, Monitor, Notice, PrRef
from review_monitor.store import OutboxStatus, Store, run_inline
from review_monitor.testing import FakeGitHub, RecordedRequest, VirtualClock
from review_monitor.testing import Fault as FakeFault

from ._output import Line, iso, sort_lines
from ._scenario import Event, Scenario, WorkerSpec

__all__ = ["ReplayResult", "run_scenario", "run_scenario_sync"]

_P = ParamSpec("_P")
_T = TypeVar("_T")
_TICK = timedelta(microseconds=1)
_FIRST_DATABASE_ID = 1000
_READ_KINDS = ("badge", "detail", "gap")
_STATUSES: tuple[OutboxStatus, ...] = ("pending", "delivered", "parked", "handed-off", "merged")


@dataclass(frozen=True, slots=True)
class ReplayResult:
    lines: tuple[Line, ...]
    requests: tuple[RecordedRequest, ...]  # FakeGitHub's request log


# -- the sink and the registry -------------------------------------------------------


class _Sink:
    """The replay's output, a subscriber to the app's events."""

    def __init__(self) -> None:
        self.lines: list[Line] = []
        self.store: Store | None = None  # where a wake's notice text is read back

    def _add(
        self, type_: str, at: datetime, fields: dict[str, Any], created: datetime | None = None
    ) -> None:
        self.lines.append(Line(type_, at, fields, len(self.lines), created))

    def __call__(self, event: events.Event) -> None:
        if isinstance(event, events.CommentDecided):
            # The replay's output contract has no own-post evidence and no rule trace.
            fields: dict[str, Any] = {
                "pr": str(event.pr),
                "comment": event.comment,
                "outcome": event.outcome,
                "reason": event.reason,
                "detail": event.detail,
            }
            self._add("decision", event.at, fields, event.created_at)
        elif isinstance(event, events.NoticeQueued):
            # Events carry no text; the notice itself is in the outbox, committed already.
            assert self.store is not None
            entry = self.store.sync.entry_by_key(event.notice_key)
            text = "" if entry is None else entry.notice.text
            pr = f"{event.pr.repo}#{event.pr.number}"
            fields = {"pr": pr, "worker": event.worker, "comments": list(event.comments)}
            parts = {"part": event.part, "parts": event.parts}
            self._add("wake", event.at, {**fields, **parts, "notice": text})
        elif isinstance(event, events.Noted):
            fields = {"level": event.level, "pr": None if event.pr is None else str(event.pr)}
            self._add("log", event.at, {**fields, "message": event.message})
        elif isinstance(event, events.FloodGap):
            fields = {
                "pr": str(event.pr),
                "connection": event.connection,
                "start": None if event.start is None else iso(event.start),
                "end": iso(event.end),
                "pages_read": event.pages_read,
                "pages_allowed": event.pages_allowed,
                "reason": event.reason,
            }
            self._add("gap", event.at, fields)
        elif isinstance(event, events.Fault):
            fields = {"level": "warning", "pr": None if event.pr is None else str(event.pr)}
            self._add("log", event.at, {**fields, "message": event.detail})

    def notice(self, at: datetime, notice: Notice) -> None:
        pr = f"{notice.pr.repo}#{notice.pr.number}"
        items = [i.id for i in notice.items]
        fields = {"pr": pr, "worker": notice.worker, "kind": notice.kind, "items": items}
        self._add("notice", at, fields)


def _trigger(value: str | None) -> Trigger | None:
    return "any" if value == "any" else "mention" if value == "mention" else None


class _Registry:
    """The scenario's session manager: bindings and transcripts (``BindingSource``)."""

    def __init__(self, scenario: Scenario, transcripts: dict[str, Path]) -> None:
        self._prs = {p.ref: p for p in scenario.prs}
        self._workers: dict[str, WorkerSpec] = {w.id: w for w in scenario.workers}
        self._archived = {w.id for w in scenario.workers if w.archived}
        self._transcripts = transcripts
        # The store's watch registry, once it is open: when each watch began, which the
        # first look takes as the line between history and news (as the daemon's does).
        self.watched_since: Callable[[str, PrRef], datetime | None] | None = None

    def archive(self, worker: str) -> None:
        self._archived.add(worker)

    def is_archived(self, worker: str) -> bool:
        return worker in self._archived

    def binding(self, pr: PrRef) -> Binding:
        spec = self._prs[pr]
        w = self._workers.get(spec.worker) if spec.worker is not None else None
        archived = spec.worker in self._archived
        since = None
        if spec.worker is not None and not archived and self.watched_since is not None:
            since = self.watched_since(spec.worker, pr)
        return Binding(
            pr=pr,
            worker=spec.worker,
            spawned_by=w.spawned_by if w is not None and w.role == "worker" else None,
            archived=archived,
            watched=spec.watched,
            watched_since=since,
            trigger=_trigger(w.trigger) if w is not None else None,
            handle=w.handle if w is not None else None,
        )

    def version(self) -> int | None:
        return None  # the scenario's timeline says when a binding moves

    def refresh(self) -> frozenset[PrRef]:
        return frozenset()

    def transcripts(self, worker: str) -> Sequence[TranscriptSource]:
        found: list[TranscriptSource] = []
        own = self._transcripts.get(worker)
        if own is not None:
            found.append(TranscriptSource(str(own), "worker"))
        spec = self._workers.get(worker)
        parent = spec.spawned_by if spec is not None else None
        if parent is None:
            return found
        if (path := self._transcripts.get(parent)) is not None:
            found.append(TranscriptSource(str(path), "orchestrator"))
        for other in self._workers.values():
            path = self._transcripts.get(other.id)
            if other.id != worker and other.spawned_by == parent and path is not None:
                found.append(TranscriptSource(str(path), "sibling"))
        return found


# -- the timeline --------------------------------------------------------------------


@dataclass(order=True)
class _Action:
    at: datetime
    order: int
    # restart and poll act at their instant; everything else just before it
    exact: bool = field(compare=False)
    run: Callable[[], Awaitable[None]] = field(compare=False)


def _transcript_lines(path: Path, start: datetime) -> list[tuple[datetime, str]]:
    """Each line with the time it becomes visible: its own timestamp, or the last one
    before it (the start for lines before any timestamp)."""
    out: list[tuple[datetime, str]] = []
    when = start
    for raw in path.read_text(encoding="utf-8").splitlines(keepends=True):
        try:
            stamp = json.loads(raw).get("timestamp")
            if isinstance(stamp, str):
                parsed = datetime.fromisoformat(stamp)
                if parsed.tzinfo is not None:
                    when = parsed.astimezone(UTC)
        except (ValueError, AttributeError):
            pass
        out.append((when, raw))
    return out


class _Replay:
    def __init__(self, scenario: Scenario, seed: int, workdir: Path) -> None:
        self.s = scenario
        self.dir = workdir
        self.rng = random.Random(seed)
        self.clock = VirtualClock(scenario.start)
        self.fake = FakeGitHub(clock=self.clock, viewer=scenario.viewer, host=scenario.host)
        self.sink = _Sink()
        self.transcripts: dict[str, Path] = {}
        self.registry = _Registry(scenario, self.transcripts)
        self.scope: anyio.CancelScope | None = None
        self.stopped = anyio.Event()
        self.store: Store | None = None
        self.app: App | None = None
        self._opened: contextlib.AsyncExitStack | None = None
        self._next_db = _FIRST_DATABASE_ID
        self._taken_db = self._explicit_database_ids()
        self._order = 0
        self._tg: anyio.abc.TaskGroup | None = None
        self._seeded = False

    # -- set-up ----------------------------------------------------------------------

    def _explicit_database_ids(self) -> set[int]:
        taken: set[int] = set()
        for e in self.s.events:
            if "database_id" in e.args:
                taken.add(e.args["database_id"])
            taken.update(i.database_id for i in e.inline if i.database_id is not None)
        return taken

    def _database_id(self, given: int | None) -> int:
        if given is not None:
            return given
        while self._next_db in self._taken_db:
            self._next_db += 1
        self._taken_db.add(self._next_db)
        return self._next_db

    def _github(self) -> None:
        for spec in self.s.prs:
            self.fake.add_pr(spec.ref.repo, spec.ref.number, title=spec.title)
            if spec.state == "MERGED":
                self.fake.merge(spec.ref)
            elif spec.state == "CLOSED":
                self.fake.close(spec.ref)
        for login, level in self.s.permissions.items():
            self._set_permission(login, level)

    def _set_permission(self, login: str, level: str) -> None:
        for repo in sorted({p.ref.repo for p in self.s.prs}):
            self.fake.set_permission(repo, login, level)

    def _actions(self) -> list[_Action]:
        actions: list[_Action] = []

        def add(at: datetime, run: Callable[[], Awaitable[None]], exact: bool = False) -> None:
            self._order += 1
            actions.append(_Action(at, self._order, exact, run))

        for e in self.s.events:
            if e.kind == "flood":
                every: timedelta = e.args.get("every", timedelta(seconds=1))
                for n in range(1, e.args["count"] + 1):
                    at = e.at + every * (n - 1)
                    add(at, functools.partial(self._flood_one, e, n, at))
            else:
                add(e.at, functools.partial(self._apply, e), e.kind in ("restart", "poll"))
        for w in self.s.workers:
            if w.transcript is None:
                continue
            target = self.dir / "transcripts" / w.id / w.transcript.name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.touch()
            self.transcripts[w.id] = target
            for at, text in _transcript_lines(w.transcript, self.s.start):
                add(at, functools.partial(self._append, target, text))
        actions.sort()
        return actions

    async def _append(self, target: Path, text: str) -> None:
        with target.open("a", encoding="utf-8") as f:
            f.write(text)

    # -- events ----------------------------------------------------------------------

    async def _apply(self, e: Event) -> None:
        a = e.args
        pr = e.pr
        if e.kind == "comment":
            assert pr is not None
            self._comment(pr, e.at, a)
        elif e.kind == "review":
            assert pr is not None
            self._review(pr, e)
        elif e.kind == "edit":
            self.fake.edit(a["id"], a["body"], at=e.at)
        elif e.kind == "delete":
            self.fake.delete(a["id"])
        elif e.kind == "minimize":
            self.fake.minimize(a["id"])
        elif e.kind in ("merge", "close", "reopen"):
            assert pr is not None
            getattr(self.fake, e.kind)(pr)
        elif e.kind == "archive":
            self._archive(a["worker"])
        elif e.kind == "permission-change":
            self._set_permission(a["login"], a["permission"])
        elif e.kind == "github-outage":
            self.fake.inject(self._fault(a, kinds=_READ_KINDS))
        elif e.kind == "permission-outage":
            login = a.get("login")
            path = None if login is None else f"/collaborators/{login}/"
            self.fake.inject(self._fault(a, kinds=("permission",), path=path))
        elif e.kind == "restart":
            await self._restart()
        elif e.kind == "poll":
            assert self.app is not None
            await self.app.monitor.poll_round()

    def _archive(self, worker: str) -> None:
        """As ``comment-wake archive`` does: the worker stays known, its watch goes, so
        its PR is no longer polled; the wake's timers still run for what it holds."""
        self.registry.archive(worker)
        assert self.store is not None
        for spec in self.s.prs:
            if spec.worker == worker:
                self.store.sync.remove_watch(worker, spec.ref)

    @staticmethod
    def _fault(
        a: dict[str, Any] | Any, *, kinds: tuple[Any, ...], path: str | None = None
    ) -> FakeFault:
        status = a.get("status", 502)
        times = a.get("failures", 1)
        if status == "timeout":
            return FakeFault(timeout=True, kinds=kinds, times=times, path_contains=path)
        return FakeFault(status=status, kinds=kinds, times=times, path_contains=path)

    def _comment(self, pr: PrRef, at: datetime, a: Any) -> None:
        created = a.get("created_at", at)
        node = self.fake.post_comment(
            pr,
            a["author"],
            a.get("body", ""),
            author_type=a.get("author_type"),
            at=created if isinstance(created, datetime) else at,
            node_id=a["id"],
            database_id=self._database_id(a.get("database_id")),
        )
        self._overrides(node, a, created, "createdAt")

    def _review(self, pr: PrRef, e: Event) -> None:
        a = e.args
        submitted = a.get("submitted_at", e.at)
        node = self.fake.post_review(
            pr,
            a["author"],
            a.get("state", "COMMENTED"),
            a.get("body", ""),
            inline=[(i.path, i.line, i.body) for i in e.inline],
            author_type=a.get("author_type"),
            at=submitted if isinstance(submitted, datetime) else e.at,
            node_id=a["id"],
            database_id=self._database_id(a.get("database_id")),
            inline_ids=[(i.id, self._database_id(i.database_id)) for i in e.inline],
        )
        self._overrides(node, a, submitted, "submittedAt")

    def _overrides(self, node: str, a: Any, when: datetime | str, time_field: str) -> None:
        if isinstance(when, str):
            self.fake.corrupt(node, time_field, when)
        if "viewer_did_author" in a:
            default = a["author"].lower() == self.s.viewer.lower()
            if a["viewer_did_author"] != default:
                self.fake.corrupt(node, "viewerDidAuthor", a["viewer_did_author"])

    async def _flood_one(self, e: Event, n: int, at: datetime) -> None:
        assert e.pr is not None
        a = e.args
        body = str(a.get("body", "flood {n}")).replace("{n}", str(n))
        args = {
            "id": f"{a.get('id_prefix', 'flood-')}{n}",
            "author": a["author"],
            "author_type": a.get("author_type"),
            "body": body,
        }
        self._comment(e.pr, at, args)

    # -- the service -----------------------------------------------------------------

    def _open_store(self) -> Store:
        """The real store, each call run on the event loop instead of a worker thread:
        SQLite on a local temporary file answers in microseconds, and a thread hand-off
        per call would cost more real time than the whole simulated poll."""
        s = self.s
        store = open_store(self.dir / "state.db", clock=self.clock, executor=run_inline)
        self.registry.watched_since = store.sync.watched_since
        for spec in s.prs:
            if spec.worker is not None and not self.registry.is_archived(spec.worker):
                store.sync.add_watch(spec.worker, spec.ref, at=self.clock.now())
        if not self._seeded:
            self._seeded = True
            for spec in s.prs:
                if spec.mark_v0 is not None:
                    # What an earlier build stored: version 0, a JSON list of handled ids.
                    blob = json.dumps(list(spec.mark_v0)).encode()
                    store.sync.commit(spec.ref, LISTENER_NAME, mark=(0, blob), at=self.clock.now())
        return store

    async def _start(self, tg: anyio.abc.TaskGroup) -> None:
        s = self.s
        self.store = self._open_store()
        self.sink.store = self.store
        config = AppConfig(github=GitHubConfig(host=s.host), monitor=s.monitor, wake=s.wake)
        stack = contextlib.AsyncExitStack()
        self.app = await stack.enter_async_context(
            open_app(
                config,
                state_dir=self.dir,
                token="replay-token",
                transport=self.fake.transport(),
                clock=self.clock,
                rng=self.rng,
                store=self.store,
                bindings=self.registry,
                deliver=False,
            )
        )
        self._opened = stack
        self.app.subscribe(self.sink)
        self.scope = anyio.CancelScope()
        tg.start_soon(self._serve, self.app.monitor, self.scope)
        await self.clock.settle()

    @staticmethod
    async def _serve(monitor: Monitor, scope: anyio.CancelScope) -> None:
        # The monitor's run serves the poller and the wake's timers; the replay drives
        # GitHub and time itself, so the app's housekeeping is not needed here.
        with scope:
            await monitor.run()

    async def _stop(self) -> None:
        assert self.scope is not None
        assert self.store is not None
        assert self._opened is not None
        self.scope.cancel()
        await self.clock.settle()
        await self._opened.aclose()
        self.store.close()

    async def _restart(self) -> None:
        assert self._tg is not None
        await self._stop()
        await self._start(self._tg)

    # -- the run ---------------------------------------------------------------------

    async def run(self) -> ReplayResult:
        self._github()
        actions = self._actions()
        start = self.s.start
        for action in [a for a in actions if a.at <= start and not a.exact]:
            await action.run()
        later = [a for a in actions if a.at > start or a.exact]
        async with anyio.create_task_group() as tg:
            self._tg = tg
            for path in self.transcripts.values():
                path.touch()
            await self._start(tg)
            for action in later:
                if action.at > self.s.end:
                    break
                target = action.at if action.exact else action.at - _TICK
                if target > self.clock.now():
                    await self.clock.advance_to(target)
                await action.run()
                await self.clock.settle()
            if self.s.end > self.clock.now():
                await self.clock.advance_to(self.s.end)
            assert self.store is not None
            entries = self.store.sync.entries(statuses=_STATUSES)
            for entry in entries:
                if entry.notice.kind != NOTICE_KIND:
                    self.sink.notice(entry.created_at, entry.notice)
            await self._stop()
        return ReplayResult(tuple(sort_lines(self.sink.lines)), self.fake.requests)


async def run_scenario(scenario: Scenario, *, seed: int = 0) -> ReplayResult:
    """Replay ``scenario`` and return its output lines, in output order."""
    with tempfile.TemporaryDirectory(prefix="comment-wake-replay-") as tmp:
        return await _Replay(scenario, seed, Path(tmp)).run()


def run_scenario_sync(scenario: Scenario, *, seed: int = 0) -> ReplayResult:
    """``run_scenario`` on a fresh event loop (asyncio)."""
    return anyio.run(functools.partial(run_scenario, scenario, seed=seed))
