"""Real processes against FakeGitHub on loopback, for the command-line failures only a
process shows: the lease refused in one line (not anyio's ExceptionGroup), Ctrl-C without
a traceback, and a notice that goes from ``bind --inbox`` through the daemon to ``inbox
take`` with ``bind`` and ``inbox take`` finding the state directory in the environment."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from comment_wake.registry import InboxSpec, Registry

from .conftest import PR, WAIT, WORKER


def _cli(live: Any, *argv: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "comment_wake", *argv],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )


def _not_json(text: str) -> list[str]:
    out = []
    for line in text.splitlines():
        try:
            json.loads(line)
        except ValueError:
            out.append(line)
    return out


def test_a_second_daemon_is_refused_in_one_line_without_a_traceback(live: Any) -> None:
    live.bind()
    first = live.start()
    first.wait_rounds(1)
    second = live.start()
    code = second.proc.wait(timeout=30)
    second.stop()
    lines = _not_json("\n".join(second.lines))
    assert (1, [f"comment-wake run: another comment-wake daemon (process {first.proc.pid})"]) == (
        code,
        [line.split(" owns ")[0] for line in lines],
    )
    assert 0 == first.stop()


def test_ctrl_c_during_the_demo_exits_130_without_a_traceback(tmp_path: Path) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "comment_wake", "demo", "--dir", str(tmp_path / "demo")],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    deadline = time.monotonic() + WAIT
    seen = ""
    while "the first poll is done" not in seen and time.monotonic() < deadline:
        seen += proc.stdout.readline()
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=WAIT)
    assert (True, 130, "") == ("the first poll is done" in seen, proc.returncode, err)


def test_a_notice_goes_from_bind_through_the_daemon_to_inbox_take_by_the_state_dir_variable(
    live: Any,
) -> None:
    env = live.env(COMMENT_WAKE_STATE_DIR=str(live.state_dir))
    with Registry.open(live.state_dir) as registry:
        registry.add_orchestrator("orch", InboxSpec())
    bound = _cli(live, "bind", WORKER, str(PR), "--orchestrator", "orch", "--inbox", env=env)
    assert 0 == bound.returncode, bound.stderr
    daemon = live.start()
    daemon.wait_rounds(1)
    live.fake.post_comment(live.pr, "maintainer", "please rename the widget")
    daemon.wait_for(lambda m: "woke worker" in m)
    deadline = time.monotonic() + WAIT
    taken = ""
    while not taken and time.monotonic() < deadline:
        result = _cli(live, "inbox", "take", WORKER, "--text", env=env)
        assert (0, "") == (result.returncode, result.stderr)
        taken = result.stdout
        time.sleep(0.2)
    assert 0 == daemon.stop()
    assert "please rename the widget" in taken
