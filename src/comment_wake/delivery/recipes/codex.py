"""Wake a Codex thread by headless resume.

    python -m comment_wake.delivery.recipes.codex --session-id THREAD [--codex PATH] \
        [--cwd WORKTREE] [-- EXTRA CODEX EXEC FLAGS]

Runs ``codex exec --json EXTRA resume THREAD -`` with the notice's text on standard input
(``-`` reads the prompt from stdin, so comment text never reaches argv).  Pass the worker's
usual ``--sandbox``/approval flags as EXTRA: resume does not inherit them.  A
``turn.completed`` or ``turn.failed`` event means the thread took the turn (exit 0, first
line ``session-id: <thread_id>``); exit 0 without a turn means busy (75); an error naming
a missing session or rollout means gone (69); no ``codex`` executable is refused (78);
anything else exits 1 for a retry.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Sequence

from ._common import (
    EXIT_BUSY,
    EXIT_DELIVERED,
    EXIT_GONE,
    EXIT_REFUSED,
    EXIT_RETRY,
    fail,
    json_lines,
    read_notice,
    run_tool,
    valid_session_id,
)

_GONE = re.compile(
    rb"no (saved )?(session|thread|rollout|conversation)[^\n]{0,80}found|"
    rb"(session|thread|rollout)[^\n]{0,80}not found",
    re.IGNORECASE,
)
_TURN_DONE = frozenset({"turn.completed", "turn.failed"})


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m comment_wake.delivery.recipes.codex")
    parser.add_argument("--session-id", default=os.environ.get("COMMENT_WAKE_SESSION_ID"))
    parser.add_argument("--codex", default="codex", help="the codex executable")
    parser.add_argument("--cwd", default=None, help="the worker's worktree")
    parser.add_argument("extra", nargs="*", help="more codex exec flags, after --")
    args = parser.parse_args(argv)
    sid: str | None = args.session_id
    if not sid or not valid_session_id(sid) or sid.startswith("-"):
        return fail(EXIT_REFUSED, "codex recipe: a valid --session-id is required")
    notice = read_notice(sys.stdin.buffer.read())
    if notice is None:
        return fail(EXIT_REFUSED, "codex recipe: standard input is not a notice")
    command = [args.codex, "exec", "--json", *args.extra, "resume", sid, "-"]
    ran = run_tool(command, notice.text.encode("utf-8"), cwd=args.cwd)
    if ran is None:
        return fail(EXIT_REFUSED, f"codex recipe: cannot run {args.codex!r}")
    events = json_lines(ran.stdout)
    turn = next((e for e in events if e.get("type") in _TURN_DONE), None)
    if ran.code != 0 and turn is None:
        if _GONE.search(ran.stderr) or _GONE.search(ran.stdout):
            return fail(EXIT_GONE, f"codex recipe: thread {sid} not found")
        return fail(EXIT_RETRY, f"codex recipe: codex exited {ran.code}")
    if turn is None:
        return fail(EXIT_BUSY, f"codex recipe: thread {sid} did not take the turn")
    started = (e.get("thread_id") for e in events if e.get("type") == "thread.started")
    thread = next((t for t in started if isinstance(t, str) and valid_session_id(t)), sid)
    print(f"session-id: {thread}", flush=True)
    if turn.get("type") == "turn.failed":
        print("codex recipe: the turn failed after taking the notice", file=sys.stderr)
    return EXIT_DELIVERED


if __name__ == "__main__":
    sys.exit(main())
