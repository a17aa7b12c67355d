"""Comment-to-notice latency, in real time, without and with webhook hints (not collected).

    .venv/bin/python tests/bench/wake_latency.py [--poll 4] [--comments 50] [--spread 60]

The daemon (``python -m comment_wake run``, a subprocess) polls FakeGitHub on loopback
every ``--poll`` seconds with the default rate limits; each worker is bound to its own PR
through the inbox publisher.  Phase one posts one trusted comment on each of ``--comments``
PRs at random times over ``--spread`` seconds; phase two does the same on as many other
PRs and, right after each comment, POSTs a signed ``issue_comment`` delivery to the
daemon's hint listener.  The latency of a comment is from just before it is posted to
the moment its notice appears in the worker's inbox (a thread takes the inboxes every
20 ms, as a hook would).  Last line: ``{"poll_interval_s", "comments", "median_s",
"p95_s", "hint_median_s", "hint_p95_s"}``.  Targets: median at most poll/2 + 1 s; with
hints, p95 under 2 s.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

from comment_wake.delivery import take
from comment_wake.hints import github_signature
from comment_wake.registry import InboxSpec, Registry
from review_monitor import PrRef
from review_monitor.testing import FakeGitHub

TOKEN = "ghp_LatencyBench0123456789abcdefghijklmno"
SECRET = "latency-bench-webhook-secret"
REPO = "bench-org/bench-repo"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


class Bench:
    def __init__(self, workdir: Path, poll: int, prs: int) -> None:
        self.workdir = workdir
        self.state_dir = workdir / "state"
        self.fake = FakeGitHub(viewer="octo-worker", token=TOKEN, graphql_limit=100_000)
        self.fake.set_permission(REPO, "alice", "write")
        self.prs = [self.fake.add_pr(REPO, n, title=f"Change {n}") for n in range(1, prs + 1)]
        self.poll = poll
        self.port = _free_port()
        self.posted: dict[str, float] = {}  # comment id -> wall time just before posting
        self.arrived: dict[str, float] = {}
        self._stop = threading.Event()

    def bind(self) -> None:
        with Registry.open(self.state_dir) as registry:
            registry.add_orchestrator("lead", InboxSpec())
            for pr in self.prs:
                registry.bind(f"w{pr.number}", pr, orchestrator="lead", publisher=InboxSpec())

    def config(self, base_url: str) -> Path:
        path = self.workdir / "config.toml"
        path.write_text(
            f"""\
log_format = "json"
[github]
api_url = "{base_url}"
[monitor]
poll_interval = "{self.poll}s"
[delivery]
scan_interval = "1s"
[webhook]
enabled = true
port = {self.port}
""",
            encoding="utf-8",
        )
        return path

    def watch_inboxes(self) -> None:
        root = self.state_dir / "inbox"
        while not self._stop.is_set():
            for pr in self.prs:
                worker = f"w{pr.number}"
                # A listing is cheap; take (lock, rename, fsync) only when something is there,
                # so the watcher does not slow FakeGitHub, which serves from this process.
                try:
                    pending = os.listdir(root / worker / "new")
                except FileNotFoundError:
                    continue
                if not pending:
                    continue
                now = time.time()
                for notice in take(root, worker):
                    for item in notice.items:
                        self.arrived.setdefault(item.id, now)
            self._stop.wait(0.02)

    def hint(self, client: httpx.Client, pr: PrRef, comment_db: int) -> None:
        payload = {
            "action": "created",
            "issue": {"number": pr.number, "pull_request": {"url": "x"}},
            "comment": {"id": comment_db},
            "repository": {"full_name": pr.repo, "html_url": f"https://github.com/{pr.repo}"},
        }
        body = json.dumps(payload).encode()
        client.post(
            f"http://127.0.0.1:{self.port}/github",
            content=body,
            headers={
                "content-type": "application/json",
                "x-github-event": "issue_comment",
                "x-github-delivery": f"bench-{comment_db}",
                "x-hub-signature-256": github_signature(SECRET.encode(), body),
            },
        )

    def phase(self, prs: list[PrRef], spread: float, hints: bool, rng: random.Random) -> list[str]:
        offsets = sorted(rng.uniform(0, spread) for _ in prs)
        t0 = time.monotonic()
        ids: list[str] = []
        with httpx.Client(timeout=5) as client:
            for pr, at in zip(prs, offsets, strict=True):
                time.sleep(max(0.0, t0 + at - time.monotonic()))
                before = time.time()
                node = self.fake.post_comment(pr, "alice", f"please look at #{pr.number}")
                self.posted[node] = before
                ids.append(node)
                if hints:
                    db = int(node.removeprefix("IC_fake")) + 1_000_000
                    self.hint(client, pr, db)
        deadline = time.monotonic() + 3 * self.poll + 30
        while time.monotonic() < deadline and not all(i in self.arrived for i in ids):
            time.sleep(0.1)
        return ids


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--poll", type=int, default=4, help="poll interval in seconds")
    parser.add_argument("--comments", type=int, default=50, help="comments (PRs) per phase")
    parser.add_argument("--spread", type=float, default=60.0, help="seconds per phase")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="comment-wake-latency-"))
    bench = Bench(workdir, args.poll, 2 * args.comments)
    bench.bind()
    rng = random.Random(args.seed)
    env = {k: v for k, v in os.environ.items() if k not in ("GH_TOKEN", "GITHUB_TOKEN")}
    env.update(GH_TOKEN=TOKEN, COMMENT_WAKE_WEBHOOK_SECRET=SECRET, HOME=str(workdir / "home"))
    with bench.fake.serve_in_thread() as base_url, (workdir / "daemon.log").open("wb") as log:
        config = bench.config(base_url)
        daemon = subprocess.Popen(
            [sys.executable, "-m", "comment_wake", "run", "--config", str(config),
             "--state-dir", str(bench.state_dir)],
            env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
        )  # fmt: skip
        watcher = threading.Thread(target=bench.watch_inboxes, daemon=True)
        watcher.start()
        try:
            time.sleep(3 * args.poll)  # the first poll's baselines
            half = args.comments
            plain = bench.phase(bench.prs[:half], args.spread, hints=False, rng=rng)
            hinted = bench.phase(bench.prs[half:], args.spread, hints=True, rng=rng)
        finally:
            daemon.terminate()
            daemon.wait(timeout=60)
            bench._stop.set()
            watcher.join()

    def latencies(ids: list[str]) -> list[float]:
        return [bench.arrived[i] - bench.posted[i] for i in ids if i in bench.arrived]

    a, b = latencies(plain), latencies(hinted)
    missing = 2 * args.comments - len(a) - len(b)
    print(f"daemon log {workdir / 'daemon.log'}; {missing} comment(s) never arrived")
    print(f"no hints: min {min(a):.2f}s max {max(a):.2f}s; hints: min {min(b):.2f}s "
          f"max {max(b):.2f}s")  # fmt: skip
    figures = {
        "poll_interval_s": args.poll,
        "comments": len(a),
        "median_s": round(statistics.median(a), 2),
        "p95_s": round(_quantile(a, 0.95), 2),
        "hint_median_s": round(statistics.median(b), 2),
        "hint_p95_s": round(_quantile(b, 0.95), 2),
    }
    print(json.dumps(figures))
    return 0 if missing == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
