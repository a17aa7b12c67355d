"""Incremental transcript readers for Claude Code and Codex (the only file I/O).

One reader per file: it resumes at its offset, leaves an incomplete last line for later,
and starts again from the top when the file shrank or was replaced. It keeps only what
own-post matching needs: calls still waiting for a result that post or write files, the
times turns started, the files the thread wrote (as hashes), and the posts it found.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import msgspec

from ._model import (
    CallPlan,
    PendingCall,
    PlannedWrite,
    PostRecord,
    Role,
    SourceState,
    WrittenFile,
)
from ._posts import mcp_tool_name, plan_mcp, plan_patch, plan_shell, plan_write
from ._text import body_hash, find_links

__all__ = ["FoundPost", "ReadResult", "detect_format", "read_source"]

_CHUNK = 4 << 20
_MAX_PENDING = 256
_MAX_OPEN = 4096
_MAX_SEEN = 256
_MAX_FILES = 64
_MAX_TURNS = 256
_EMPTY = msgspec.Raw()

# Every line type Claude Code writes (2.1.39 to 2.1.332).  Only ``user`` and ``assistant``
# lines hold calls and results; the others are counted as ignored.  ``api-request-blob``
# lines (2.1.3xx) hold copies of request messages, the notice included: never read
# posts from them.
_CLAUDE_TYPES = frozenset(
    {
        "user",
        "assistant",
        "system",
        "summary",
        "progress",
        "queue-operation",
        "file-history-snapshot",
        "attachment",
        "last-prompt",
        "mode",
        "permission-mode",
        "ai-title",
        "custom-title",
        "pr-link",
        "saved_hook_context",
        "result",
        "agent-name",
        "tag",
        "api-request",
        "api-request-blob",
        "api-request-shape",
        "atis-latch",
        "cost-state",
        "tools-used",
    }
)
_CODEX_ENVELOPE = frozenset(
    {
        "session_meta",
        "response_item",
        "compacted",
        "turn_context",
        "event_msg",
        "world_state",
        "inter_agent_communication",
        "token_usage_record",
    }
)
_CODEX_ITEMS = frozenset(
    {
        "message",
        "reasoning",
        "function_call",
        "function_call_output",
        "local_shell_call",
        "custom_tool_call",
        "custom_tool_call_output",
        "web_search_call",
        "ghost_snapshot",
        "compaction",
        "agent_message",
        "tool_search_call",
        "tool_search_output",
        "image_generation_call",
        "other",
    }
)
# What Codex's tool router answers for a call it did not run (0.130 to 0.171).
_CODEX_REJECTED = ("unsupported call: ", "unsupported custom tool call: ")
_CODEX_UNAVAILABLE = " is not currently available"
_SHELL_TOOLS = frozenset(
    {"shell", "container.exec", "shell_command", "exec_command", "local_shell"}
)


class _Probe(msgspec.Struct):
    type: str | None = None
    payload: msgspec.Raw = _EMPTY
    record_type: str | None = None
    sessionId: str | None = None
    instructions: msgspec.Raw = _EMPTY


class _CBlock(msgspec.Struct):
    type: str = ""
    id: str | None = None
    name: str | None = None
    input: msgspec.Raw = _EMPTY
    tool_use_id: str | None = None
    content: msgspec.Raw = _EMPTY
    is_error: bool | None = None


class _CMessage(msgspec.Struct):
    content: str | list[_CBlock] | None = None


class _CAttachment(msgspec.Struct):
    type: str | None = None
    hookEvent: str | None = None


class _CLine(msgspec.Struct):
    type: str | None = None
    timestamp: str | None = None
    attachment: _CAttachment | None = None
    message: msgspec.Raw = _EMPTY
    toolUseResult: msgspec.Raw = _EMPTY
    isMeta: bool | None = None
    cwd: str | None = None


class _XItem(msgspec.Struct):
    type: str | None = None
    timestamp: str | None = None
    payload: msgspec.Raw = _EMPTY
    record_type: str | None = None
    name: str | None = None
    namespace: str | None = None
    arguments: msgspec.Raw = _EMPTY
    input: msgspec.Raw = _EMPTY
    call_id: str | None = None
    item: msgspec.Raw = _EMPTY
    result: msgspec.Raw = _EMPTY
    output: msgspec.Raw = _EMPTY
    action: msgspec.Raw = _EMPTY
    role: str | None = None
    content: msgspec.Raw = _EMPTY
    cwd: str | None = None


@dataclass(frozen=True, slots=True)
class FoundPost:
    """A post found while reading, with its texts (``None``: unknown) for display."""

    record: PostRecord
    texts: tuple[str, ...] | None


@dataclass(frozen=True, slots=True)
class ReadResult:
    state: SourceState
    posts: tuple[FoundPost, ...]
    read_bytes: int


@dataclass(slots=True)
class _Reader:
    path: str
    role: Role
    now: datetime
    format: str = "unknown"
    lines: int = 0
    unreadable: int = 0
    ignored: int = 0
    tool_calls: int = 0
    last_time: datetime | None = None
    cwd: str | None = None
    turns: list[datetime] = field(default_factory=list)
    pending: dict[str, PendingCall] = field(default_factory=dict)
    open_calls: dict[str, None] = field(default_factory=dict)
    seen: dict[str, None] = field(default_factory=dict)
    files: dict[str, str] = field(default_factory=dict)
    file_texts: dict[str, str] = field(default_factory=dict)
    found: list[FoundPost] = field(default_factory=list)
    turn_marked: bool = False  # a Codex turn start was counted; its prompt is not a new one

    @classmethod
    def from_state(cls, state: SourceState, role: Role, now: datetime) -> _Reader:
        return cls(
            path=state.path,
            role=role,
            now=now,
            format=state.format,
            lines=state.lines,
            unreadable=state.unreadable,
            ignored=state.ignored,
            tool_calls=state.tool_calls,
            last_time=state.last_time,
            turns=list(state.turns),
            pending={p.call_id: p for p in state.pending},
            open_calls=dict.fromkeys(state.open_calls),
            seen=dict.fromkeys(state.seen_calls),
            files={f.path: f.hash for f in state.files},
        )

    def to_state(self, device: int, inode: int, offset: int) -> SourceState:
        return SourceState(
            path=self.path,
            format=self.format,
            device=device,
            inode=inode,
            offset=offset,
            lines=self.lines,
            unreadable=self.unreadable,
            ignored=self.ignored,
            tool_calls=self.tool_calls,
            last_time=self.last_time,
            turns=tuple(self.turns[-_MAX_TURNS:]),
            pending=tuple(self.pending.values()),
            open_calls=tuple(self.open_calls),
            seen_calls=tuple(self.seen),
            files=tuple(WrittenFile(path=p, hash=h) for p, h in self.files.items()),
        )

    # --- lines ----------------------------------------------------------------------

    def feed(self, line: bytes) -> None:
        self.lines += 1
        if line.endswith(b"\r"):
            line = line[:-1]
        try:
            if self.format == "unknown":
                self._detect(line)
            if self.format == "claude-code":
                ok = self._claude(line)
            elif self.format in ("codex", "codex-legacy"):
                ok = self._codex(line)
            else:
                ok = False
        except (msgspec.DecodeError, ValueError, TypeError, KeyError):
            ok = False
        if ok is None:
            self.ignored += 1
        elif not ok:
            self.unreadable += 1

    def _detect(self, line: bytes) -> None:
        self.format = _format_of(line)

    def _time(self, text: str | None) -> datetime | None:
        if not text:
            return None
        try:
            t = datetime.fromisoformat(text)
        except ValueError:
            return None
        if t.tzinfo is None:
            t = t.replace(tzinfo=UTC)
        if self.last_time is None or t > self.last_time:
            self.last_time = t
        return t

    # --- Claude Code ----------------------------------------------------------------

    def _claude(self, line: bytes) -> bool | None:
        """True: read; None: a known line type with nothing for own posts; False: not read."""
        entry = msgspec.json.decode(line, type=_CLine)
        kind = entry.type
        if kind not in _CLAUDE_TYPES:
            return False
        if kind == "attachment":
            self._claude_attachment(entry)
            return None
        if kind not in ("user", "assistant") or entry.message == _EMPTY:
            return None
        if entry.cwd:
            self.cwd = entry.cwd
        message = msgspec.json.decode(entry.message, type=_CMessage)
        content = message.content
        if kind == "user":
            if isinstance(content, str):
                if not entry.isMeta and not content.startswith(("<command-", "<local-command")):
                    self._turn(self._time(entry.timestamp))
                return True
            if not content:
                return True
            has_result = False
            has_text = False
            for block in content:
                if block.type == "tool_result" and block.tool_use_id:
                    has_result = True
                    self._claude_result(block, entry)
                elif block.type == "text":
                    has_text = True
            if has_text and not has_result and not entry.isMeta:
                self._turn(self._time(entry.timestamp))
            return True
        if isinstance(content, list):
            for block in content:
                if block.type == "tool_use" and block.id:
                    self._claude_call(block, entry)
        return True

    def _claude_attachment(self, entry: _CLine) -> None:
        # A Stop hook that blocks (``{"decision": "block"}``: a notice) starts a turn; its
        # text is an ``isMeta`` user line, so the line below is the only mark of the turn.
        att = entry.attachment
        if att is not None and att.type == "hook_blocking_error" and att.hookEvent == "Stop":
            self._turn(self._time(entry.timestamp))
        else:
            self._time(entry.timestamp)

    def _claude_call(self, block: _CBlock, entry: _CLine) -> None:
        call_id = block.id or ""
        if call_id in self.seen:
            return
        name = block.name or ""
        started = self._time(entry.timestamp)
        plan: CallPlan | None = None
        args: Any = msgspec.json.decode(block.input) if block.input != _EMPTY else None
        if not isinstance(args, dict):
            args = {}
        if name == "Bash":
            command = args.get("command")
            if isinstance(command, str) and not args.get("run_in_background"):
                plan = plan_shell(command, cwd=self.cwd)
            elif isinstance(command, str):
                plan = CallPlan(complete=False)  # output arrives elsewhere: record nothing
        elif name == "Write":
            plan = plan_write(args.get("file_path"), args.get("content"))
        elif name in ("Edit", "MultiEdit", "NotebookEdit"):
            plan = plan_write(args.get("file_path") or args.get("notebook_path"), None, edit=True)
        elif mcp_tool_name(name) is not None or name == "pr_reply_to_thread":
            plan = plan_mcp(name, args)
        self._call(call_id, name, started, plan)

    def _claude_result(self, block: _CBlock, entry: _CLine) -> None:
        call_id = block.tool_use_id or ""
        pending = self.pending.pop(call_id, None)
        if pending is None:
            self.open_calls.pop(call_id, None)
            return
        finished = self._time(entry.timestamp)

        def outcome() -> tuple[bool, str]:
            failed = block.is_error is True
            output: str | None = None
            if entry.toolUseResult != _EMPTY:
                result = msgspec.json.decode(entry.toolUseResult)
                if isinstance(result, str):
                    failed = failed or result.startswith("Error") or "rejected" in result
                elif isinstance(result, dict):
                    if result.get("interrupted") or result.get("backgroundTaskId"):
                        failed = True
                    stdout = result.get("stdout")
                    stderr = result.get("stderr")
                    if isinstance(stdout, str):
                        # Links count over stdout and stderr together: a command inside
                        # the post can print a link to stderr.
                        output = f"{stdout}\n{stderr}" if isinstance(stderr, str) else stdout
                elif isinstance(result, list):
                    output = _blocks_text(result)
            if output is None:
                raw = msgspec.json.decode(block.content) if block.content != _EMPTY else ""
                output = raw if isinstance(raw, str) else _blocks_text(raw)
            return failed, output

        self._settle(pending, finished, outcome)

    # --- Codex ----------------------------------------------------------------------

    def _codex(self, line: bytes) -> bool | None:
        """True: read; None: a known line type with nothing for own posts; False: not read."""
        item = msgspec.json.decode(line, type=_XItem)
        when = item.timestamp
        if item.payload != _EMPTY:
            if item.type not in _CODEX_ENVELOPE:
                return False
            envelope_type = item.type
            item = msgspec.json.decode(item.payload, type=_XItem)
            if envelope_type == "event_msg":
                return self._codex_event(item, self._time(when))
            if envelope_type != "response_item":
                if item.cwd:
                    self.cwd = item.cwd
                self._time(when)
                return None
        elif item.record_type is not None or item.type is None or item.type in _CODEX_ENVELOPE:
            self._time(when)
            return None
        t = self._time(when)
        kind = item.type
        if kind not in _CODEX_ITEMS:
            return False
        if kind in ("function_call", "custom_tool_call", "local_shell_call") and item.call_id:
            self._codex_call(item, t)
        elif kind in ("function_call_output", "custom_tool_call_output") and item.call_id:
            self._codex_result(item, t)
        elif kind == "message" and item.role == "user" and self.format == "codex-legacy":
            text = _blocks_text(msgspec.json.decode(item.content)) if item.content != _EMPTY else ""
            if not text.lstrip().startswith(("<environment_context>", "<user_instructions>")):
                self._turn(t or self.last_time)
        else:
            return None
        return True

    def _codex_event(self, event: _XItem, when: datetime | None) -> bool | None:
        kind = event.type
        # A turn starts with ``task_started`` (0.130 to 0.171) or ``user_message`` (to 0.130);
        # 0.169 and 0.171 also write ``item_completed`` of a ``UserMessage``.
        if kind in ("task_started", "turn_started"):
            self._turn(when)
            self.turn_marked = True
            return True
        if kind == "user_message":
            self._user_turn(when)
            return True
        if kind == "mcp_tool_call_end" and event.call_id:
            # 0.130: {"result": {"Ok": {..., "isError": bool}}} or {"result": {"Err": ...}}
            result = msgspec.json.decode(event.result) if event.result != _EMPTY else None
            ok = isinstance(result, dict) and isinstance(result.get("Ok"), dict)
            failed = not ok or bool(result["Ok"].get("isError"))  # type: ignore[index]
            self._codex_outcome(event.call_id, failed=failed)
            return True
        if kind == "item_completed" and event.item != _EMPTY:
            item = msgspec.json.decode(event.item)
            if not isinstance(item, dict):
                return None
            if item.get("type") == "UserMessage":
                self._user_turn(when)
                return True
            if item.get("type") == "McpToolCall" and isinstance(item.get("id"), str):
                result = item.get("result")
                is_error = isinstance(result, dict) and result.get("isError") is True
                failed = item.get("status") != "completed" or is_error
                self._codex_outcome(item["id"], failed=failed)
                return True
        return None

    def _user_turn(self, when: datetime | None) -> None:
        """The prompt of a turn whose ``task_started`` was already counted, or of one
        written without it."""
        if not self.turn_marked:
            self._turn(when)
        self.turn_marked = False

    def _codex_outcome(self, call_id: str, *, failed: bool) -> None:
        pending = self.pending.get(call_id)
        if pending is not None:
            outcome = "failed" if failed else "ok"
            self.pending[call_id] = msgspec.structs.replace(pending, outcome=outcome)

    def _codex_call(self, item: _XItem, started: datetime | None) -> None:
        call_id = item.call_id or ""
        if call_id in self.seen:
            return
        name = item.name or ""
        namespace = item.namespace
        if namespace:
            # An MCP tool: ``{"namespace": "mcp__github", "name": "add_issue_comment"}``
            # (0.169, 0.171) or ``"namespace": "mcp__github__"`` (0.130).
            name = namespace + name if namespace.endswith("__") else f"{namespace}__{name}"
        plan: CallPlan | None = None
        if item.type == "local_shell_call":
            action = msgspec.json.decode(item.action) if item.action != _EMPTY else {}
            command = action.get("command") if isinstance(action, dict) else None
            cwd = action.get("working_directory") if isinstance(action, dict) else None
            name = "local_shell_call"
            plan = _argv_plan(command, cwd if isinstance(cwd, str) else self.cwd)
        elif item.type == "custom_tool_call":
            raw = msgspec.json.decode(item.input) if item.input != _EMPTY else None
            if name == "apply_patch" and isinstance(raw, str):
                plan = plan_patch(raw, cwd=self.cwd)
        else:
            args: Any = {}
            if item.arguments != _EMPTY:
                text = msgspec.json.decode(item.arguments)
                args = json.loads(text) if isinstance(text, str) else text
            if not isinstance(args, dict):
                args = {}
            workdir = args.get("workdir")
            cwd = workdir if isinstance(workdir, str) else self.cwd
            if name in ("shell", "container.exec", "local_shell"):
                plan = _argv_plan(args.get("command"), cwd)
            elif name == "shell_command":
                command = args.get("command")
                plan = plan_shell(command, cwd=cwd) if isinstance(command, str) else None
            elif name == "exec_command":
                command = args.get("cmd")
                plan = plan_shell(command, cwd=cwd) if isinstance(command, str) else None
            elif name == "apply_patch" and isinstance(args.get("input"), str):
                plan = plan_patch(args["input"], cwd=cwd)
            elif mcp_tool_name(name) is not None or name == "pr_reply_to_thread":
                plan = plan_mcp(name, args)
        self._call(call_id, name, started or self.last_time, plan)

    def _codex_result(self, item: _XItem, finished: datetime | None) -> None:
        call_id = item.call_id or ""
        pending = self.pending.pop(call_id, None)
        if pending is None:
            self.open_calls.pop(call_id, None)
            return
        shell = pending.tool in _SHELL_TOOLS or pending.tool == "local_shell_call"

        def outcome() -> tuple[bool, str]:
            raw = msgspec.json.decode(item.output) if item.output != _EMPTY else ""
            if isinstance(raw, str) and _codex_rejected(raw):
                return True, raw  # the router never ran it
            if pending.outcome:
                # The client said how the MCP call ended; the output is only its text.
                text = raw if isinstance(raw, str) else _codex_output(raw, shell=False)[1]
                return pending.outcome == "failed", text
            if not shell and _mcp_output_needs_outcome(raw):
                return True, ""  # a 0.130+ MCP output without its end event: unknown
            return _codex_output(raw, shell=shell)

        # A legacy rollout has no time on its lines: the result arrived before this scan.
        self._settle(pending, finished or self.now, outcome)

    # --- calls, results, posts --------------------------------------------------------

    def _turn(self, when: datetime | None) -> None:
        if when is not None and (not self.turns or when >= self.turns[-1]):
            self.turns.append(when)
            if len(self.turns) > 2 * _MAX_TURNS:
                del self.turns[:-_MAX_TURNS]

    def _call(
        self, call_id: str, name: str, started: datetime | None, plan: CallPlan | None
    ) -> None:
        self.tool_calls += 1
        self.seen[call_id] = None
        if len(self.seen) > _MAX_SEEN:
            del self.seen[next(iter(self.seen))]
        if plan is not None and plan.complete and (plan.posts or plan.writes):
            self.pending[call_id] = PendingCall(
                call_id=call_id, line=self.lines, started=started, tool=name, plan=plan
            )
            if len(self.pending) > _MAX_PENDING:
                del self.pending[next(iter(self.pending))]
        else:
            self.open_calls[call_id] = None
            if len(self.open_calls) > _MAX_OPEN:
                del self.open_calls[next(iter(self.open_calls))]

    def _settle(
        self,
        pending: PendingCall,
        finished: datetime | None,
        outcome: Callable[[], tuple[bool, str]],
    ) -> None:
        failed, output = outcome()
        if failed:
            return  # a failed command posted nothing and wrote nothing we can trust
        plan = pending.plan
        for write in plan.writes:
            self._write(write)
        if not plan.posts:
            return
        started = pending.started or finished
        if started is None or finished is None:
            return
        links = find_links(output)
        links_count = plan.all_post and len(links) <= len(plan.posts)
        for index, post in enumerate(plan.posts):
            known = post.body_known
            hashes = [body_hash(t) for t in post.bodies]
            texts = list(post.bodies)
            texts_known = True
            for path in post.body_files:
                digest = self.files.get(path)
                if digest is None:
                    known = False
                    continue
                hashes.append(digest)
                text = self.file_texts.get(path)
                if text is None:
                    texts_known = False
                else:
                    texts.append(text)
            record = PostRecord(
                key=f"{self.path}#{pending.call_id}/{index}",
                source=self.path,
                role=self.role,
                line=pending.line,
                tool=post.tool,
                call_id=pending.call_id,
                pr=post.pr,
                bodies=tuple(hashes) if known else (),
                body_known=known,
                links=links,
                links_count=links_count,
                started=started,
                finished=max(finished, started),
                pending_inline=post.pending_inline,
            )
            shown = tuple(texts) if known and texts_known else None
            self.found.append(FoundPost(record=record, texts=shown))

    def _write(self, write: PlannedWrite) -> None:
        self.files.pop(write.path, None)
        self.file_texts.pop(write.path, None)
        if write.text is None:
            return
        self.files[write.path] = body_hash(write.text)
        self.file_texts[write.path] = write.text
        while len(self.files) > _MAX_FILES:
            oldest = next(iter(self.files))
            del self.files[oldest]
            self.file_texts.pop(oldest, None)


def _format_of(line: bytes) -> str:
    """The transcript format one line shows (``unknown`` when it shows none)."""
    probe = msgspec.json.decode(line, type=_Probe)
    if probe.payload != _EMPTY and probe.type in _CODEX_ENVELOPE:
        return "codex"
    if probe.record_type is not None or probe.instructions != _EMPTY or probe.type in _CODEX_ITEMS:
        return "codex-legacy"
    if probe.type in _CLAUDE_TYPES or probe.sessionId is not None:
        return "claude-code"
    return "unknown"


_DETECT_LINES = 20


def detect_format(path: str | Path) -> str:
    """The format of the transcript at ``path`` as the readers would find it, from its
    first lines: ``claude-code``, ``codex`` or ``codex-legacy``; ``empty`` for a file with
    no line yet (a session just begun); ``unknown`` when none of its first 20 lines is in
    a known format (not a transcript).  ``OSError`` when it cannot be read."""
    seen = 0
    with open(path, "rb") as f:
        for raw in f:
            line = raw.rstrip(b"\r\n")
            if not line.strip():
                continue
            seen += 1
            try:
                found = _format_of(line)
            except (msgspec.DecodeError, ValueError, TypeError):
                found = "unknown"
            if found != "unknown":
                return found
            if seen >= _DETECT_LINES:
                break
    return "empty" if seen == 0 else "unknown"


def _argv_plan(command: object, cwd: str | None) -> CallPlan | None:
    if not isinstance(command, list) or not all(isinstance(a, str) for a in command):
        return None
    return plan_shell(argv=tuple(command), cwd=cwd)


def _blocks_text(blocks: object) -> str:
    if isinstance(blocks, str):
        return blocks
    if not isinstance(blocks, list):
        return ""
    parts = [b["text"] for b in blocks if isinstance(b, dict) and isinstance(b.get("text"), str)]
    return "\n".join(parts)


def _codex_output(raw: object, *, shell: bool) -> tuple[bool, str]:
    """(failed, output text) from a ``function_call_output.output`` in any of its forms."""
    if isinstance(raw, dict):
        content = raw.get("content")
        text = content if isinstance(content, str) else _blocks_text(content)
        success = raw.get("success")
        return (success is False, text) if not shell else _codex_output(text, shell=True)
    if isinstance(raw, list):
        return False, _blocks_text(raw)
    if not isinstance(raw, str):
        return True, ""
    if raw.startswith("{"):
        try:
            legacy = json.loads(raw)
        except ValueError:
            legacy = None
        if isinstance(legacy, dict) and "metadata" in legacy:
            meta = legacy.get("metadata")
            exit_code = meta.get("exit_code") if isinstance(meta, dict) else None
            output = legacy.get("output")
            return exit_code != 0, output if isinstance(output, str) else ""
    if raw.startswith("["):
        try:
            return False, _blocks_text(json.loads(raw))
        except ValueError:
            pass
    head, sep, body = raw.partition("\nOutput:\n")
    if sep:
        code: int | None = None
        for header in head.split("\n"):
            if header.startswith("Exit code: "):
                code = _int(header[len("Exit code: ") :])
            elif header.startswith("Process exited with code "):
                code = _int(header[len("Process exited with code ") :])
        if code is not None:
            return code != 0, body
        return True, body  # still running, or a header we cannot read
    if not shell:
        return raw.startswith("err:"), raw
    return True, raw


def _codex_rejected(raw: str) -> bool:
    """Codex's answer to a call it did not run: an unknown tool, or one not offered now."""
    if raw.startswith(_CODEX_REJECTED):
        return True
    return raw.startswith("Tool `") and _CODEX_UNAVAILABLE in raw.split("\n", 1)[0]


