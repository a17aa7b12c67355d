"""Claude Code transcript lines, as Claude Code writes them (one JSON object per line).

The demo's worker "posts" its own comment the way a real session does: an assistant
message with a ``Bash`` tool call running ``gh pr comment``, then the tool's result
printing the new comment's link.  The own-post matcher reads exactly that.
"""

from __future__ import annotations

import json
import shlex
from datetime import UTC, datetime
from typing import Any

__all__ = ["ClaudeTranscript"]


def _ts(t: datetime) -> str:
    return t.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"


class ClaudeTranscript:
    """Builds the lines of one Claude Code session (pure: times are arguments)."""

    def __init__(self, session_id: str, cwd: str, branch: str) -> None:
        self.session_id = session_id
        self._common = {
            "isSidechain": False,
            "userType": "external",
            "cwd": cwd,
            "sessionId": session_id,
            "version": "2.1.220",
            "gitBranch": branch,
        }
        self._n = 0

    def _line(self, kind: str, at: datetime, **fields: Any) -> str:
        self._n += 1
        entry = {**self._common, "type": kind, "uuid": f"u{self._n}", "timestamp": _ts(at)}
        entry.update(fields)
        return json.dumps(entry, ensure_ascii=False) + "\n"

    def prompt(self, at: datetime, text: str) -> str:
        """A user prompt: it starts a turn."""
        return self._line("user", at, parentUuid=None, message={"role": "user", "content": text})

    def post_comment(
        self, started: datetime, finished: datetime, *, repo: str, number: int, body: str, url: str
    ) -> str:
        """The two lines of a ``gh pr comment`` call and its result printing ``url``."""
        call_id = f"toolu_demo{self._n + 1}"
        command = f"gh pr comment {number} --repo {repo} --body {shlex.quote(body)}"
        call = self._line(
            "assistant",
            started,
            requestId=f"req_{self._n + 1}",
            message={
                "model": "claude-opus-4-7",
                "id": f"msg_{self._n + 1}",
                "type": "message",
                "role": "assistant",
                "content": [
                    {
                        "type": "tool_use",
                        "id": call_id,
                        "name": "Bash",
                        "input": {"command": command, "description": "Answer on the PR"},
                    }
                ],
                "stop_reason": None,
            },
        )
        result = self._line(
            "user",
            finished,
            message={
                "role": "user",
                "content": [
                    {
                        "tool_use_id": call_id,
                        "type": "tool_result",
                        "content": url,
                        "is_error": False,
                    }
                ],
            },
            toolUseResult={
                "stdout": url + "\n",
                "stderr": "",
                "interrupted": False,
                "isImage": False,
            },
        )
        return call + result
