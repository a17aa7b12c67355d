"""The hourly cap on what a worker sends its orchestrator holds across servers: four real
processes over one real SQLite file, each calling the tool from ten threads at once (as the
MCP server runs each call in a worker thread), let exactly the cap through."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

from comment_wake._paths import inbox_root, store_path
from comment_wake.registry import InboxSpec, Registry
from comment_wake.store import open_sync_store
from review_monitor import PrRef, SystemClock

PROCESSES = 4
CALLS_EACH = 10
CAP = 20  # [delivery] worker_messages_per_hour's default

# One server's worth: the tools `comment-wake mcp w1` serves, opened as it opens them; it says
# "ready", waits for "go" on stdin, then makes its calls from threads released together.
_SERVER = """
import json, sys, threading
from pathlib import Path
from comment_wake.config import AppConfig
from comment_wake.tools import ToolRefused, worker_tools

state, name, calls = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
results = []
with worker_tools("w1", AppConfig(), state) as tools:
    start = threading.Barrier(calls)

    def call(i):
        start.wait()
        try:
            results.append(tools.message_orchestrator(f"note {name}-{i}"))
        except ToolRefused as exc:
            results.append(f"refused: {exc}")
        except Exception as exc:  # shown in the failure, not lost on stderr
            results.append(f"error: {exc!r}")

    threads = [threading.Thread(target=call, args=(i,)) for i in range(calls)]
    print("ready", flush=True)
    sys.stdin.readline()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
print(json.dumps(results))
"""


def _bound_state(state: Path) -> None:
    store = open_sync_store(store_path(state))
    try:
        registry = Registry(store, inbox_root=inbox_root(state), clock=SystemClock())
        registry.add_orchestrator("lead", InboxSpec())
        registry.bind("w1", PrRef("octo", "repo", 7), orchestrator="lead", publisher=InboxSpec())
    finally:
        store.close()


def _outcome(result: str) -> str:
    if result.startswith("message queued for orchestrator lead"):
        return "accepted"
    if result.startswith(f"refused: {CAP} messages and reports in the last hour"):
        return "refused by the cap"
    return result


def test_forty_parallel_calls_over_four_servers_let_exactly_the_cap_through(
    tmp_path: Path,
) -> None:
    state = tmp_path / "state"
    _bound_state(state)
    servers = [
        subprocess.Popen(
            [sys.executable, "-c", _SERVER, str(state), f"s{n}", str(CALLS_EACH)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for n in range(PROCESSES)
    ]
    try:
        for server in servers:
            assert server.stdout is not None
            assert "ready" == server.stdout.readline().strip(), server.communicate()[1]
        for server in servers:
            assert server.stdin is not None
            server.stdin.write("go\n")
            server.stdin.flush()
        outputs = [server.communicate(timeout=120) for server in servers]
    finally:
        for server in servers:
            if server.poll() is None:
                server.kill()
                server.wait()
    assert [0] * PROCESSES == [s.returncode for s in servers], [err for _, err in outputs]
    results = [r for out, _ in outputs for r in json.loads(out.splitlines()[-1])]
    expected = {"accepted": CAP, "refused by the cap": PROCESSES * CALLS_EACH - CAP}
    assert expected == dict(Counter(_outcome(r) for r in results))
