"""Ctrl-C while ``comment-wake mcp`` starts (importing the command line, then the MCP SDK)
is exit 130 without a traceback, as for every command (issue 25, item 18)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from comment_wake.registry import InboxSpec, Registry


@pytest.fixture
def state(tmp_path: Path) -> Path:
    state = tmp_path / "state"
    with Registry.open(state) as registry:
        registry.add_orchestrator("o-1", InboxSpec())
        registry.bind("w-1", "octo/repo#1", orchestrator="o-1", publisher=InboxSpec())
    return state


def _interrupted_once_importing(module: str, state: Path) -> tuple[int, str]:
    """Start ``comment-wake mcp`` and send SIGINT right after Python reports (``-X
    importtime``) that it imported ``module``: (exit status, stderr without those lines)."""
    argv = [sys.executable, "-X", "importtime", "-m", "comment_wake", "mcp", "w-1"]
    env = {k: v for k, v in os.environ.items() if not k.startswith("COMMENT_WAKE_")}
    imported = re.compile(rf"^import time:.*\|\s*{re.escape(module)}$")
    with subprocess.Popen(
        [*argv, "--state-dir", str(state)],
        stdin=subprocess.PIPE,  # open: the server would wait for a client
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    ) as proc:
        assert proc.stderr is not None
        try:
            said: list[str] = []
            for line in proc.stderr:
                said.append(line)
                if imported.match(line.rstrip()):
                    break
            proc.send_signal(signal.SIGINT)
            said += proc.stderr.readlines()
            status = proc.wait(timeout=60)
        finally:
            proc.kill()
    rest = "".join(line for line in said if not line.startswith("import time:"))
    return status, rest


@pytest.mark.parametrize(
    "module",
    [
        # Inside ``import comment_wake.cli`` (the entry point's first step; Python's own
        # start-up and runpy before it are out of any program's reach).
        "comment_wake.cli._errors",
        "comment_wake.cli._common",  # the parser being built
        "mcp",  # the SDK being imported by the handler
    ],
)
def test_ctrl_c_while_mcp_starts_is_exit_130_and_silent(module: str, state: Path) -> None:
    assert (130, "") == _interrupted_once_importing(module, state)


def test_the_entry_point_is_reached_before_any_module_but_the_package() -> None:
    # Ctrl-C before ``comment_wake.__main__.run``'s guard is Python's traceback: importing
    # the package on the way there loads nothing more (it loaded ``typing``, re and
    # importlib, a window of some 10 ms at every start).
    probe = (
        "import sys; before = set(sys.modules); import comment_wake.__main__; "
        "print(' '.join(sorted(set(sys.modules) - before)))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout.split()
    assert ["__future__", "comment_wake", "comment_wake.__main__"] == loaded
