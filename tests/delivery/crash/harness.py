"""The crash test's machinery, shared by the test and ``tests/bench/delivery_crash.py``.

A plan of notices (comment wakes on comments that exist in a ``FakeGitHub``, and a few
check notices), a loopback webhook receiver that keeps every POST (it does not drop
repeats: it counts each by ``Idempotency-Key`` and applies a key's effect once), and a
runner that starts ``driver.py`` again and again on one store, killing it with SIGKILL at
random moments and at each named kill point (the driver's ``KILL_POINTS``: wrappers around
the store, the publishers and the GitHub transport it gives the app).
"""

from __future__ import annotations

import importlib.util
import json
import random
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import ModuleType
from typing import Any

import msgspec

from comment_wake.delivery import verify_signature
from review_monitor import NOTICE_VERSION, Notice, NoticeItem, NoticePr, notice_key
from review_monitor.testing import FakeGitHub

DRIVER = Path(__file__).with_name("driver.py")


def _load_driver() -> ModuleType:
    """``driver.py`` as a module (its ``__main__`` block does not run), for its points."""
    spec = importlib.util.spec_from_file_location("comment_wake_crash_driver", DRIVER)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


KILL_POINTS: tuple[str, ...] = _load_driver().KILL_POINTS
SECRET = "crash-test-secret"
ORCHESTRATOR = "orchestrator"
GONE_WORKER = "w-gone"  # its receiver answers 410
ARCHIVED_WORKER = "w-archived"  # the route says Gone("archived")


@dataclass
class Receiver:
    """Loopback webhook receiver: answers busy at random to a key it has not applied yet."""

    busy_rate: float
    seed: int
    url: str = ""
    posts: Counter[str] = field(default_factory=Counter)  # every POST, by key
    applied: dict[str, tuple[str, Notice]] = field(default_factory=dict)  # key -> (path, notice)
    bad_signatures: int = 0
    torn: int = 0  # requests cut short by a kill
    lock: threading.Lock = field(default_factory=threading.Lock)

    def answer(self, path: str, headers: Any, body: bytes) -> int:
        ok = verify_signature(
            SECRET,
            headers.get("X-Comment-Wake-Timestamp", ""),
            body,
            headers.get("X-Comment-Wake-Signature-256", ""),
            time.time(),
        )
        key = headers.get("Idempotency-Key", "")
        with self.lock:
            if not ok:
                self.bad_signatures += 1
                return 401
            self.posts[key] += 1
            if key in self.applied:
                return 200  # a repeat: acknowledged, not applied again
            worker = path.strip("/")
            if worker == GONE_WORKER:
                return 410
            rng = random.Random(f"{self.seed}:{key}:{self.posts[key]}")
            if rng.random() < self.busy_rate:
                return 429
            self.applied[key] = (worker, msgspec.json.decode(body, type=Notice))
            return 200

    @property
    def redeliveries(self) -> int:
        """POSTs of a key after the one that applied it (at-least-once repeats)."""
        repeats = 0
        for key in self.applied:
            repeats += self.posts[key] - 1
        return repeats


@contextmanager
def serve(receiver: Receiver) -> Iterator[Receiver]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            body = self.rfile.read(length)
            if len(body) < length:
                # The driver was killed mid-request: a torn body, not a forged one.
                with receiver.lock:
                    receiver.torn += 1
                self.close_connection = True
                return
            status = receiver.answer(self.path, self.headers, body)
            self.send_response(status)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: object) -> None:
            pass

    class Server(ThreadingHTTPServer):
        daemon_threads = True

        def handle_error(self, request: Any, client_address: Any) -> None:
            pass  # a driver killed mid-request resets its connection: expected here

    server = Server(("127.0.0.1", 0), Handler)
    receiver.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield receiver
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


@dataclass(frozen=True)
class PlannedNotice:
    notice: Notice
    acked: bool  # a comment wake to a worker that takes it: its comment gets a reaction


def build_plan(
    fake: FakeGitHub, *, notices: int, workers: int, seed: int
) -> tuple[list[dict[str, Any]], list[PlannedNotice]]:
    """Batches (as the driver's JSON) and the notices in them, in commit order."""
    rng = random.Random(seed)
    names = [f"w{k}" for k in range(workers)] + [GONE_WORKER, ARCHIVED_WORKER]
    prs = {w: fake.add_pr(f"crash/{w}", 1, title=f"work of {w}") for w in names}
    per_pr: Counter[str] = Counter()
    batches: list[dict[str, Any]] = []
    planned: list[PlannedNotice] = []
    while len(planned) < notices:
        worker = rng.choice(names)
        pr = prs[worker]
        batch: list[Notice] = []
        for _ in range(rng.choice((1, 2, 3))):
            kind = "comment-wake" if rng.random() < 0.85 else "check-failed"
            if kind == "comment-wake":
                item_id = fake.post_comment(pr, "alice", f"comment {len(planned)}")
                item = NoticeItem(item_id, None, f"{pr}#c", "alice", "comment")
            else:
                item = NoticeItem(f"CR_{len(planned)}", None, f"{pr}#check", None, "check")
            notice = Notice(
                version=NOTICE_VERSION,
                kind=kind,
                key=notice_key(worker, pr, kind, [item.id]),
                worker=worker,
                pr=NoticePr(pr.host, pr.repo, pr.number, f"https://{pr.host}/{pr.repo}/pull/1", ""),
                items=(item,),
                text=f"notice {len(planned)} for {worker}",
                created_at=datetime(2026, 1, 5, tzinfo=UTC),
            )
            batch.append(notice)
            planned.append(
                PlannedNotice(notice, kind == "comment-wake" and worker in names[:workers])
            )
        batches.append(
            {
                "pr": msgspec.to_builtins(pr),
                "index": per_pr[worker],
                "notices": [msgspec.to_builtins(n) for n in batch],
            }
        )
        per_pr[worker] += 1
    return batches, planned


