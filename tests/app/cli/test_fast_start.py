"""The commands a hook or a person runs often start as fast as Python does: they import
neither the fence, nor httpx, anyio, pydantic or the MCP SDK (issue 26: a Claude Code hook
runs ``inbox take`` before every prompt and at every stop, and the turn waits for it)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from comment_wake.registry import InboxSpec, Registry

HEAVY = ("untrusted_fence", "httpx", "anyio", "pydantic", "mcp")

# Runs the command line in-process and prints which heavy modules it loaded.
PROBE = f"""
import json, sys
from comment_wake.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
print(json.dumps(sorted(m for m in {HEAVY!r} if m in sys.modules)), file=sys.stderr)
"""


@pytest.fixture
def state(tmp_path: Path) -> Path:
    state = tmp_path / "state"
    with Registry.open(state) as registry:
        registry.add_orchestrator("o-1", InboxSpec())
        registry.bind("w-1", "octo/repo#1", orchestrator="o-1", publisher=InboxSpec())
        registry.bind("w-2", "octo/repo#2", orchestrator="o-1", publisher=InboxSpec())
    return state


def _loaded(*argv: str, state: Path) -> list[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("COMMENT_WAKE_")}
    env["COMMENT_WAKE_STATE_DIR"] = str(state)
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *argv],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        check=False,
    )
    last = done.stderr.strip().splitlines()[-1]
    loaded: list[str] = json.loads(last)
    return loaded


@pytest.mark.parametrize(
    "argv",
    [
        ("--version",),
        ("--help",),
        ("inbox", "take", "w-1", "--text"),
        ("inbox", "take", "w-1", "--stop-hook"),
        ("inbox", "take", "w-typo", "--text"),
        ("list",),
        ("list", "--json"),
        ("release", "octo/repo#1"),
        ("unbind", "w-2"),
    ],
    ids=" ".join,
)
def test_a_frequent_command_imports_nothing_heavy(argv: tuple[str, ...], state: Path) -> None:
    assert [] == _loaded(*argv, state=state)
