"""The client over real loopback HTTP (no injected transport): sockets, ETags, timeouts."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import ClassVar

import pytest

from review_monitor import GitHubConfig, TransientError
from review_monitor.github import GitHubClient, RetryPolicy


class _Handler(BaseHTTPRequestHandler):
    seen: ClassVar[list[tuple[str, str, str]]] = []

    def log_message(self, format: str, *args: object) -> None:
        pass

    def _send(self, status: int, body: object, headers: dict[str, str] | None = None) -> None:
        payload = b"" if body is None else json.dumps(body).encode()
        self.send_response(status)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def do_GET(self) -> None:
        self.seen.append(
            ("GET", self.path, self.headers.get("Authorization", "")),
        )
        if self.path == "/slow":
            time.sleep(1.0)
            self._send(200, {})
        elif self.headers.get("If-None-Match") == '"v1"':
            self._send(304, None, {"ETag": '"v1"'})
        else:
            self._send(200, {"n": 1}, {"ETag": '"v1"', "x-ratelimit-remaining": "4999"})

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length", "0"))
        request = json.loads(self.rfile.read(length))
        self.seen.append(("POST", self.path, self.headers.get("Authorization", "")))
        self._send(200, {"data": {"echo": request["variables"]["v"]}})


class _Server(ThreadingHTTPServer):
    def handle_error(self, request: object, client_address: object) -> None:
        pass  # the client hanging up on /slow is the point of that test


@pytest.fixture
def server() -> Iterator[str]:
    _Handler.seen = []
    httpd = _Server(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)


@pytest.mark.anyio
async def test_loopback_graphql_and_conditional_get(server: str, token: str) -> None:
    async with GitHubClient(token, GitHubConfig(api_url=server)) as client:
        answer = await client.graphql("query($v: Int!) { x }", {"v": 5})
        first = await client.rest_get("/repos/o/r")
        second = await client.rest_get("/repos/o/r")

    assert {"echo": 5} == answer.data
    assert [(False, {"n": 1}), (True, {"n": 1})] == [
        (r.from_cache, r.body) for r in (first, second)
    ]
    assert {f"Bearer {token}"} == {auth for _, _, auth in _Handler.seen}


@pytest.mark.anyio
async def test_loopback_read_timeout_becomes_transient_error(server: str, token: str) -> None:
    config = GitHubConfig(api_url=server, timeout=timedelta(milliseconds=200))
    async with GitHubClient(token, config, retry=RetryPolicy(attempts=1)) as client:
        with pytest.raises(TransientError, match="timeout"):
            await client.rest_get("/slow")


@pytest.mark.anyio
async def test_loopback_refused_connection_becomes_transient_error(token: str) -> None:
    config = GitHubConfig(api_url="http://127.0.0.1:9")
    async with GitHubClient(token, config, retry=RetryPolicy(attempts=1)) as client:
        with pytest.raises(TransientError):
            await client.rest_get("/x")
