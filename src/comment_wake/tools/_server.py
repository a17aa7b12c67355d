"""``comment-wake mcp WORKER``: the worker tools served over MCP on stdio (the official SDK).

The server writes store rows only; it builds no monitor, wake or delivery loop (the daemon's
composition root stays the one place that does).  Each call runs in a worker thread, so a
busy store never stalls the protocol.  A refused call is an MCP result with ``isError``
and one line saying what to fix; the WORKER argument is asserted, not authenticated.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Annotated, Any, Literal, TypeVar

import anyio.to_thread
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.tools import Tool
from pydantic import BaseModel, ConfigDict, Field

from comment_wake._mcp_names import POST_TOOL_NAMES, TOOL_NAMES, server_name
from comment_wake.wake import (
    PR_REVIEW_MONITOR_TOOL_DESCRIPTION,
    PR_REVIEW_MONITOR_TOOL_DESCRIPTION_POSTING,
)

from ._tools import ToolRefused, Tools

__all__ = ["POST_TOOL_NAMES", "TOOL_NAMES", "build_server", "server_name"]


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


_REPLY = (
    "Answer a comment you were woken with (its id or URL from the notice), or one of your own "
    "posts, on your pull request: in the thread of a review comment, else as a PR comment "
    "linking it. It posts under the user's account, with a line saying an agent wrote it. "
    "addressed (done, declined, handed-off or failed) also records what became of the "
    "comment, as comment_addressed does. Answers queued and a key; a failure comes back as "
    "a post-failed notice."
)
_REVIEW = (
    "Post one comment-only review of your pull request: a summary and line comments. It "
    "never approves or requests changes. commit must be the full SHA you have checked out "
    "and the pull request's head. Line comments go on lines the diff shows: path, line, "
    "body, and optionally start_line and side (LEFT or RIGHT)."
)
_PROGRESS = (
    "Keep one progress comment on your pull request up to date with text: the first call "
    "creates it, later ones edit it at most once every few minutes (the latest text wins)."
)


class _LineArg(BaseModel):
    """One line comment of a review, as the model gives it."""

    model_config = ConfigDict(extra="forbid")

    path: str
    line: int
    body: str
    start_line: int | None = None
    side: Literal["LEFT", "RIGHT"] | None = None


def build_server(tools: Tools, *, post_tools: bool = False) -> MCPServer[Any]:
    """An MCP server offering ``tools``' four calls under ``TOOL_NAMES``, and the posting
    tools (``POST_TOOL_NAMES``) when ``post_tools``."""

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
        (
            pr_review_monitor,
            PR_REVIEW_MONITOR_TOOL_DESCRIPTION_POSTING
            if post_tools
            else PR_REVIEW_MONITOR_TOOL_DESCRIPTION,
        ),
        (comment_addressed, _ADDRESSED),
    )
    offered = [
        Tool.from_function(fn, name=name, description=description, structured_output=False)
        for name, (fn, description) in zip(TOOL_NAMES, described, strict=True)
    ]

    async def reply(
        comment: Annotated[str, Field(description="The comment: its node id, database id or URL.")],
        text: Annotated[str, Field(description="Your answer (Markdown).")],
        addressed: Annotated[
            Literal["done", "declined", "handed-off", "failed"] | None,
            Field(description="What became of the comment, when you know."),
        ] = None,
    ) -> str:
        return _json(await call(lambda: tools.reply(comment, text, addressed)))

    async def review(
        summary: Annotated[
            str, Field(description="The review's summary (Markdown); may be empty.")
        ],
        comments: Annotated[list[_LineArg], Field(description="The line comments.")],
        commit: Annotated[str, Field(description="The full SHA of the commit you reviewed.")],
    ) -> str:
        lines = [c.model_dump(exclude_none=True) for c in comments]
        return _json(await call(lambda: tools.review(summary, lines, commit)))

    async def progress(
        text: Annotated[str, Field(description="Where the work stands (Markdown).")],
    ) -> str:
        return _json(await call(lambda: tools.progress(text)))

    posting: tuple[tuple[Callable[..., Awaitable[str]], str], ...] = (
        (reply, _REPLY),
        (review, _REVIEW),
        (progress, _PROGRESS),
    )
    if post_tools:
        offered += [
            _closed(
                Tool.from_function(fn, name=name, description=description, structured_output=False)
            )
            for name, (fn, description) in zip(POST_TOOL_NAMES, posting, strict=True)
        ]
    instructions = (
        f"Tools for worker {tools.worker}: talk to your orchestrator and say what became "
        "of the comments you were woken with"
    )
    if post_tools:
        instructions += ", and answer, review and report progress on your pull request"
    return MCPServer(server_name(tools.worker), instructions=instructions + ".", tools=offered)


def _closed(tool: Tool) -> Tool:
    """``tool`` with a schema that forbids arguments it does not name, and a refusal in one
    line for any such argument: the review tool has no verdict, and an ``event`` or
    ``state`` a model adds anyway must not pass silently (seed 002)."""
    base = tool.fn_metadata.arg_model
    names = set(base.model_fields)

    class Arguments(base):  # type: ignore[valid-type, misc]
        # Extra arguments are kept, so the call can name them in its refusal.
        model_config = ConfigDict(**{**base.model_config, "extra": "allow"})

        def model_dump_one_level(self) -> dict[str, Any]:
            return {**super().model_dump_one_level(), **(self.model_extra or {})}

    inner = tool.fn

    async def refusing(**arguments: Any) -> Any:
        extra = sorted(set(arguments) - names)
        if extra:
            raise ToolError(
                f"{tool.name} takes no {', '.join(repr(e[:40]) for e in extra[:5])} argument: "
                f"it takes only {', '.join(sorted(names))}"
                + (
                    " (a review only comments: it never approves or requests changes)"
                    if tool.name == "review"
                    else ""
                )
            )
        return await inner(**arguments)

    metadata = tool.fn_metadata.model_copy(update={"arg_model": Arguments})
    schema = {**tool.parameters, "additionalProperties": False}
    return tool.model_copy(update={"fn": refusing, "fn_metadata": metadata, "parameters": schema})


def _json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)
