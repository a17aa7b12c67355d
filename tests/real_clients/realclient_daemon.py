"""A real ``comment-wake run`` process against FakeGitHub on loopback, for real CLIs whose
model calls the worker tools (``comment-wake mcp``) to act on what the daemon delivered,
and, with the posting tools on, posts on the pull request the daemon must pass over."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from comment_wake.cli._mcp import mcp_instructions
from comment_wake.registry import InboxSpec, Registry
from comment_wake.tools import server_name
from review_monitor import PrRef
from review_monitor.testing import FakeGitHub

TOKEN = "ghp_RealClientSentinel0123456789abcdefghij"
REPO = "acme/widget"
PR = PrRef("acme", "widget", 12)
OTHER = "w.2"  # a second worker, on another PR, whose server name had to change
OTHER_PR = PrRef("acme", "widget", 13)
WAIT = 30.0  # real seconds


@dataclass
class LiveDaemon:
    root: Path
    fake: FakeGitHub
    base_url: str
    post_tools: bool = False  # w1's posting tools (reply, review, progress)
    workdir: Path | None = None  # w1's checkout, whose HEAD the review tool names
    state_dir: Path = field(init=False)
    config: Path = field(init=False)
    proc: subprocess.Popen[str] | None = None
    log: IO[str] | None = None

    def __post_init__(self) -> None:
        self.state_dir = self.root / "cw-state"
        self.config = self.root / "cw-config.toml"
        self.config.write_text(
            f'[github]\napi_url = "{self.base_url}"\ntimeout = "5s"\n'
            '[monitor]\npoll_interval = "1s"\n[wake]\nwake_min_gap = "1s"\nfloor_lag = "5s"\n'
            '[delivery]\nscan_interval = "1s"\nbackoff_base = "1s"\nbackoff_cap = "2s"\n'
            'reaction_backoff_base = "1s"\nreaction_backoff_cap = "2s"\n',
            encoding="utf-8",
        )
        with Registry.open(self.state_dir) as registry:
            registry.add_orchestrator("lead", InboxSpec())
            registry.bind(
                "w1",
                PR,
                orchestrator="lead",
                publisher=InboxSpec(),
                post_tools=self.post_tools,
                workdir=None if self.workdir is None else str(self.workdir),
            )
            registry.bind(OTHER, OTHER_PR, orchestrator="lead", publisher=InboxSpec())

    def start(self) -> None:
        env = {k: v for k, v in os.environ.items() if k not in ("GITHUB_TOKEN",)}
        env.update(GH_TOKEN=TOKEN, HOME=str(self.root / "cw-home"), PYTHONUNBUFFERED="1")
        self.log = (self.root / "cw-daemon.log").open("w")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "comment_wake", "run", *self.location()],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=self.log,
            text=True,
        )

    def location(self) -> list[str]:
        return ["--config", str(self.config), "--state-dir", str(self.state_dir)]

    def mcp_server(self, worker: str = "w1") -> dict[str, Any]:
        """``worker``'s tool server as an MCP client configuration names it."""
        return {
            "command": sys.executable,
            "args": ["-m", "comment_wake", "mcp", worker, *self.location()],
        }

    def mcp_servers(self) -> dict[str, dict[str, Any]]:
        """Both workers' servers under the names ``bind`` prints: one client, two workers."""
        return {server_name(w): self.mcp_server(w) for w in ("w1", OTHER)}

    def allowed_tools(self, worker: str = "w1") -> str:
        """The ``--allowedTools`` value ``bind`` prints for ``worker``'s headless Claude."""
        text = mcp_instructions(
            worker, self.state_dir, self.config, post_tools=self.post_tools and worker == "w1"
        )
        (line,) = [line for line in text.splitlines() if "--allowedTools " in line]
        return line.split("--allowedTools ", 1)[1]

    def decisions(self, node: str) -> list[dict[str, Any]]:
        """The daemon's decisions about one comment or review, as ``comment-wake explain
        --json`` gives them (empty while it has none)."""
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "comment_wake",
                "explain",
                str(PR),
                node,
                "--json",
                *self.location(),
            ],
            capture_output=True,
            text=True,
            timeout=WAIT,
            check=False,
        )
        if done.returncode != 0:
            return []
        return [entry["record"] for entry in json.loads(done.stdout)]

    def rounds(self) -> int:
        """The poll rounds the daemon has logged."""
        return (self.root / "cw-daemon.log").read_text().count("poll round:")

    def notices(self, who: str) -> list[dict[str, Any]]:
        folder = self.state_dir / "inbox" / who
        if not folder.is_dir():
            return []
        return [json.loads(p.read_text(encoding="utf-8")) for p in sorted(folder.rglob("*.json"))]

    def wait(self, pred: Callable[[], bool], what: str) -> None:
        end = time.monotonic() + WAIT
        while not pred():
            if self.proc is not None and self.proc.poll() is not None:
                log = (self.root / "cw-daemon.log").read_text()[-2000:]
                raise AssertionError(f"the daemon exited waiting for {what}: {log}")
            if time.monotonic() > end:
                raise AssertionError(f"{what} did not happen within {WAIT} s")
            time.sleep(0.2)

    def delivered_comment(self) -> dict[str, Any]:
        """A maintainer's comment, once the daemon has delivered it to w1 and reacted."""
        log = self.root / "cw-daemon.log"
        self.wait(lambda: "poll round" in log.read_text(), "the first poll round (the baseline)")
        node = self.fake.post_comment(PR, "maintainer", "Please rename the widget.")
        self.wait(lambda: bool(self.notices("w1")), "the comment's notice")
        self.wait(lambda: bool(self.fake.reactions(node)), "the pick-up reaction")
        (item,) = self.notices("w1")[0]["items"]
        return dict(item)

    def contents(self, node: str) -> set[str]:
        return {content for content, _ in self.fake.reactions(node)}

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=WAIT)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.log is not None:
            self.log.close()


@contextmanager
def live_daemon(
    root: Path,
    *,
    post_tools: bool = False,
    workdir: Path | None = None,
    head: str | None = None,
    diff: dict[str, list[int]] | None = None,
) -> Iterator[LiveDaemon]:
    """A daemon on FakeGitHub; ``post_tools`` and ``workdir`` go to w1's binding, and
    ``head`` and ``diff`` make PR 12's head commit and the lines a review may comment on."""
    fake = FakeGitHub(viewer="octo-worker", token=TOKEN)
    fake.add_pr(REPO, PR.number, title="Add the widget")
    if head is not None:
        fake.push(PR, head)
    if diff is not None:
        fake.set_diff(PR, diff)
    fake.add_pr(REPO, OTHER_PR.number, title="Document the widget")
    fake.set_permission(REPO, "maintainer", "write")
    fake.set_permission(REPO, "octo-worker", "write")
    with fake.serve_in_thread() as base_url:
        live = LiveDaemon(root, fake, base_url, post_tools=post_tools, workdir=workdir)
        live.start()
        try:
            yield live
        finally:
            live.stop()
