"""Plays the story against the real daemon and FakeGitHub served on loopback.

The daemon is the object ``comment-wake run`` uses (``comment_wake.daemon.Daemon``), run
in this process as an anyio task with its real store, outbox and inbox publisher in a
temporary state directory that is kept afterwards.  Decisions are read from the daemon's
own log records (ids, outcome and reason only), notices from the worker's inbox with
``take``, as a hook would.
"""

from __future__ import annotations

import functools
import tempfile
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread

from comment_wake import events
from comment_wake._paths import private_dir
from comment_wake.config import AppConfig, parse_config
from comment_wake.daemon import Daemon
from comment_wake.delivery import take
from comment_wake.registry import InboxSpec, Registry, TranscriptPath
from review_monitor import Notice
from review_monitor.testing import FakeGitHub

from ._story import Expectation, Step, Story
from ._transcript import ClaudeTranscript

__all__ = ["DemoEvent", "DemoResult", "demo_config", "demo_config_text", "play"]

# A fake token FakeGitHub insists on: never printed, like a real one.
_TOKEN = "ghp_demoToken0000000000000000000000000000"
_SESSION = "5b0c2d6e-7f18-4a39-9b4c-1d2e3f405162"
_STEP_TIMEOUT = 12.0  # real seconds one step may take before the demo gives up on it
_FIRST_POLL_TIMEOUT = 15.0
_DB_BASE = 4_200_000_000
_MIN_GAP = timedelta(seconds=5)


@dataclass(frozen=True)
class DemoEvent:
    """One timeline line: ``at`` seconds after the daemon started."""

    at: float
    kind: str  # story, github, decision, wake, notice, reaction, log
    text: str
    data: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class DemoResult:
    ok: bool
    failures: tuple[str, ...]
    seconds: float
    state_dir: Path
    inbox: Path
    transcript: Path
    config: Path
    notices: int
    comments: Mapping[str, str]  # timeline label ("c3") -> the comment's GraphQL id
    pr: str
    # timeline label -> the comment's database id, which `comment-wake explain PR ID` takes
    ids: Mapping[str, int] = field(default_factory=dict)


def demo_config_text(base_url: str) -> str:
    """The daemon's configuration file for the demo: loopback GitHub, everything shortened
    (the whole hourly budget: a 1 s poll of one PR costs 3,600 points an hour)."""
    gap = int(_MIN_GAP.total_seconds())
    return f"""\
# comment-wake demo: the daemon's configuration (FakeGitHub on loopback, short intervals)
[github]
api_url = "{base_url}"
timeout = "5s"

[monitor]
poll_interval = "1s"
budget_share = 1.0

[wake]
wake_min_gap = "{gap}s"
floor_lag = "30s"

[delivery]
scan_interval = "1s"
backoff_base = "1s"
backoff_cap = "2s"
reaction_backoff_base = "1s"
reaction_backoff_cap = "2s"
"""


def demo_config(base_url: str) -> AppConfig:
    """``demo_config_text`` validated, as ``comment-wake run --config`` would."""
    return parse_config(demo_config_text(base_url), source="demo")


_REASONS = {
    "writer": "written by a person with write access",
    "bot": "the author is a bot",
    "not-writer": "the author cannot push to the repository: a stranger's text wakes nobody",
    "own-post": "the worker's own post, found in its transcript",
    "verdict": "an approval or change request; the monitor's own notice carries it",
    "rate-limit": "too soon after the last wake; held and batched",
    "blank": "nothing visible in it",
    "baseline": "already there at the first look",
    "pr-closed": "the pull request is merged or closed",
}


