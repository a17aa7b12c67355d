"""The worker tools through the real CLIs: a Claude Code and a Codex session whose scripted
model calls ``message_orchestrator`` and ``comment_addressed`` under the names those CLIs
give MCP tools, beside a real daemon on FakeGitHub; the orchestrator's inbox and
FakeGitHub's reactions show the result."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from realclient_cli import Cli
from realclient_daemon import live_daemon
from realclient_model import Call, Say
from realclient_sandbox import Sandbox

pytestmark = pytest.mark.real_client

MESSAGE = "The reviewer asks for a public API change; that is outside my brief."


def test_claude_worker_messages_its_orchestrator_and_marks_the_comment_done(
    claude_cli: Cli, sandbox: Sandbox, tmp_path: Path
) -> None:
    with live_daemon(tmp_path) as live:
        comment = live.delivered_comment()
        config = json.dumps({"mcpServers": {"comment-wake": live.mcp_server()}})
        script = {
            "WORKER": [
                Call("mcp__comment-wake__message_orchestrator", {"text": MESSAGE}),
                Call(
                    "mcp__comment-wake__comment_addressed",
                    {"comment_ids": [comment["url"]], "outcome": "done", "note": "renamed"},
                ),
                Say("done"),
            ]
        }
        sandbox.claude(claude_cli, "WORKER: act on the comment", script, "--mcp-config", config)
        live.wait(lambda: bool(live.notices("lead")), "the orchestrator's message")
        live.wait(lambda: "THUMBS_UP" in live.contents(comment["id"]), "the done reaction")
        (message,) = live.notices("lead")
    assert ("worker-message", True) == (message["kind"], MESSAGE in message["text"])


def test_codex_worker_messages_its_orchestrator_and_marks_the_comment_done(
    codex_cli: Cli, sandbox: Sandbox, tmp_path: Path
) -> None:
    with live_daemon(tmp_path) as live:
        comment = live.delivered_comment()
        sandbox.codex_config(extra_mcp={"comment-wake": live.mcp_server()})
        script = {
            "WORKER": [
                Call("message_orchestrator", {"text": MESSAGE}, namespace="mcp__comment_wake"),
                Call(
                    "comment_addressed",
                    {"comment_ids": [comment["id"]], "outcome": "done"},
                    namespace="mcp__comment_wake",
                ),
                Say("done"),
            ]
        }
        sandbox.codex(codex_cli, "WORKER: act on the comment", script)
        live.wait(lambda: bool(live.notices("lead")), "the orchestrator's message")
        live.wait(lambda: "THUMBS_UP" in live.contents(comment["id"]), "the done reaction")
        (message,) = live.notices("lead")
    assert ("worker-message", True) == (message["kind"], MESSAGE in message["text"])
