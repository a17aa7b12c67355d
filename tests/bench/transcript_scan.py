"""Benchmark the transcript readers (a script, not a test).

Run: ``python tests/bench/transcript_scan.py [--mb 100]``.

Generates a realistic transcript of each format (mostly assistant text, reasoning and the
output of reads; about 5% of lines are tool calls, a tenth of them posts to GitHub; some
outputs of several hundred KB), then measures a fresh reader's first pass, an incremental
read of a 1 MB append, and a full re-read from offset 0. Peak memory is measured in a
subprocess that only reads. The last line printed is one JSON object; the top-level
figures are the worst over the formats.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

from comment_wake.ownpost import OwnPostState, TranscriptSource, scan

WINDOW = timedelta(hours=2)
T0 = datetime(2026, 8, 1, tzinfo=UTC)
_PROSE = (
    "the retry budget is now per host and the flaky timeout test uses a fake clock so the "
    "suite no longer depends on wall time; next I will look at the metrics rename and the "
    "jitter question from review"
)
WORDS = _PROSE.split(" ")


def _text(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n))


def _iso(i: int) -> str:
    return (T0 + timedelta(seconds=i)).strftime("%Y-%m-%dT%H:%M:%S.000Z")


def _command(rng: random.Random, i: int) -> tuple[str, str, bool]:
    """(shell command, its output, whether it posts)."""
    if rng.random() < 0.1:
        body = _text(rng, 30)
        url = f"https://github.com/acme/widget/pull/7#issuecomment-{900000 + i}"
        return f"gh pr comment 7 --body '{body}'", url + "\n", True
    if rng.random() < 0.02:
        return "cat src/big_module.py", _text(rng, 60000), False  # several hundred KB
    return (
        f"grep -rn retry src/ | head -{rng.randint(5, 50)}",
        _text(rng, rng.randint(50, 400)),
        False,
    )


def _claude_lines(rng: random.Random, start: int) -> Iterator[str]:
    i = start
    base = {
        "sessionId": "bench",
        "cwd": "/work/widget",
        "version": "2.1.220",
        "userType": "external",
    }
    while True:
        i += 1
        if i % 200 == 0:
            yield json.dumps(
                {
                    **base,
                    "type": "user",
                    "timestamp": _iso(i),
                    "message": {"role": "user", "content": _text(rng, 20)},
                }
            )
        roll = rng.random()
        if roll < 0.05:
            command, output, _ = _command(rng, i)
            tid = f"toolu_{i}"
            yield json.dumps(
                {
                    **base,
                    "type": "assistant",
                    "timestamp": _iso(i),
                    "message": {
                        "id": f"msg_{i}",
                        "role": "assistant",
                        "content": [
                            {
                                "type": "tool_use",
                                "id": tid,
                                "name": "Bash",
                                "input": {"command": command},
                            }
                        ],
                    },
                }
            )
            yield json.dumps(
                {
                    **base,
                    "type": "user",
                    "timestamp": _iso(i + 1),
                    "message": {
                        "role": "user",
                        "content": [
                            {
                                "type": "tool_result",
                                "tool_use_id": tid,
                                "content": output,
                                "is_error": False,
                            }
                        ],
                    },
                    "toolUseResult": {
                        "stdout": output,
                        "stderr": "",
                        "interrupted": False,
                        "isImage": False,
                    },
                }
            )
        elif roll < 0.35:
            yield json.dumps(
                {
                    **base,
                    "type": "assistant",
                    "timestamp": _iso(i),
                    "message": {
                        "id": f"msg_{i}",
                        "role": "assistant",
                        "content": [
                            {
                                "type": "thinking",
                                "thinking": _text(rng, 300),
                                "signature": "x" * 200,
                            }
                        ],
                    },
                }
            )
        elif roll < 0.45:
            yield json.dumps(
                {
                    **base,
                    "type": "progress",
                    "timestamp": _iso(i),
                    "data": {"type": "hook_progress", "hookName": "PostToolUse"},
                }
            )
        else:
            yield json.dumps(
                {
                    **base,
                    "type": "assistant",
                    "timestamp": _iso(i),
                    "message": {
                        "id": f"msg_{i}",
                        "role": "assistant",
                        "content": [{"type": "text", "text": _text(rng, rng.randint(100, 600))}],
                    },
                }
            )


def _codex_lines(rng: random.Random, start: int, *, legacy: bool) -> Iterator[str]:
    i = start

    def item(kind: str, payload: dict[str, object], at: int) -> str:
        if legacy:
            return json.dumps(payload)
        return json.dumps({"timestamp": _iso(at), "type": kind, "payload": payload})

    if start == 0:
        if legacy:
            yield json.dumps({"id": "bench", "timestamp": _iso(0), "instructions": None})
        else:
            yield item("session_meta", {"id": "bench", "cwd": "/work/widget"}, 0)
    while True:
        i += 1
        if i % 200 == 0:
            yield item(
                "response_item",
                {
                    "type": "message",
                    "role": "user",
                    "content": [{"type": "input_text", "text": _text(rng, 20)}],
                },
                i,
            )
        roll = rng.random()
        if roll < 0.05:
            command, output, _ = _command(rng, i)
            cid = f"call_{i}"
            if legacy:
                args = {"command": ["bash", "-lc", command], "workdir": "/work/widget"}
                out = json.dumps(
                    {"output": output, "metadata": {"exit_code": 0, "duration_seconds": 0.5}}
                )
                name = "shell"
            else:
                args = {"cmd": command, "workdir": "/work/widget"}
                out = (
                    f"Chunk ID: ab12cd\nWall time: 0.5 seconds\nProcess exited with code 0\n"
                    f"Original token count: 10\nOutput:\n{output}"
                )
                name = "exec_command"
            yield item(
                "response_item",
                {
                    "type": "function_call",
                    "name": name,
                    "arguments": json.dumps(args),
                    "call_id": cid,
                },
                i,
            )
            yield item(
                "response_item",
                {"type": "function_call_output", "call_id": cid, "output": out},
                i + 1,
            )
        elif roll < 0.35:
            yield item(
                "response_item",
                {
                    "type": "reasoning",
                    "summary": [{"type": "summary_text", "text": _text(rng, 40)}],
                    "encrypted_content": "g" * 1500,
                },
                i,
            )
        elif roll < 0.45 and not legacy:
            yield item("event_msg", {"type": "agent_message", "message": _text(rng, 80)}, i)
        else:
            yield item(
                "response_item",
                {
                    "type": "message",
                    "role": "assistant",
                    "content": [{"type": "output_text", "text": _text(rng, rng.randint(100, 600))}],
                },
                i,
            )


GENERATORS: dict[str, Callable[[random.Random, int], Iterator[str]]] = {
    "claude-code": _claude_lines,
    "codex": lambda rng, start: _codex_lines(rng, start, legacy=False),
    "codex-legacy": lambda rng, start: _codex_lines(rng, start, legacy=True),
}


def _write(path: Path, lines: Iterator[str], size: int, *, mode: str = "w") -> None:
    written = 0
    with path.open(mode) as fh:
        for line in lines:
            fh.write(line + "\n")
            written += len(line) + 1
            if written >= size:
                return


def _scan_once(path: Path, state: OwnPostState) -> tuple[OwnPostState, float]:
    started = time.perf_counter()
    new = scan(state, [TranscriptSource(path=str(path))], T0 + timedelta(days=30), window=WINDOW)
    return new, time.perf_counter() - started


_RSS_CHILD = """
import resource, sys
from datetime import UTC, datetime, timedelta
from comment_wake.ownpost import OwnPostState, TranscriptSource, scan
scan(OwnPostState(), [TranscriptSource(path=sys.argv[1])], datetime(2026, 9, 1, tzinfo=UTC),
     window=timedelta(hours=2))
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
"""


def measure(fmt: str, mb: int, folder: Path) -> dict[str, float]:
    rng = random.Random(fmt)
    path = folder / f"{fmt}.jsonl"
    gen = GENERATORS[fmt](rng, 0)
    _write(path, gen, mb << 20)
    state, first = _scan_once(path, OwnPostState())
    _write(path, GENERATORS[fmt](rng, 10_000_000), 1 << 20, mode="a")
    _, append = _scan_once(path, state)
    _, rescan = _scan_once(path, OwnPostState())
    rss = subprocess.run(
        [sys.executable, "-c", _RSS_CHILD, str(path)], check=True, capture_output=True, text=True
    ).stdout.strip()
    size = os.path.getsize(path)
    path.unlink()
    return {
        "file_mb": round(size / (1 << 20), 1),
        "first_scan_s": round(first, 3),
        "append_1mb_ms": round(append * 1000, 1),
        "full_rescan_s": round(rescan, 3),
        "rescan_over_append": round(rescan / append, 1),
        "peak_rss_mb": round(float(rss), 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mb", type=int, default=100)
    parser.add_argument("--formats", nargs="*", default=list(GENERATORS))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        formats = {}
        for fmt in args.formats:
            formats[fmt] = measure(fmt, args.mb, Path(tmp))
            print(fmt, json.dumps(formats[fmt]), flush=True)
    worst = {
        "first_scan_s": max(f["first_scan_s"] for f in formats.values()),
        "append_1mb_ms": max(f["append_1mb_ms"] for f in formats.values()),
        "full_rescan_s": max(f["full_rescan_s"] for f in formats.values()),
        "peak_rss_mb": max(f["peak_rss_mb"] for f in formats.values()),
    }
    print(json.dumps({"mb": args.mb, **worst, "formats": formats}))


if __name__ == "__main__":
    main()
