"""``comment-wake mcp WORKER``: serve a bound worker's tools over MCP on stdio."""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path
from typing import Any

from comment_wake._mcp_names import LEGACY_SERVER_NAME, POST_TOOL_NAMES, TOOL_NAMES, server_name
from comment_wake.cli._common import add_location_options, load_location

__all__ = ["mcp_instructions", "register"]


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    p = subparsers.add_parser(
        "mcp",
        help="serve a worker's tools (message_orchestrator, report, pr_review_monitor, "
        "comment_addressed) over MCP on stdio",
        description="Serve the Model Context Protocol on stdin/stdout for one bound worker: "
        "the tools its notices tell it to use.  Claude Code and Codex start it themselves "
        "(see `comment-wake bind`'s output and docs/worker-tools.md).  The server writes "
        "store rows only; the daemon delivers the messages and the reactions.",
    )
    p.add_argument("worker", metavar="WORKER", help="the bound worker the tools act for")
    add_location_options(p)
    p.set_defaults(handler=_mcp)


def _mcp(args: argparse.Namespace) -> int:
    # A configuration error is one line from ``main`` (exit 2), as for every command.
    config, state_dir = load_location(args)
    import anyio

    from comment_wake._logging import quiet_libraries
    from comment_wake.tools import serve  # the SDK, only for this command

    # The server keeps the store's default wait for a PostgreSQL server (it runs as long
    # as its worker); an unreachable one is its tools' answer, not the pool's warnings.
    quiet_libraries()

    anyio.run(serve, args.worker, config, state_dir)
    return 0


def mcp_instructions(
    worker: str, state_dir: Path, config: Path | None = None, *, post_tools: bool = False
) -> str:
    """How to register ``worker``'s tool server with Claude Code and with Codex.  The CLIs
    start it without the operator's environment, so the paths are absolute.  With
    ``post_tools`` (the worker's posting tools are on) a headless Claude Code is allowed
    those too: ``-p`` refuses every tool its ``--allowedTools`` does not name."""
    argv = [
        sys.executable,
        "-m",
        "comment_wake",
        "mcp",
        worker,
        "--state-dir",
        str(state_dir.resolve()),
    ]
    if config is not None:
        argv += ["--config", str(config.resolve())]
    command = shlex.join(argv)
    name = server_name(worker)
    tools = TOOL_NAMES + POST_TOOL_NAMES if post_tools else TOOL_NAMES
    allowed = ",".join(f"mcp__{name}__{t}" for t in tools)
    toml_args = ", ".join(json.dumps(a) for a in argv[1:])
    return "\n".join(
        [
            f"worker tools for {worker}, server {name} (docs/worker-tools.md):",
            f"  Claude Code: claude mcp add {name} -- {command}",
            f"    headless runs: claude -p ... --allowedTools {allowed}",
            "  Codex (~/.codex/config.toml):",
            f"    [mcp_servers.{json.dumps(name)}]",
            f"    command = {json.dumps(argv[0])}",
            f"    args = [{toml_args}]",
            "    startup_timeout_sec = 30",
            "    required = true  # Codex waits for the server before the turn",
            # Before names were per worker every worker registered the same name, so two
            # workers in one directory or one CODEX_HOME shared one server (issue 25, 10).
            f"  an older comment-wake registered every worker as {LEGACY_SERVER_NAME!r};"
            f" remove it: claude mcp remove {LEGACY_SERVER_NAME} (Claude Code),"
            f" and delete [mcp_servers.{LEGACY_SERVER_NAME}] (Codex)",
        ]
    )
