"""The worker tools through the real CLIs: a Claude Code and a Codex session whose scripted
model calls ``message_orchestrator`` and ``comment_addressed`` under the names those CLIs
give MCP tools, beside a real daemon on FakeGitHub; the orchestrator's inbox and
FakeGitHub's reactions show the result.  Each client has two workers' servers registered,
under the per-worker names ``bind`` prints, and each server acts for its own worker."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from realclient_cli import Cli, codex_namespace
from realclient_daemon import OTHER, live_daemon
from realclient_model import Call, Say
from realclient_sandbox import Sandbox

from comment_wake.tools import server_name

pytestmark = pytest.mark.real_client

MESSAGE = "The reviewer asks for a public API change; that is outside my brief."
OTHER_MESSAGE = "The docs need a diagram I cannot draw."
W1 = server_name("w1")
W2 = server_name(OTHER)


def senders(messages: list[dict[str, object]]) -> list[tuple[str, bool]]:
    """(which worker, whose message) for each of the orchestrator's worker messages."""
    out = []
    for m in messages:
        text = str(m["text"])
        worker = OTHER if f"worker {OTHER}" in text else "w1" if "worker w1" in text else "?"
        out.append((worker, (OTHER_MESSAGE if worker == OTHER else MESSAGE) in text))
    return sorted(out)


def test_claude_worker_messages_its_orchestrator_and_marks_the_comment_done(
    claude_cli: Cli, sandbox: Sandbox, tmp_path: Path
) -> None:
    with live_daemon(tmp_path) as live:
        comment = live.delivered_comment()
        config = json.dumps({"mcpServers": live.mcp_servers()})
        script = {
            "WORKER": [
                Call(f"mcp__{W1}__message_orchestrator", {"text": MESSAGE}),
                Call(f"mcp__{W2}__message_orchestrator", {"text": OTHER_MESSAGE}),
                Call(
                    f"mcp__{W1}__comment_addressed",
                    {"comment_ids": [comment["url"]], "outcome": "done", "note": "renamed"},
                ),
                Say("done"),
            ]
        }
        sandbox.claude(claude_cli, "WORKER: act on the comment", script, "--mcp-config", config)
        live.wait(lambda: len(live.notices("lead")) == 2, "both workers' messages")
        live.wait(lambda: "THUMBS_UP" in live.contents(comment["id"]), "the done reaction")
        messages = live.notices("lead")
    assert ({"worker-message"}, [("w.2", True), ("w1", True)]) == (
        {m["kind"] for m in messages},
        senders(messages),
    )


def test_codex_worker_messages_its_orchestrator_and_marks_the_comment_done(
    codex_cli: Cli, sandbox: Sandbox, tmp_path: Path
) -> None:
    with live_daemon(tmp_path) as live:
        comment = live.delivered_comment()
        sandbox.codex_config(extra_mcp=live.mcp_servers())
        script = {
            "WORKER": [
                Call("message_orchestrator", {"text": MESSAGE}, namespace=codex_namespace(W1)),
                Call(
                    "message_orchestrator",
                    {"text": OTHER_MESSAGE},
                    namespace=codex_namespace(W2),
                ),
                Call(
                    "comment_addressed",
                    {"comment_ids": [comment["id"]], "outcome": "done"},
                    namespace=codex_namespace(W1),
                ),
                Say("done"),
            ]
        }
        sandbox.codex(codex_cli, "WORKER: act on the comment", script)
        live.wait(lambda: len(live.notices("lead")) == 2, "both workers' messages")
        live.wait(lambda: "THUMBS_UP" in live.contents(comment["id"]), "the done reaction")
        messages = live.notices("lead")
    assert ({"worker-message"}, [("w.2", True), ("w1", True)]) == (
        {m["kind"] for m in messages},
        senders(messages),
    )