class _Play:
    def __init__(self, story: Story, emit: Callable[[DemoEvent], None], tmp: Path) -> None:
        self.story = story
        self._emit = emit
        self.tmp = tmp
        self.state_dir = tmp / "state"
        self.config_path = tmp / "config.toml"
        self.transcript_path = tmp / "claude" / f"{_SESSION}.jsonl"
        self.fake = FakeGitHub(viewer=story.viewer, token=_TOKEN)
        self.pr = self.fake.add_pr(
            story.repo, story.number, title=story.pr_title, author=story.viewer
        )
        for login, role in story.permissions.items():
            self.fake.set_permission(story.repo, login, role)
        self.transcript = ClaudeTranscript(_SESSION, "/home/dev/src/widgets", "widget-cache")
        self._lock = threading.Lock()
        self._t0 = time.monotonic()
        self.rounds = 0
        self.decisions: dict[str, list[Expectation]] = {}
        self.last_wake: float | None = None
        self.notices: list[Notice] = []
        self.labels: dict[str, str] = {}
        self.ids: dict[str, int] = {}  # label -> database id
        self.failures: list[str] = []
        self._acked: set[str] = set()
        self._woken: list[str] = []
        self._db = _DB_BASE

    def now(self) -> float:
        return time.monotonic() - self._t0

    def say(self, kind: str, text: str, /, **data: Any) -> None:
        self._emit(DemoEvent(round(self.now(), 1), kind, text, data))

    # -- what the daemon tells us ------------------------------------------------------

    def on_event(self, event: events.Event) -> None:
        """The daemon's events (ids, outcomes and reasons; never text) on the timeline."""
        with self._lock:
            if isinstance(event, events.PollRound):
                self.rounds += 1
            elif isinstance(event, events.CommentDecided):
                comment, outcome, reason = event.comment, event.outcome, event.reason
                self.decisions.setdefault(comment, []).append(Expectation(outcome, reason))
                label = self.labels.get(comment, comment)
                why = _REASONS.get(reason, "")
                extra = f", {event.detail}" if event.detail else ""
                self.say(
                    "decision",
                    f"{label}: {outcome} ({reason}{extra}){': ' + why if why else ''}",
                    comment=comment,
                    outcome=outcome,
                    reason=reason,
                    detail=event.detail,
                )
                if outcome == "wake":
                    self._woken.append(comment)
            elif isinstance(event, events.NoticeQueued):
                self.last_wake = self.now()
                self.say(
                    "wake",
                    f"woke worker {event.worker} with {len(event.comments)} comment(s) "
                    f"(notice {event.notice_key[:12]}...)",
                    worker=event.worker,
                    comments=len(event.comments),
                )
            elif isinstance(event, (events.Fault, events.NoticeParked)):
                self.say("log", f"{type(event).__name__}: {event.detail}")

    # -- the worker's side -------------------------------------------------------------

    async def drain_inbox(self) -> None:
        root = self.state_dir / "inbox"
        while True:
            taken = await anyio.to_thread.run_sync(take, root, self.story.worker)
            for n in taken:
                with self._lock:
                    self.notices.append(n)
                    items = [self.labels[i.id] for i in n.items if i.id in self.labels]
                    self.say(
                        "notice",
                        f"the worker takes a {n.kind} notice"
                        + (f" about {', '.join(items)}" if items else ""),
                        key=n.key,
                        notice_kind=n.kind,
                        items=[i.id for i in n.items],
                        notice=n.text,
                        created_at=n.created_at.isoformat(),
                    )
            for comment in list(self._woken):
                if comment not in self._acked and self.fake.reactions(comment):
                    self._acked.add(comment)
                    label = self.labels.get(comment, comment)
                    self.say("reaction", f"{label} gets an 'eyes' reaction: the worker has it")
            await anyio.sleep(0.1)

    # -- steps -------------------------------------------------------------------------

    def _next_db(self) -> int:
        self._db += 1
        return self._db

    def _label(self, node_id: str, who: str, db: int) -> str:
        """The comment's timeline label, shown with the database id ``explain`` takes."""
        label = f"c{len(self.labels) + 1}"
        self.labels[node_id] = label
        self.ids[label] = db
        return f"{label} ({who}, id {db})"

    def perform(self, step: Step) -> str | None:
        """Do the step on GitHub; returns the new item's node id, if any."""
        if step.kind == "comment":
            assert step.author is not None
            db = self._next_db()
            node = self.fake.post_comment(self.pr, step.author, step.body, database_id=db)
            label = self._label(node, step.author, db)
            self.say("github", f"{label} comments: {step.body!r}", comment=node)
            return node
        if step.kind == "review":
            assert step.author is not None
            db = self._next_db()
            node = self.fake.post_review(
                self.pr, step.author, step.state, step.body, database_id=db
            )
            label = self._label(node, step.author, db)
            self.say("github", f"{label} reviews: {step.state} {step.body!r}", comment=node)
            return node
        if step.kind == "own-post":
            return self._own_post(step)
        self.fake.merge(self.pr)
        self.say("github", f"{self.pr} is merged")
        return None

    def _own_post(self, step: Step) -> str:
        # The transcript is written first, as a real session writes the call and its
        # result around the moment GitHub creates the comment.
        started = datetime.now(UTC)
        created = started + timedelta(milliseconds=400)
        db = self._next_db()
        url = f"https://github.com/{self.story.repo}/pull/{self.story.number}#issuecomment-{db}"
        lines = self.transcript.post_comment(
            started,
            started + timedelta(milliseconds=900),
            repo=self.story.repo,
            number=self.story.number,
            body=step.body,
            url=url,
        )
        with self.transcript_path.open("a", encoding="utf-8") as f:
            f.write(lines)
        node = self.fake.post_comment(
            self.pr, self.story.viewer, step.body, at=created, database_id=db
        )
        label = self._label(node, f"{self.story.viewer}'s login, posted by the worker", db)
        self.say(
            "github",
            f"{label} comments: {step.body!r} (its transcript shows `gh pr comment` "
            f"printing {url})",
            comment=node,
        )
        return node

    def satisfied(self, node: str | None, step: Step, notices_before: int) -> bool:
        with self._lock:
            seen = self.decisions.get(node, []) if node is not None else []
            if node is not None and seen[: len(step.expect)] != list(step.expect):
                return False
            if step.notice is not None:
                later = self.notices[notices_before:]
                if not any(n.kind == step.notice for n in later):
                    return False
        return True

    def mismatch(self, node: str | None, step: Step) -> str:
        seen = self.decisions.get(node, []) if node is not None else []
        got = ", ".join(str(e) for e in seen) or "nothing"
        want = ", ".join(str(e) for e in step.expect) or "no decision"
        notice = f" and a {step.notice} notice" if step.notice else ""
        return f"{step.say}: expected {want}{notice}; got {got}"


