"""The daemon as a real subprocess against FakeGitHub served on loopback, for what only a
process shows: signals and the lease between two processes.

``live`` gives a FakeGitHub (one repository, one PR, a maintainer with write access and a
stranger with read access) served over HTTP on 127.0.0.1, a state directory with one
worker bound through the inbox publisher, and a TOML configuration with a 1 s poll.
``live.start()`` launches ``python -m comment_wake run`` with the token in ``GH_TOKEN``
and collects its stderr (JSON lines) in a thread.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from comment_wake.registry import InboxSpec, Registry
from review_monitor import PrRef
from review_monitor.testing import FakeGitHub

# Recognisable: no line the daemon prints may ever carry it.
TOKEN = "ghp_DaemonSentinel0123456789abcdefghijklm"
VIEWER = "octo-worker"
STRANGER = "zq-outsider"
REPO = "octo/repo"
PR = PrRef("octo", "repo", 1)
WORKER = "w1"
WAIT = 20.0  # real seconds any expected effect may take


class DaemonProcess:
    def __init__(self, proc: subprocess.Popen[str]) -> None:
        self.proc = proc
        self.lines: list[str] = []
        self.stdout = ""
        self._lock = threading.Lock()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            with self._lock:
                self.lines.append(line.rstrip("\n"))

    def records(self) -> list[dict[str, Any]]:
        with self._lock:
            lines = list(self.lines)
        out = []
        for line in lines:
            try:
                out.append(json.loads(line))
            except ValueError:
                out.append({"message": line, "level": "raw"})
        return out

    def messages(self) -> list[str]:
        return [str(r.get("message", "")) for r in self.records()]

    def wait_for(self, pred: Callable[[str], bool], timeout: float = WAIT) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for m in self.messages():
                if pred(m):
                    return m
            if self.proc.poll() is not None:
                break
            time.sleep(0.05)
        raise AssertionError("expected log line never came:\n" + "\n".join(self.messages()))

    def rounds(self) -> int:
        return sum(1 for m in self.messages() if m.startswith("poll round:"))

    def wait_rounds(self, n: int, timeout: float = WAIT) -> None:
        start = self.rounds()
        deadline = time.monotonic() + timeout
        while self.rounds() < start + n:
            if time.monotonic() > deadline or self.proc.poll() is not None:
                raise AssertionError("no poll round:\n" + "\n".join(self.messages()))
            time.sleep(0.05)

    def stop(self, sig: int = signal.SIGTERM, timeout: float = WAIT) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        code = self.proc.wait(timeout=timeout)
        assert self.proc.stdout is not None
        self.stdout = self.proc.stdout.read()
        self._reader.join(timeout=5)
        self.close()
        return code

    def close(self) -> None:
        for stream in (self.proc.stdout, self.proc.stderr):
            if stream is not None and not stream.closed:
                stream.close()

    def output(self) -> str:
        with self._lock:
            return self.stdout + "\n".join(self.lines)


class World:
    def __init__(self, tmp: Path, fake: FakeGitHub, base_url: str) -> None:
        self.tmp = tmp
        self.fake = fake
        self.base_url = base_url
        self.state_dir = tmp / "state"
        self.config = tmp / "config.toml"
        self.processes: list[DaemonProcess] = []
        self.token = TOKEN
        self.pr = PR
        self.worker = WORKER
        self.stranger = STRANGER
        self.write_config()

    def write_config(self) -> None:
        self.config.write_text(
            f"""
log_level = "info"
[github]
api_url = "{self.base_url}"
timeout = "5s"
[monitor]
poll_interval = "1s"
[wake]
wake_min_gap = "1s"
floor_lag = "5s"
[delivery]
scan_interval = "1s"
backoff_base = "1s"
backoff_cap = "2s"
reaction_backoff_base = "1s"
reaction_backoff_cap = "2s"
""",
            encoding="utf-8",
        )

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

    def bind(self) -> None:
        with Registry.open(self.state_dir) as registry:
            registry.add_orchestrator("orch", InboxSpec())
            registry.bind(WORKER, PR, orchestrator="orch", publisher=InboxSpec())

    def start(self, *args: str, env: dict[str, str] | None = None) -> DaemonProcess:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "comment_wake",
                "run",
                "--config",
                str(self.config),
                "--state-dir",
                str(self.state_dir),
                *args,
            ],
            env=env or self.env(),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        p = DaemonProcess(proc)
        self.processes.append(p)
        return p

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


@pytest.fixture
def live(tmp_path: Path) -> Iterator[World]:
    fake = FakeGitHub(viewer=VIEWER, token=TOKEN)
    fake.add_pr(REPO, 1, title="Add the widget")
    fake.set_permission(REPO, "maintainer", "write")
    fake.set_permission(REPO, STRANGER, "read")
    fake.set_permission(REPO, VIEWER, "write")
    with fake.serve_in_thread() as base_url:
        w = World(tmp_path, fake, base_url)
        try:
            yield w
        finally:
            for p in w.processes:
                if p.proc.poll() is None:
                    p.proc.kill()
                    p.proc.wait(timeout=10)
                p._reader.join(timeout=5)
                p.close()
