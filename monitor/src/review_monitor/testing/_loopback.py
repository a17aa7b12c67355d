"""FakeGitHub over real HTTP on 127.0.0.1, served from a background thread."""

from __future__ import annotations

import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ._fake_github import FakeGitHub

__all__ = ["LoopbackServer"]


class LoopbackServer:
    """A threaded HTTP/1.1 server on an ephemeral loopback port answering from a FakeGitHub."""

    def __init__(self, fake: FakeGitHub) -> None:
        from ._fake_github import _Timeout

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _answer(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length) if length else b""
                try:
                    answer = fake.handle(self.command, self.path, dict(self.headers), body)
                except _Timeout:
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

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
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
