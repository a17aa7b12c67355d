"""Worker tools: what a bound worker's notice tells it to use, served over MCP.

``comment-wake mcp WORKER`` (``serve``) offers one worker four tools on stdio:
``message_orchestrator`` and ``report`` (notices of kinds ``worker-message`` and
``worker-report`` for its orchestrator), ``pr_review_monitor`` (``status``, ``watch``,
``unwatch`` of its own PR) and ``comment_addressed`` (what became of a delivered comment;
``done`` adds the done reaction on GitHub).  ``WorkerTools`` is the same over a store,
for session managers that serve tools their own way.  See docs/worker-tools.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from comment_wake._lazy import lazy_exports

if TYPE_CHECKING:
    from comment_wake.delivery import WORKER_MESSAGE_KIND, WORKER_REPORT_KIND

    from ._messages import WorkerKind, worker_notice
    from ._serve import serve, worker_tools
    from ._server import POST_TOOL_NAMES, TOOL_NAMES, build_server, server_name
    from ._tools import ToolLimits, ToolRefused, Tools, UnavailableTools, WorkerTools

__all__ = [
    "POST_TOOL_NAMES",
    "TOOL_NAMES",
    "WORKER_MESSAGE_KIND",
    "WORKER_REPORT_KIND",
    "ToolLimits",
    "ToolRefused",
    "Tools",
    "UnavailableTools",
    "WorkerKind",
    "WorkerTools",
    "build_server",
    "serve",
    "server_name",
    "worker_notice",
    "worker_tools",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    globals(),
    {
        "comment_wake.delivery": ("WORKER_MESSAGE_KIND", "WORKER_REPORT_KIND"),
        "._messages": ("WorkerKind", "worker_notice"),
        "._serve": ("serve", "worker_tools"),
        "._server": ("POST_TOOL_NAMES", "TOOL_NAMES", "build_server", "server_name"),
        "._tools": ("ToolLimits", "ToolRefused", "Tools", "UnavailableTools", "WorkerTools"),
    },
)
