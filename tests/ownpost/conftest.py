"""Builders that write transcripts in the real Claude Code and Codex formats, and a small
world (PR, window, skew) to scan and match them in."""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from comment_wake.ownpost import (
    CommentText,
    InlineText,
    OwnPostState,
    OwnPostVerdict,
    TranscriptSource,
    match,
    scan,
)
from review_monitor import PrRef

T0 = datetime(2026, 8, 3, 14, 0, 0, tzinfo=UTC)
PR = PrRef(owner="acme", name="widget", number=7)
WINDOW = timedelta(hours=2)
SKEW = timedelta(seconds=30)
_ids = itertools.count(1000)


def iso(t: datetime) -> str:
    return t.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"


def link(n: int, number: int = 7, repo: str = "acme/widget") -> str:
    return f"https://github.com/{repo}/pull/{number}#issuecomment-{n}"


@dataclass
class Claude:
    """Writes a Claude Code session file: prompts, split assistant messages, results."""

    path: Path
    lines: list[str] = field(default_factory=list)

    def _emit(self, obj: dict[str, Any]) -> None:
        base = {
            "parentUuid": None,
            "isSidechain": False,
            "userType": "external",
            "cwd": "/work/widget",
            "sessionId": "5f0c1d2e-0000-4000-8000-000000000001",
            "version": "2.1.220",
            "gitBranch": "feat/x",
            "uuid": f"u-{next(_ids)}",
        }
        self.lines.append(json.dumps({**base, **obj}))
        self.path.write_text("\n".join(self.lines) + "\n")

    def prompt(self, text: str, at: datetime) -> None:
        self._emit(
            {"type": "user", "message": {"role": "user", "content": text}, "timestamp": iso(at)}
        )

    def tool(
        self,
        name: str,
        tool_input: dict[str, Any],
        *,
        at: datetime,
        done: datetime | None = None,
        stdout: str = "",
        failed: bool = False,
        result: Any = None,
        call_id: str | None = None,
        text_first: bool = True,
    ) -> str:
        call_id = call_id or f"toolu_{next(_ids)}"
        msg_id = f"msg_{next(_ids)}"
        if text_first:
            self._emit(
                {
                    "type": "assistant",
                    "timestamp": iso(at - timedelta(seconds=1)),
                    "message": {
                        "id": msg_id,
                        "role": "assistant",
                        "type": "message",
                        "content": [{"type": "text", "text": "Running it."}],
                    },
                }
            )
        self._emit(
            {
                "type": "assistant",
                "timestamp": iso(at),
                "message": {
                    "id": msg_id,
                    "role": "assistant",
                    "type": "message",
                    "content": [
                        {"type": "tool_use", "id": call_id, "name": name, "input": tool_input}
                    ],
                },
            }
        )
        if done is None:
            return call_id
        self.progress(done - timedelta(milliseconds=5))
        if result is None:
            if failed:
                result = f"Error: Exit code 1\n{stdout}"
            else:
                result = {"stdout": stdout, "stderr": "", "interrupted": False, "isImage": False}
        self.result(call_id, stdout, at=done, failed=failed, tool_use_result=result)
        return call_id

    def result(
        self,
        call_id: str,
        content: Any,
        *,
        at: datetime,
        failed: bool = False,
        tool_use_result: Any = None,
    ) -> None:
        obj: dict[str, Any] = {
            "type": "user",
            "timestamp": iso(at),
            "message": {
                "role": "user",
                "content": [
                    {
                        "tool_use_id": call_id,
                        "type": "tool_result",
                        "content": content,
                        "is_error": failed,
                    }
                ],
            },
        }
        if tool_use_result is not None:
            obj["toolUseResult"] = tool_use_result
        self._emit(obj)

    def progress(self, at: datetime) -> None:
        self._emit({"type": "progress", "timestamp": iso(at), "data": {"type": "hook_progress"}})

    def bash(
        self, command: str, *, at: datetime, done: datetime, stdout: str = "", **kw: Any
    ) -> str:
        return self.tool("Bash", {"command": command}, at=at, done=done, stdout=stdout, **kw)