async def _wait(pred: Callable[[], bool], timeout: float) -> bool:
    with anyio.move_on_after(timeout):
        while not pred():
            await anyio.sleep(0.05)
        return True
    return False


async def play(
    story: Story, emit: Callable[[DemoEvent], None], *, workdir: Path | None = None
) -> DemoResult:
    """Play ``story``; ``emit`` gets each timeline event as it happens."""
    tmp = Path(workdir or tempfile.mkdtemp(prefix="comment-wake-demo-"))
    p = _Play(story, emit, tmp)
    private_dir(p.transcript_path.parent)
    p.transcript_path.write_text(
        p.transcript.prompt(datetime.now(UTC), f"Work on PR #{story.number}."), encoding="utf-8"
    )
    with Registry.open(p.state_dir) as registry:
        registry.add_orchestrator(story.orchestrator, InboxSpec())
        registry.bind(
            story.worker,
            p.pr,
            orchestrator=story.orchestrator,
            publisher=InboxSpec(),
            transcripts=TranscriptPath(str(p.transcript_path)),
        )
    p.say(
        "story",
        f"{story.worker} (a Claude Code session) is bound to {p.pr}; the daemon starts",
        worker=story.worker,
        pr=str(p.pr),
    )
    started = time.monotonic()
    async with p.fake.serve() as base_url, anyio.create_task_group() as tg:
        p.config_path.write_text(demo_config_text(base_url), encoding="utf-8")
        daemon = Daemon(demo_config(base_url), p.state_dir, token=_TOKEN, subscribers=[p.on_event])
        tg.start_soon(daemon.run)
        tg.start_soon(p.drain_inbox)
        if not await _wait(lambda: p.rounds >= 1, _FIRST_POLL_TIMEOUT):
            p.failures.append("the daemon never finished a first poll")
        else:
            p.say("story", "the first poll is done: from now on, every comment is news")
            await _steps(p, story)
        await anyio.sleep(0.3)  # let the inbox drain print what arrived last
        tg.cancel_scope.cancel()
    return DemoResult(
        ok=not p.failures,
        failures=tuple(p.failures),
        seconds=round(time.monotonic() - started, 1),
        state_dir=p.state_dir,
        inbox=p.state_dir / "inbox" / story.worker,
        transcript=p.transcript_path,
        config=p.config_path,
        notices=len(p.notices),
        comments={label: node for node, label in p.labels.items()},
        pr=str(p.pr),
        ids=dict(p.ids),
    )


async def _steps(p: _Play, story: Story) -> None:
    gap = _MIN_GAP.total_seconds()
    waiting: list[tuple[str | None, Step, int]] = []
    for step in story.steps:
        if step.wait_gap and p.last_wake is not None:
            left = p.last_wake + gap + 0.3 - p.now()
            if left > 0:
                p.say("story", f"(waiting {left:.1f}s: the rate limit's minimum gap)")
                await anyio.sleep(left)
        p.say("story", step.say)
        before = len(p.notices)
        node = p.perform(step)
        waiting.append((node, step, before))
        if not step.wait:
            continue
        for n, s, b in waiting:
            if not await _wait(functools.partial(p.satisfied, n, s, b), _STEP_TIMEOUT):
                p.failures.append(p.mismatch(n, s))
        waiting = []
        if p.failures:
            return
