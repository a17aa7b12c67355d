"""A scripted model server on 127.0.0.1 for the real CLIs: the Anthropic Messages API and the
OpenAI Responses API, both streaming (SSE), as Claude Code and Codex call them.

A *script* maps a marker to a list of steps.  Each prompt (a user message that is not a
tool result: a prompt, a notice, a subagent's task) follows the steps of the first marker
in its text; its step is the number of tool results since that prompt.  A prompt without
a marker, or past its last step, gets "done".  A step is ``Say(text)`` or
``Call(tool, input)``.  Every request is recorded for the tests.
"""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["Call", "ModelServer", "Say", "Step"]


@dataclass(frozen=True)
class Say:
    text: str


@dataclass(frozen=True)
class Call:
    tool: str
    input: Mapping[str, Any]
    namespace: str | None = None  # Codex: an MCP tool's namespace, e.g. "mcp__github"


Step = Say | Call


@dataclass
class ModelServer:
    script: dict[str, list[Step]] = field(default_factory=dict)
    requests: list[dict[str, Any]] = field(default_factory=list)
    _server: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        assert self._server is not None
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def start(self) -> ModelServer:
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: object) -> None:
                return

            def do_HEAD(self) -> None:
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def do_GET(self) -> None:
                body = b'{"data": [], "models": []}'
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    request = json.loads(raw or b"{}")
                except ValueError:
                    request = {}
                path = self.path.split("?", 1)[0]
                owner.requests.append({"path": path, "body": request})
                if path.endswith("/messages/count_tokens"):
                    self._json({"input_tokens": 10})
                elif path.endswith("/messages"):
                    self._sse(owner._anthropic(request))
                elif path.endswith("/responses"):
                    self._sse(owner._openai(request))
                else:
                    self._json({"error": {"message": f"no {path}"}}, 404)

            def _json(self, value: object, status: int = 200) -> None:
                body = json.dumps(value).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def _sse(self, events: Iterator[tuple[str, dict[str, Any]]]) -> None:
                chunks = [
                    f"event: {name}\ndata: {json.dumps(data)}\n\n".encode() for name, data in events
                ]
                body = b"".join(chunks)
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    # --- choosing the step --------------------------------------------------------------

    def _step(self, first_text: str, results: int) -> Step:
        for marker, steps in self.script.items():
            if marker in first_text:
                return steps[results] if results < len(steps) else Say("done")
        return Say("done")

    def user_texts(self, api: str) -> list[str]:
        """The text of the last user message of every request to ``api`` (messages or
        responses), in order."""
        out: list[str] = []
        for r in self.requests:
            if not r["path"].endswith(api):
                continue
            texts = _anthropic_user_texts(r["body"]) if api == "/messages" else None
            if texts is None:
                texts = _openai_user_texts(r["body"])
            if texts:
                out.append(texts[-1])
        return out

    # --- Anthropic Messages --------------------------------------------------------------

    def _anthropic(self, request: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
        messages: Sequence[dict[str, Any]] = request.get("messages") or []
        prompt, results = "", 0
        for m in messages:
            if m.get("role") != "user":
                continue
            content = m.get("content")
            blocks = content if isinstance(content, list) else [{"type": "text", "text": content}]
            found = sum(1 for b in blocks if isinstance(b, dict) and b.get("type") == "tool_result")
            if found:
                results += found
            else:
                prompt = "\n".join(str(b.get("text", "")) for b in blocks if isinstance(b, dict))
                results = 0
        step = self._step(prompt if request.get("tools") else "", results)
        mid = f"msg_{uuid.uuid4().hex[:24]}"
        usage = {"input_tokens": 10, "output_tokens": 5}
        yield (
            "message_start",
            {
                "type": "message_start",
                "message": {
                    "id": mid,
                    "type": "message",
                    "role": "assistant",
                    "model": request.get("model", "claude-test"),
                    "content": [],
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": usage,
                },
            },
        )
        if isinstance(step, Say):
            yield (
                "content_block_start",
                {
                    "type": "content_block_start",
                    "index": 0,
                    "content_block": {"type": "text", "text": ""},
                },
            )
            yield (
                "content_block_delta",
                {
                    "type": "content_block_delta",
                    "index": 0,
                    "delta": {"type": "text_delta", "text": step.text},
                },
            )
            stop = "end_turn"
        else:
            block = {
                "type": "tool_use",
                "id": f"toolu_{uuid.uuid4().hex[:24]}",
                "name": step.tool,
                "input": {},
            }
            yield (
                "content_block_start",
                {"type": "content_block_start", "index": 0, "content_block": block},
            )
            yield (
                "content_block_delta",
                {
                    "type": "content_block_delta",
                    "index": 0,
                    "delta": {"type": "input_json_delta", "partial_json": json.dumps(step.input)},
                },
            )
            stop = "tool_use"
        yield ("content_block_stop", {"type": "content_block_stop", "index": 0})
        yield (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop, "stop_sequence": None},
                "usage": {"output_tokens": 5},
            },
        )
        yield ("message_stop", {"type": "message_stop"})

    # --- OpenAI Responses ----------------------------------------------------------------

    def _openai(self, request: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
        items: Sequence[dict[str, Any]] = request.get("input") or []
        prompt, results = "", 0
        for i in items:
            if not isinstance(i, dict):
                continue
            if i.get("type") in _OUTPUTS:
                results += 1
            elif i.get("role") == "user":
                text = "\n".join(_openai_user_texts({"input": [i]}))
                if "<environment_context>" not in text:
                    prompt, results = text, 0
        step = self._step(prompt, results)
        rid = f"resp_{uuid.uuid4().hex[:24]}"
        yield ("response.created", {"type": "response.created", "response": {"id": rid}})
        if isinstance(step, Say):
            item: dict[str, Any] = {
                "type": "message",
                "role": "assistant",
                "id": f"msg_{uuid.uuid4().hex[:24]}",
                "content": [{"type": "output_text", "text": step.text, "annotations": []}],
            }
        elif step.tool == "tool_search":
            item = {
                "type": "tool_search_call",
                "id": f"ts_{uuid.uuid4().hex[:24]}",
                "call_id": f"call_{uuid.uuid4().hex[:24]}",
                "status": "completed",
                "execution": "client",
                "arguments": dict(step.input),
            }
        else:
            item = {
                "type": "function_call",
                "id": f"fc_{uuid.uuid4().hex[:24]}",
                "call_id": f"call_{uuid.uuid4().hex[:24]}",
                "name": step.tool,
                "arguments": json.dumps(step.input),
            }
            if step.namespace is not None:
                item["namespace"] = step.namespace
        yield (
            "response.output_item.added",
            {"type": "response.output_item.added", "output_index": 0, "item": item},
        )
        yield (
            "response.output_item.done",
            {"type": "response.output_item.done", "output_index": 0, "item": item},
        )
        usage = {
            "input_tokens": 10,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": 5,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": 15,
        }
        yield (
            "response.completed",
            {
                "type": "response.completed",
                "response": {"id": rid, "status": "completed", "output": [item], "usage": usage},
            },
        )


_OUTPUTS = ("function_call_output", "custom_tool_call_output", "tool_search_output")


def _anthropic_user_texts(request: dict[str, Any]) -> list[str]:
    texts: list[str] = []
    for m in request.get("messages") or []:
        if not isinstance(m, dict) or m.get("role") != "user":
            continue
        content = m.get("content")
        if isinstance(content, str):
            texts.append(content)
        elif isinstance(content, list):
            parts = [
                b["text"]
                for b in content
                if isinstance(b, dict)
                and b.get("type") == "text"
                and isinstance(b.get("text"), str)
            ]
            if parts:
                texts.append("\n".join(parts))
    return texts


def _openai_user_texts(request: dict[str, Any]) -> list[str]:
    texts: list[str] = []
    for i in request.get("input") or []:
        if not isinstance(i, dict) or i.get("role") != "user":
            continue
        content = i.get("content")
        if isinstance(content, str):
            texts.append(content)
        elif isinstance(content, list):
            parts = [
                b["text"] for b in content if isinstance(b, dict) and isinstance(b.get("text"), str)
            ]
            if parts:
                texts.append("\n".join(parts))
    return texts
