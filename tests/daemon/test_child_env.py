"""A worker's command, run by the daemon, sees none of the daemon's secrets (issue 13, item 2)."""

from __future__ import annotations

import json
import sys
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

import anyio
import pytest

from comment_wake.registry import CommandSpec, InboxSpec, Registry, WebhookSpec

pytestmark = pytest.mark.anyio

SECRETS = {
    "GH_TOKEN": "ghp_daemon_token_value",
    "COMMENT_WAKE_WEBHOOK_SECRET": "hint-secret",
    "ORCH_HOOK_SECRET": "orchestrator-publisher-secret",
}
GIVEN = {"PROVIDER_KEY": "provider-key", "ANTHROPIC_API_KEY": "sk-ant-worker"}


async def test_the_workers_command_gets_the_given_names_and_no_daemon_secret(
    world: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    for name, value in {**SECRETS, **GIVEN}.items():
        monkeypatch.setenv(name, value)
    out = tmp_path / "seen.json"
    names = sorted({*SECRETS, *GIVEN})
    program = (
        "import json, os, sys; sys.stdin.buffer.read(); "
        f"json.dump({{k: os.environ.get(k) for k in {names!r}}}, open({str(out)!r}, 'w'))"
    )
    with Registry.open(world.state_dir) as registry:
        registry.add_orchestrator("orch", InboxSpec())
        registry.add_orchestrator("boss", WebhookSpec("https://boss.example/h", "ORCH_HOOK_SECRET"))
        registry.bind(
            world.worker,
            world.pr,
            orchestrator="orch",
            publisher=CommandSpec((sys.executable, "-c", program), env=("PROVIDER_KEY",)),
        )
    async with world.running():
        world.fake.post_comment(world.pr, "maintainer", "please rename the widget")
        deadline = time.monotonic() + 60  # the command is a real process, on real time
        while not out.exists() and time.monotonic() < deadline:
            await world.clock.advance(timedelta(seconds=1))
            await anyio.sleep(0.05)
    expected = {**dict.fromkeys(SECRETS), **GIVEN}
    assert expected == json.loads(out.read_text())