@dataclass
class Codex:
    """Writes a Codex rollout, current envelope (``legacy=False``) or bare legacy items."""

    path: Path
    legacy: bool = False
    lines: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.legacy:
            self._raw({"id": "0199-legacy", "timestamp": iso(T0), "instructions": None})
            self._raw({"record_type": "state"})
        else:
            self._item("session_meta", {"id": "0199", "cwd": "/work/widget"}, T0)

    def _raw(self, obj: dict[str, Any]) -> None:
        self.lines.append(json.dumps(obj))
        self.path.write_text("\n".join(self.lines) + "\n")

    def _item(self, kind: str, payload: dict[str, Any], at: datetime) -> None:
        if self.legacy:
            if kind == "response_item":
                self._raw(payload)
            return
        self._raw({"timestamp": iso(at), "type": kind, "payload": payload})

    def prompt(self, text: str, at: datetime) -> None:
        message = {
            "type": "message",
            "role": "user",
            "content": [{"type": "input_text", "text": text}],
        }
        self._item("response_item", message, at)
        self._item("event_msg", {"type": "user_message", "message": text, "images": []}, at)

    def call(
        self,
        name: str,
        arguments: dict[str, Any],
        output: str,
        *,
        at: datetime,
        done: datetime,
        call_id: str | None = None,
    ) -> str:
        call_id = call_id or f"call_{next(_ids)}"
        self._item(
            "response_item",
            {
                "type": "function_call",
                "name": name,
                "arguments": json.dumps(arguments),
                "call_id": call_id,
            },
            at,
        )
        self._item(
            "response_item",
            {"type": "function_call_output", "call_id": call_id, "output": output},
            done,
        )
        return call_id

    def exec(self, cmd: str, stdout: str, *, at: datetime, done: datetime, code: int = 0) -> str:
        output = (
            f"Chunk ID: 4c81fe\nWall time: 1.0 seconds\nProcess exited with code {code}\n"
            f"Original token count: 9\nOutput:\n{stdout}"
        )
        return self.call(
            "exec_command", {"cmd": cmd, "workdir": "/work/widget"}, output, at=at, done=done
        )


@dataclass
class World:
    """Transcripts in a temporary folder, scanned and matched for PR acme/widget#7."""

    root: Path
    sources: list[TranscriptSource] = field(default_factory=list)
    state: OwnPostState = field(default_factory=OwnPostState)

    def claude(self, name: str = "worker", role: str = "worker") -> Claude:
        path = self.root / f"{name}.jsonl"
        self.sources.append(TranscriptSource(path=str(path), role=role))  # type: ignore[arg-type]
        return Claude(path)

    def codex(self, name: str = "worker", role: str = "worker", *, legacy: bool = False) -> Codex:
        path = self.root / f"{name}.jsonl"
        self.sources.append(TranscriptSource(path=str(path), role=role))  # type: ignore[arg-type]
        return Codex(path, legacy=legacy)

    def look(
        self, comments: Sequence[CommentText], *, now: datetime | None = None, pr: PrRef = PR
    ) -> dict[str, OwnPostVerdict]:
        when = now or max([c.created_at for c in comments] + [T0]) + timedelta(minutes=1)
        self.state = scan(self.state, self.sources, when, window=WINDOW)
        self.state, verdicts = match(self.state, pr, comments, window=WINDOW, skew=SKEW)
        return verdicts


def comment(
    body: str,
    at: datetime,
    *,
    cid: str | None = None,
    url: str | None = None,
    viewer: bool = True,
    kind: str = "comment",
    inline: Sequence[tuple[str, str]] = (),
) -> CommentText:
    n = next(_ids)
    return CommentText(
        id=cid or f"IC_{n}",
        kind=kind,  # type: ignore[arg-type]
        url=url or link(n),
        created_at=at,
        viewer_did_author=viewer,
        body=body,
        inline=tuple(InlineText(url=u, body=b) for u, b in inline),
    )


@pytest.fixture
def world(tmp_path: Path) -> World:
    return World(root=tmp_path)


@pytest.fixture
def make_comment() -> Callable[..., CommentText]:
    return comment


@pytest.fixture
def fixtures_dir(repo_root: Path) -> Path:
    return repo_root / "fixtures" / "transcripts"
