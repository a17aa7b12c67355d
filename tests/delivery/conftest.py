"""Fixtures for the publisher tests: notices, a loopback HTTP receiver, fake executables."""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from review_monitor import NOTICE_VERSION, Notice, NoticeItem, NoticePr, PrRef, notice_key

NoticeFactory = Callable[..., Notice]


def build_notice(
    worker: str = "w-42",
    number: int = 7,
    kind: str = "comment-wake",
    item_ids: tuple[str, ...] = ("IC_1",),
    text: str = "alice commented on o/r#7",
) -> Notice:
    pr = PrRef(owner="o", name="r", number=number)
    items = tuple(
        NoticeItem(
            id=i,
            database_id=100 + n,
            url=f"https://github.com/o/r/pull/{number}#issuecomment-{100 + n}",
            author="alice",
            kind="comment",
        )
        for n, i in enumerate(item_ids)
    )
    return Notice(
        version=NOTICE_VERSION,
        kind=kind,
        key=notice_key(worker, pr, kind, item_ids),
        worker=worker,
        pr=NoticePr(
            host=pr.host,
            repo=pr.repo,
            number=number,
            url=f"https://github.com/o/r/pull/{number}",
            title="Fix the parser",
        ),
        items=items,
        text=text,
        created_at=datetime(2026, 3, 1, 12, 0, tzinfo=UTC),
    )


@pytest.fixture
def make_notice() -> NoticeFactory:
    return build_notice


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class Receiver:
    """A real HTTP server on 127.0.0.1 that records each POST and answers as told."""

    url: str
    received: list[Received] = field(default_factory=list)
    status: int = 200
    answer: bytes = b""
    answer_headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    release: threading.Event = field(default_factory=threading.Event)


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    state: Receiver | None = None

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            assert state is not None
            length = int(self.headers.get("Content-Length", "0"))
            body = self.rfile.read(length)
            state.received.append(Received(self.path, dict(self.headers.items()), body))
            if state.delay:
                state.release.wait(state.delay)
            try:
                self.send_response(state.status)
                for name, value in state.answer_headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(state.answer)))
                self.end_headers()
                self.wfile.write(state.answer)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the publisher stopped waiting (a timeout test): nobody to answer

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    state = Receiver(url=f"http://127.0.0.1:{server.server_address[1]}/hook")
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        state.release.set()
        server.shutdown()
        server.server_close()
        thread.join(5)


@pytest.fixture
def script(tmp_path: Path) -> Callable[[str, str], Path]:
    """Write an executable Python script ``name`` with ``body``; return its path."""

    def write(name: str, body: str) -> Path:
        path = tmp_path / "bin" / name
        path.parent.mkdir(exist_ok=True)
        path.write_text(f"#!{sys.executable}\n{body}")
        path.chmod(0o755)
        return path

    return write
