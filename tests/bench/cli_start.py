"""How long a command of comment-wake takes to start, against a bare Python (not collected).

    .venv/bin/python tests/bench/cli_start.py [--runs 20] [--workers 20]

Set-up: a state directory with ``--workers`` bound workers, each with a mark and a
delivered comment's outcome, made by a real ``comment-wake run`` against FakeGitHub on
loopback (one trusted comment on each worker's PR, every notice delivered and taken).
Then, interleaved, ``--runs`` times each, in real processes:

- ``base``: ``python -c "import sqlite3, msgspec, json, argparse"``;
- ``version``: ``comment-wake --version``;
- ``inbox_take``: ``comment-wake inbox take W --text`` with nothing pending (what a
  Claude Code hook runs before every prompt and at every stop);
- ``status``: ``comment-wake status``;
- ``mcp``: from the start of ``comment-wake mcp W`` until it answers ``initialize``;
- ``toy_mcp``: the same for a 20-line stdio server on the same SDK class, one tool.

Last line: the medians in milliseconds and the ratios the targets are stated in
(issue 26): ``inbox_take`` and ``version`` at most 2.5x ``base``, ``status`` at most 10x,
``mcp`` at most 1.5x ``toy_mcp``.  Ratios are measured in one run, as the machine is
shared and noisy.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from comment_wake.delivery import take
from comment_wake.registry import InboxSpec, Registry
from review_monitor.testing import FakeGitHub

TOKEN = "ghp_CliStartBench0123456789abcdefghijklmno"
REPO = "bench-org/bench-repo"
PYTHON = sys.executable
WAIT = 120.0  # real seconds for the set-up daemon

TOY_SERVER = """\
from mcp.server.mcpserver import MCPServer

server = MCPServer("toy")


@server.tool()
def ping() -> str:
    \"\"\"Answer pong.\"\"\"
    return "pong"


server.run()
"""

INITIALIZE = (
    json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "cli-start-bench", "version": "1"},
            },
        }
    )
    + "\n"
)


def _wait(pred: Callable[[], bool], what: str, daemon: subprocess.Popen[bytes]) -> None:
    end = time.monotonic() + WAIT
    while not pred():
        if daemon.poll() is not None:
            raise SystemExit(f"the set-up daemon exited waiting for {what}")
        if time.monotonic() > end:
            raise SystemExit(f"{what} did not happen within {WAIT} s")
        time.sleep(0.2)


def set_up(workdir: Path, workers: int) -> tuple[Path, Path, str]:
    """(state dir, config, a worker's id): workers with marks and outcomes."""
    state = workdir / "state"
    fake = FakeGitHub(viewer="octo-worker", token=TOKEN, graphql_limit=100_000)
    fake.set_permission(REPO, "alice", "write")
    prs = [fake.add_pr(REPO, n, title=f"Change {n}") for n in range(1, workers + 1)]
    with Registry.open(state) as registry:
        registry.add_orchestrator("lead", InboxSpec())
        for pr in prs:
            registry.bind(f"w{pr.number}", pr, orchestrator="lead", publisher=InboxSpec())
    log = workdir / "daemon.log"
    with fake.serve_in_thread() as base_url:
        config = workdir / "config.toml"
        config.write_text(
            f'[github]\napi_url = "{base_url}"\n[monitor]\npoll_interval = "1s"\n'
            '[delivery]\nscan_interval = "1s"\n',
            encoding="utf-8",
        )
        env = {**os.environ, "GH_TOKEN": TOKEN, "HOME": str(workdir / "home")}
        location = ["--config", str(config), "--state-dir", str(state)]
        with log.open("w") as out:
            daemon = subprocess.Popen(
                [PYTHON, "-m", "comment_wake", "run", *location],
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=out,
            )
            try:
                _wait(lambda: "poll round" in log.read_text(), "the first poll round", daemon)
                for pr in prs:
                    fake.post_comment(pr, "alice", f"Please rename it in {pr.number}.")
                root = state / "inbox"
                taken: set[str] = set()

                def all_taken() -> bool:
                    for pr in prs:
                        if take(root, f"w{pr.number}"):
                            taken.add(f"w{pr.number}")
                    return len(taken) == len(prs)

                _wait(all_taken, "every worker's notice", daemon)
            finally:
                daemon.terminate()
                daemon.wait(timeout=WAIT)
    return state, config, "w1"


def _run(argv: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(argv, env=env, capture_output=True, check=False)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{argv[2:]} exited {done.returncode}: {done.stderr.decode()[-500:]}")
    return elapsed


def _initialize(argv: list[str], env: dict[str, str]) -> float:
    """Seconds from the start of ``argv`` until it answers ``initialize`` on stdout."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        argv, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )
    assert proc.stdin is not None
    assert proc.stdout is not None
    try:
        proc.stdin.write(INITIALIZE.encode())
        proc.stdin.flush()
        while True:
            line = proc.stdout.readline()
            if not line:
                raise SystemExit(f"{argv} closed stdout before answering initialize")
            if b'"id":1' in line.replace(b" ", b""):
                return time.perf_counter() - start
    finally:
        proc.kill()
        proc.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--workers", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        state, config, worker = set_up(workdir, args.workers)
        toy = workdir / "toy_server.py"
        toy.write_text(TOY_SERVER, encoding="utf-8")
        env = {
            **os.environ,
            "HOME": str(workdir / "home"),
            "COMMENT_WAKE_STATE_DIR": str(state),
            "COMMENT_WAKE_CONFIG": str(config),
        }
        cw = [PYTHON, "-m", "comment_wake"]
        measures: dict[str, Callable[[], float]] = {
            "base": lambda: _run([PYTHON, "-c", "import sqlite3, msgspec, json, argparse"], env),
            "version": lambda: _run([*cw, "--version"], env),
            "inbox_take": lambda: _run([*cw, "inbox", "take", worker, "--text"], env),
            "status": lambda: _run([*cw, "status"], env),
            "mcp": lambda: _initialize([*cw, "mcp", worker], env),
            "toy_mcp": lambda: _initialize([PYTHON, str(toy)], env),
        }
        times: dict[str, list[float]] = {name: [] for name in measures}
        for _ in range(args.runs):  # interleaved: a noisy moment hits every command alike
            for name, measure in measures.items():
                times[name].append(measure())
    ms = {name: round(statistics.median(t) * 1000, 1) for name, t in times.items()}
    base = ms["base"]
    figures = {
        "runs": args.runs,
        "workers": args.workers,
        **{f"{name}_ms": value for name, value in ms.items()},
        "version_x_base": round(ms["version"] / base, 2),
        "inbox_take_x_base": round(ms["inbox_take"] / base, 2),
        "status_x_base": round(ms["status"] / base, 2),
        "mcp_x_toy": round(ms["mcp"] / ms["toy_mcp"], 2),
    }
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
