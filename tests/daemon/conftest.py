"""The daemon in process on virtual time: a ``Daemon`` over FakeGitHub's transport.

``world`` gives a FakeGitHub on a ``VirtualClock`` (one repository, one PR, a maintainer
with write access and a stranger with read access), a state directory with one worker
bound through the inbox publisher (real files), a real SQLite store, and a TOML
configuration file with a 1 s poll that both the in-process daemon and the command line
read.  ``async with world.running() as run`` starts ``Daemon.run`` and returns after its
first poll round (the baseline); ``world.until`` moves the clock one deadline at a time
until something holds.  Nothing waits in real time: an effect that never comes fails
after ten virtual minutes, not twenty real seconds.

``logs`` sends the root logger through ``configure_logging``'s JSON formatter into a
buffer, with the token added to the redactor as ``comment-wake run`` does: its lines are
what the daemon would print on stderr.

The clock starts a minute before the real now, so ``comment-wake status`` and
``explain`` (which read the store at the wall clock) see the run as recent.
"""

from __future__ import annotations

import io
import json
import logging
import os
import subprocess
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import anyio
import pytest

from comment_wake._logging import configure_logging
from comment_wake.config import load_config
from comment_wake.daemon import Daemon
from comment_wake.events import PollRound
from comment_wake.events.testing import EventRecorder
from comment_wake.registry import InboxSpec, Registry
from review_monitor import PrRef
from review_monitor.testing import FakeGitHub, VirtualClock

# Recognisable: no line the daemon prints may ever carry it.
TOKEN = "ghp_DaemonSentinel0123456789abcdefghijklm"
VIEWER = "octo-worker"
STRANGER = "zq-outsider"
REPO = "octo/repo"
PR = PrRef("octo", "repo", 1)
WORKER = "w1"
LIMIT = timedelta(minutes=10)  # virtual time any expected effect may take


class LogCapture:
    """The JSON lines the daemon's logging would print, one string each."""

    def __init__(self, stream: io.StringIO) -> None:
        self._stream = stream

    @property
    def lines(self) -> list[str]:
        return self._stream.getvalue().splitlines()

    def output(self) -> str:
        return self._stream.getvalue()

    def records(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.lines]

    def messages(self) -> list[str]:
        return [str(r.get("message", "")) for r in self.records()]


@pytest.fixture
def logs() -> Iterator[LogCapture]:
    root = logging.getLogger()
    level = root.level
    quiet = {name: logging.getLogger(name).level for name in ("httpx", "httpcore", "psycopg.pool")}
    stream = io.StringIO()
    redactor = configure_logging("json", "info", stream=stream)
    redactor.add_secret(TOKEN)  # as ``comment-wake run`` does once it has the token
    (handler,) = [h for h in root.handlers if getattr(h, "stream", None) is stream]
    try:
        yield LogCapture(stream)
    finally:
        root.removeHandler(handler)
        handler.close()
        root.setLevel(level)
        for name, old in quiet.items():
            logging.getLogger(name).setLevel(old)


@dataclass
class Run:
    """One ``Daemon.run`` under way."""

    daemon: Daemon
    events: EventRecorder

    def rounds(self) -> int:
        return sum(1 for e in self.events.events if isinstance(e, PollRound))


@dataclass(frozen=True)
class Story:
    """The node ids of the two comments ``World.story`` posted."""

    trusted: str
    stranger: str


