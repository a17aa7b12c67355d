"""The worker tool server's names, without the MCP SDK (every other command, a hook's
``inbox take`` among them, would pay for importing it)."""

from __future__ import annotations

__all__ = ["SERVER_NAME", "TOOL_NAMES"]

SERVER_NAME = "comment-wake"
"""The name the server gives itself (Claude Code calls its tools ``mcp__comment-wake__*``,
Codex ``mcp__comment_wake``'s)."""
TOOL_NAMES = ("message_orchestrator", "report", "pr_review_monitor", "comment_addressed")
"""The tools the server offers."""
