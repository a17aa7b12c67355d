"""FakeGitHub's transports: in-process ``httpx`` and real HTTP on 127.0.0.1.

Both hand each request to ``handle``; an injected timeout (``Timeout``) becomes
``httpx.ReadTimeout`` in process, and over loopback a connection that hangs for
``hang_seconds`` and then closes without an answer.
"""

from __future__ import annotations

import contextlib
import sys
import threading
import time
from collections.abc import AsyncIterator, Iterator, Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Protocol

import httpx

from ._faults import VIA, Timeout
from ._http import Answer

__all__ = ["InFlightTransport", "LoopbackServer", "serve", "serve_in_thread", "transport"]


class Handles(Protocol):
    """What the transports serve: FakeGitHub's ``handle`` and its ``hang_seconds``."""

    hang_seconds: float

    def handle(
        self,
        method: str,
        path: str,
        headers: Mapping[str, str],
        body: bytes,
        *,
        scheme: str = "https",
    ) -> Answer: ...


def transport(fake: Handles, label: str | None = None) -> httpx.MockTransport:
    """An ``httpx`` transport answering in-process (any base URL); each request it
    carries is recorded with ``label`` (``RecordedRequest.via``)."""

    def handler(request: httpx.Request) -> httpx.Response:
        token = VIA.set(label)
        try:
            answer = fake.handle(
                request.method,
                request.url.raw_path.decode("ascii"),
                request.headers,
                request.read(),
                scheme=request.url.scheme,
            )
        except Timeout:
            raise httpx.ReadTimeout("FakeGitHub: injected timeout", request=request) from None
        finally:
            VIA.reset(token)
        return httpx.Response(answer.status, headers=answer.headers, content=answer.body)

    return httpx.MockTransport(handler)


class InFlightTransport(httpx.AsyncBaseTransport):
    """Real HTTP that counts the requests it carries until their answers are read.

    A virtual clock cannot see a request in flight to the loopback server, which
    answers on its own threads: a test that moves time on while ``in_flight`` is not 0
    has FakeGitHub stamp the request later than it was made."""

    def __init__(self) -> None:
        self._http = httpx.AsyncHTTPTransport()
        self.in_flight = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.in_flight += 1
        try:
            response = await self._http.handle_async_request(request)
            await response.aread()
            return response
        finally:
            self.in_flight -= 1

    async def aclose(self) -> None:
        await self._http.aclose()


@contextlib.contextmanager
def serve_in_thread(fake: Handles) -> Iterator[str]:
    """Serve over loopback HTTP on 127.0.0.1 (ephemeral port); yields the base URL."""
    server = LoopbackServer(fake)
    server.start()
    try:
        yield server.base_url
    finally:
        server.stop()


@contextlib.asynccontextmanager
async def serve(fake: Handles) -> AsyncIterator[str]:
    """``async with serve(fake) as base_url``: loopback HTTP for async tests."""
    import anyio.to_thread

    server = LoopbackServer(fake)
    server.start()
    try:
        yield server.base_url
    finally:
        await anyio.to_thread.run_sync(server.stop)


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: object, client_address: object) -> None:
        # A client that hangs up mid-answer (an app cancelled while a poll was in
        # flight) is ordinary; anything else is a FakeGitHub bug and is printed.
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)  # type: ignore[arg-type]


class LoopbackServer:
    """A threaded HTTP/1.1 server on an ephemeral loopback port answering from a FakeGitHub."""

    def __init__(self, fake: Handles) -> None:
        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _answer(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length) if length else b""
                try:
                    answer = fake.handle(
                        self.command, self.path, dict(self.headers), body, scheme="http"
                    )
                except Timeout:
                    time.sleep(fake.hang_seconds)
                    self.close_connection = True
                    return
                self.send_response(answer.status)
                for name, value in answer.headers.items():
                    self.send_header(name, value)
                self.send_header("content-length", str(len(answer.body)))
                self.end_headers()
                if answer.body and self.command != "HEAD":
                    self.wfile.write(answer.body)

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _answer

            def log_message(self, format: str, *args: object) -> None:
                return  # requests are recorded by FakeGitHub, not printed

        self._server = _Server(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)
