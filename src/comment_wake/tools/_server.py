"""``comment-wake mcp WORKER``: the worker tools served over MCP on stdio (the official SDK).

The server writes store rows only; it builds no monitor, wake or delivery loop (the daemon's
composition root stays the one place that does).  Each call runs in a worker thread, so a
busy store never stalls the protocol.  A refused call is an MCP result with ``isError``
and one line saying what to fix; the WORKER argument is asserted, not authenticated.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Annotated, Any, TypeVar

import anyio.to_thread
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from comment_wake._mcp_names import TOOL_NAMES, server_name
from comment_wake.wake import PR_REVIEW_MONITOR_TOOL_DESCRIPTION

from ._tools import ToolRefused, Tools

__all__ = ["TOOL_NAMES", "build_server", "server_name"]


_T = TypeVar("_T")

_MESSAGE = (
    "Send a message to your orchestrator, the agent that spawned you: for something outside "
    "your brief, a question only it can answer, or work another worker should do. The whole "
    "text reaches it fenced as untrusted, under a header naming you and your pull request."
)
_REPORT = (
    "Report to your orchestrator about comments you were woken with (name them by the id or "
    "URL the notice gave): what you did, or why a comment is outside your brief. The "
    "orchestrator gets your text fenced, with links to the comments."
)
_ADDRESSED = (
    "Say what became of comments you were woken with: done (the commenter sees a reaction on "
    "GitHub), declined, handed-off (you reported or messaged the orchestrator about it) or "
    "failed. Name them by the id or URL the notice gave; the last call for a comment wins."
)


def build_server(tools: Tools) -> MCPServer[Any]:
    """An MCP server offering ``tools``' four calls under ``TOOL_NAMES``."""
    server: MCPServer[Any] = MCPServer(
        server_name(tools.worker),
        instructions=(
            f"Tools for worker {tools.worker}: talk to your orchestrator and say what became "
            "of the comments you were woken with."
        ),
    )

    async def call(fn: Callable[[], _T]) -> _T:
        try:
            return await anyio.to_thread.run_sync(fn)
        except ToolRefused as exc:
            raise ToolError(str(exc)) from None

    async def message_orchestrator(
        text: Annotated[str, Field(description="What the orchestrator should know.")],
    ) -> str:
        return await call(lambda: tools.message_orchestrator(text))

    async def report(
        text: Annotated[str, Field(description="Your report.")],
        comment_ids: Annotated[
            list[str],
            Field(description="The comments it is about: node ids, database ids or URLs."),
        ] = [],  # noqa: B006 - the SDK reads the default into the schema; never mutated
    ) -> str:
        return await call(lambda: tools.report(text, comment_ids))

    async def pr_review_monitor(
        action: Annotated[
            str,
            Field(description="status (the default), watch or unwatch your pull request."),
        ] = "status",
    ) -> str:
        return _json(await call(lambda: tools.pr_review_monitor(action)))

    async def comment_addressed(
        comment_ids: Annotated[
            list[str], Field(description="The comments: node ids, database ids or URLs.")
        ],
        outcome: Annotated[str, Field(description="done, declined, handed-off or failed.")],
        note: Annotated[str, Field(description="A short note, kept with the outcome.")] = "",
    ) -> str:
        return _json(await call(lambda: tools.comment_addressed(comment_ids, outcome, note)))

    described: tuple[tuple[Callable[..., Awaitable[str]], str], ...] = (
        (message_orchestrator, _MESSAGE),
        (report, _REPORT),
        (pr_review_monitor, PR_REVIEW_MONITOR_TOOL_DESCRIPTION),
        (comment_addressed, _ADDRESSED),
    )
    for name, (fn, description) in zip(TOOL_NAMES, described, strict=True):
        server.add_tool(fn, name=name, description=description, structured_output=False)
    return server


def _json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)