# Points a short run may pass only once: it commits few batches, and a merge needs a busy
# head with notices behind it.
_RARE_POINTS = frozenset({"merged", "ack-before-send", "ack-sent", "outbox-written"})


@dataclass
class Tally:
    kills: int = 0
    random_kills: int = 0
    point_kills: Counter[str] = field(default_factory=Counter)
    clean_runs: int = 0
    missed: Counter[str] = field(default_factory=Counter)  # runs that ended before the point


class Runner:
    """Starts the driver on one store, over and over."""

    def __init__(
        self,
        tmp: Path,
        receiver: Receiver,
        github_url: str,
        batches: list[dict[str, Any]],
        seed: int,
    ) -> None:
        self.tmp = tmp
        self.receiver = receiver
        self.github_url = github_url
        self.batches = batches
        self.rng = random.Random(seed)
        self.tally = Tally()
        self.runs = 0

    @property
    def state_dir(self) -> Path:
        return self.tmp / "state"

    def _spec(self, max_batches: int, kill_at: str | None) -> Path:
        self.runs += 1
        path = self.tmp / f"run-{self.runs}.json"
        spec = {
            "state_dir": str(self.state_dir),
            "receiver": self.receiver.url,
            "github": self.github_url,
            "secret": SECRET,
            "archived": [ARCHIVED_WORKER],
            "orchestrator": ORCHESTRATOR,
            "batches": self.batches,
            "max_batches": max_batches,
            "seed": self.rng.randrange(1 << 30),
            "kill_at": kill_at,
        }
        path.write_text(json.dumps(spec))
        return path

    def _start(self, max_batches: int, kill_at: str | None) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            [sys.executable, str(DRIVER), str(self._spec(max_batches, kill_at))],
            stdout=subprocess.PIPE,
        )

    def run_once(
        self,
        max_batches: int,
        point: str | None,
        *,
        kill: bool = True,
        nth: int | None = None,
        timeout: float = 60.0,
    ) -> bool:
        """One run; ``point`` None: killed at a random moment (``kill`` False: not at all),
        else at the ``nth`` time it reaches ``point`` (default: 1 or 2 for the points
        every run passes, 1 for the rarer ones).  True when it was killed."""
        if nth is None:
            nth = 1 if point in _RARE_POINTS else self.rng.randint(1, 2)
        kill_at = None if point is None else f"{point}:{nth}"
        proc = self._start(max_batches, kill_at)
        assert proc.stdout is not None
        line = proc.stdout.readline()
        if kill and point is None and line.strip() == b"ready":
            time.sleep(self.rng.uniform(0.0, 0.15))
            if proc.poll() is None:
                proc.send_signal(signal.SIGKILL)
        code = proc.wait(timeout)
        proc.stdout.close()
        if code == -signal.SIGKILL:
            self.tally.kills += 1
            if point is None:
                self.tally.random_kills += 1
            else:
                self.tally.point_kills[point] += 1
            return True
        if code != 0:
            raise AssertionError(f"driver run {self.runs} exited {code}")
        self.tally.clean_runs += 1
        self.tally.missed[str(point)] += 1
        return False

    def crash_many(self, *, per_point: int, random_kills: int, max_runs: int) -> None:
        """Kill at each named point ``per_point`` times and at ``random_kills`` random
        moments, in a shuffled order, spreading the plan's batches over the runs."""
        todo: list[str | None] = [p for p in KILL_POINTS for _ in range(per_point)]
        todo += [None] * random_kills
        self.rng.shuffle(todo)
        total = len(todo)
        while todo:
            if self.runs >= max_runs:
                raise AssertionError(f"kill quota not met after {self.runs} runs: {todo}")
            # Leave about a third of the plan for the final clean run.
            share = max(1, (2 * len(self.batches)) // (3 * total))
            point = todo[0]
            if point is None or point in _RARE_POINTS:
                share *= 2
            if self.run_once(share, point):
                todo.pop(0)
            else:
                # It finished without reaching the point: try that point again later.
                todo.append(todo.pop(0))

    def finish(self) -> None:
        """A last run without kills that drains everything."""
        if self.run_once(len(self.batches), None, kill=False):
            raise AssertionError("the final run was killed")


def verdict(receiver: Receiver, planned: list[PlannedNotice]) -> dict[str, int]:
    """``lost``: notices none of whose effect reached a receiver; ``duplicated``: notices
    whose comment took effect under more than one key (after de-duplication by key)."""
    effects: Counter[str] = Counter()
    for _worker, notice in receiver.applied.values():
        for item in notice.items:
            effects[item.id] += 1
    lost = sum(1 for p in planned if effects[p.notice.items[0].id] == 0)
    duplicated = sum(1 for p in planned if effects[p.notice.items[0].id] > 1)
    return {"lost": lost, "duplicated": duplicated, "redeliveries": receiver.redeliveries}