@dataclass
class World:
    tmp: Path
    clock: VirtualClock
    fake: FakeGitHub
    token: str = TOKEN
    pr: PrRef = PR
    worker: str = WORKER
    stranger: str = STRANGER
    api_url: str = "https://api.github.com"
    runs: list[Run] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.state_dir = self.tmp / "state"
        self.config = self.tmp / "config.toml"
        self.write_config()

    def write_config(self, extra: str = "", *, poll: str = "1s", gap: str = "1s") -> None:
        self.config.write_text(
            f"""
log_level = "info"
[github]
api_url = "{self.api_url}"
timeout = "5s"
[monitor]
poll_interval = "{poll}"
[wake]
wake_min_gap = "{gap}"
floor_lag = "5s"
[delivery]
scan_interval = "1s"
backoff_base = "1s"
backoff_cap = "2s"
reaction_backoff_base = "1s"
reaction_backoff_cap = "2s"
{extra}
""",
            encoding="utf-8",
        )

    def bind(self) -> None:
        with Registry.open(self.state_dir) as registry:
            registry.add_orchestrator("orch", InboxSpec())
            registry.bind(WORKER, PR, orchestrator="orch", publisher=InboxSpec())

    @asynccontextmanager
    async def running(
        self,
        *,
        dry_run: bool = False,
        environ: dict[str, str] | None = None,
        baseline: bool = True,
    ) -> AsyncIterator[Run]:
        """The daemon, running, past its first poll round (``baseline``; with nothing
        watched there is none), or just started; cancelled on leaving."""
        events = EventRecorder()
        daemon = Daemon(
            load_config(self.config),
            self.state_dir,
            token=TOKEN,
            dry_run=dry_run,
            clock=self.clock,
            transport=self.fake.transport(),
            environ={} if environ is None else environ,
            subscribers=[events],
        )
        run = Run(daemon, events)
        self.runs.append(run)
        async with anyio.create_task_group() as tg:
            tg.start_soon(daemon.run)
            with anyio.fail_after(30):  # real seconds: the store opening, not time
                await daemon.ready.wait()
            if baseline:
                await self.until(lambda: run.rounds() >= 1, "the first poll round")
            yield run
            tg.cancel_scope.cancel()

    async def until(self, pred: Callable[[], bool], what: str, limit: timedelta = LIMIT) -> None:
        """Move the clock from deadline to deadline until ``pred()`` holds."""
        end = self.clock.now() + limit
        await self.clock.settle()
        while not pred():
            deadline = self.clock.next_deadline()
            if deadline is None or deadline > end:
                raise AssertionError(f"{what} did not happen within {limit} of virtual time")
            await self.clock.advance_to(deadline)

    async def rounds(self, run: Run, n: int) -> None:
        start = run.rounds()
        await self.until(lambda: run.rounds() >= start + n, f"{n} more poll round(s)")

    async def story(self, during: Callable[[Run], Awaitable[None]] | None = None) -> Story:
        """A stranger's and a trusted comment through a daemon run, which then stops;
        ``during`` is awaited while the daemon still runs, after both are decided."""
        self.bind()
        async with self.running() as run:
            stranger = self.fake.post_comment(self.pr, self.stranger, "hello there")
            trusted = self.fake.post_comment(self.pr, "maintainer", "please rename the widget")
            await self.until(lambda: len(self.delivered_texts()) == 1, "the notice")
            await self.until(
                lambda: any(d.reason == "not-writer" for d in run.events.decisions),
                "the stranger's decision",
            )
            await self.rounds(run, 1)
            if during is not None:
                await during(run)
        return Story(trusted=trusted, stranger=stranger)

    def inbox(self) -> Path:
        return self.state_dir / "inbox" / WORKER

    def delivered_texts(self) -> list[str]:
        """The texts of every notice file in the worker's inbox (taken or not)."""
        out: list[str] = []
        folder = self.inbox()
        if not folder.is_dir():
            return out
        for path in sorted(folder.rglob("*.json")):
            try:
                out.append(json.loads(path.read_text(encoding="utf-8")).get("text", ""))
            except (ValueError, OSError):
                continue
        return out

    # -- the command line, as a real process over what the in-process run stored ---------

    def env(self, **extra: str) -> dict[str, str]:
        dropped = ("GH_TOKEN", "GITHUB_TOKEN", "COMMENT_WAKE_STATE_DIR", "COMMENT_WAKE_CONFIG")
        env = {k: v for k, v in os.environ.items() if k not in dropped}
        env.update(
            GH_TOKEN=TOKEN,
            HOME=str(self.tmp / "home"),
            XDG_STATE_HOME=str(self.tmp / "xdg-state"),
            XDG_CONFIG_HOME=str(self.tmp / "xdg-config"),
            PYTHONUNBUFFERED="1",
        )
        env.update(extra)
        return env

    def location(self) -> list[str]:
        return ["--config", str(self.config), "--state-dir", str(self.state_dir)]

    def cli(
        self, *args: str, env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "comment_wake", *args, *self.location()],
            env=env or self.env(),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )


@pytest.fixture
def world(tmp_path: Path) -> World:
    start = datetime.now(UTC).replace(microsecond=0) - timedelta(minutes=1)
    clock = VirtualClock(start)
    fake = FakeGitHub(clock=clock, viewer=VIEWER, token=TOKEN)
    fake.add_pr(REPO, 1, title="Add the widget")
    fake.set_permission(REPO, "maintainer", "write")
    fake.set_permission(REPO, STRANGER, "read")
    fake.set_permission(REPO, VIEWER, "write")
    return World(tmp_path, clock, fake)


@pytest.fixture
def served(world: World) -> Iterator[World]:
    """``world`` with FakeGitHub also on loopback HTTP and the configuration pointing at it
    (for ``doctor``, which makes its own client)."""
    with world.fake.serve_in_thread() as base_url:
        world.api_url = base_url
        world.write_config()
        yield world