def _mcp_output_needs_outcome(raw: object) -> bool:
    """An MCP output of 0.130 to 0.171, whose success only its end event tells: a list of
    ``input_text`` blocks (0.169, 0.171) or ``"Wall time: ...\nOutput:\n..."`` (0.130)."""
    if isinstance(raw, list):
        return any(isinstance(b, dict) and b.get("type") == "input_text" for b in raw)
    return isinstance(raw, str) and raw.startswith("Wall time: ")


def _int(text: str) -> int | None:
    try:
        return int(text.strip())
    except ValueError:
        return None


def read_source(state: SourceState, role: Role, now: datetime) -> ReadResult:
    """Read what was appended to ``state.path`` since ``state.offset``."""
    try:
        fd = os.open(state.path, os.O_RDONLY)
    except OSError:
        return ReadResult(state=state, posts=(), read_bytes=0)
    with os.fdopen(fd, "rb") as fh:
        st = os.fstat(fh.fileno())
        if (st.st_dev, st.st_ino) != (state.device, state.inode) or st.st_size < state.offset:
            state = SourceState(path=state.path)  # replaced or truncated: read it again
        reader = _Reader.from_state(state, role, now)
        offset = state.offset
        fh.seek(offset)
        carry = b""
        read_bytes = 0
        while True:
            chunk = fh.read(_CHUNK)
            if not chunk:
                break
            read_bytes += len(chunk)
            data = carry + chunk if carry else chunk
            end = data.rfind(b"\n")
            if end < 0:
                carry = data
                continue
            for line in data[:end].split(b"\n"):
                reader.feed(line)
            carry = data[end + 1 :]
        offset = state.offset + read_bytes - len(carry)
        new_state = reader.to_state(st.st_dev, st.st_ino, offset)
    return ReadResult(state=new_state, posts=tuple(reader.found), read_bytes=read_bytes)
