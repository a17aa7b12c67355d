"""The recipes hand the agent CLI the environment the command publisher gave them, unchanged."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from comment_wake.delivery import CommandPublisher, child_environment
from review_monitor import Delivered, Notice

NoticeFactory = Callable[..., Notice]
Script = Callable[[str, str], Path]
pytestmark = pytest.mark.anyio

THREAD = "3f1e2a4c-0d6b-4e55-9b1a-1c2d3e4f5a6b"

# Both fakes write their whole environment to $FAKE_ENV_LOG, then answer as the real CLI.
FAKE_CLAUDE = f"""
import json, os, sys
sys.stdin.read()
json.dump(dict(os.environ), open(os.environ["FAKE_ENV_LOG"], "w"))
print(json.dumps({{"type": "result", "subtype": "success", "is_error": False,
                  "num_turns": 1, "result": "ok", "session_id": "{THREAD}"}}))
"""
FAKE_CODEX = f"""
import json, os, sys
sys.stdin.read()
json.dump(dict(os.environ), open(os.environ["FAKE_ENV_LOG"], "w"))
for event in ({{"type": "thread.started", "thread_id": "{THREAD}"}}, {{"type": "turn.started"}},
              {{"type": "turn.completed", "usage": {{}}}}):
    print(json.dumps(event))
"""


@pytest.fixture(autouse=True)
def daemon_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The daemon's environment: a codex home with the thread, a locale, secrets, a key."""
    monkeypatch.setenv("LANG", "C.UTF-8")  # no locale coercion by the recipe's Python
    monkeypatch.setenv("COMMENT_WAKE_STATE_DIR", str(tmp_path / "state"))
    day = tmp_path / "codex-home" / "sessions" / "2026" / "08" / "04"
    day.mkdir(parents=True)
    (day / f"rollout-2026-08-04T10-00-00-{THREAD}.jsonl").write_text('{"type":"x"}\n')
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex-home"))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude-home"))
    monkeypatch.setenv("COMMENT_WAKE_WEBHOOK_SECRET", "hint-secret")
    monkeypatch.setenv("GH_TOKEN", "ghp_daemon_token_value")
    monkeypatch.setenv("PROVIDER_KEY", "provider-key")


@pytest.mark.parametrize(("name", "fake"), [("claude", FAKE_CLAUDE), ("codex", FAKE_CODEX)])
async def test_the_cli_gets_exactly_the_environment_the_recipe_got(
    name: str,
    fake: str,
    make_notice: NoticeFactory,
    script: Script,
    tmp_path: Path,
) -> None:
    cli = script(name, fake)
    log = tmp_path / "env.json"
    argv = [sys.executable, "-m", f"comment_wake.delivery.recipes.{name}"]
    argv += ["--session-id", THREAD, f"--{name}", str(cli)]
    publisher = CommandPublisher(
        argv, timeout=60, env={"FAKE_ENV_LOG": str(log)}, pass_env=("PROVIDER_KEY",)
    )
    notice = make_notice()
    outcome = await publisher.publish(notice)
    expected = {
        **child_environment(os.environ, extra=("PROVIDER_KEY",)),
        "FAKE_ENV_LOG": str(log),
        "COMMENT_WAKE_WORKER": notice.worker,
        "COMMENT_WAKE_PR": f"{notice.pr.repo}#{notice.pr.number}",
        "COMMENT_WAKE_KIND": notice.kind,
        "COMMENT_WAKE_KEY": notice.key,
    }
    assert (Delivered(session_id=THREAD), expected) == (outcome, json.loads(log.read_text()))
