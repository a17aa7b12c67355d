"""Wake a Claude Code session by headless resume.

    python -m comment_wake.delivery.recipes.claude --session-id ID [--claude PATH] \
        [--cwd WORKTREE] [-- EXTRA CLAUDE FLAGS]

Runs ``claude -p --resume=ID --output-format stream-json --verbose EXTRA`` with the notice's
text on standard input and reads the stream: a ``result`` event means the session took
the turn (exit 0, first line ``session-id: <id>`` with the id the stream reports, which
may be new); exit 0 without a ``result`` event means the session refused the resume
because it is running elsewhere (exit 75, busy); "No conversation found" means the
session is gone (exit 69); no ``claude`` executable is a configuration fault (78); any
other failure exits 1 so the publisher retries.

Never resume a session whose interactive process is alive: two writers corrupt its
transcript.  Use the inbox and hooks for live sessions (``docs/recipes/claude-code.md``).
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

_GONE = re.compile(rb"No conversation found|session .{0,80}not found", re.IGNORECASE)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m comment_wake.delivery.recipes.claude")
    parser.add_argument("--session-id", default=os.environ.get("COMMENT_WAKE_SESSION_ID"))
    parser.add_argument("--claude", default="claude", help="the claude executable")
    parser.add_argument("--cwd", default=None, help="the worker's worktree")
    parser.add_argument("extra", nargs="*", help="more claude flags, after --")
    args = parser.parse_args(argv)
    sid: str | None = args.session_id
    if not sid or not valid_session_id(sid):
        return fail(EXIT_REFUSED, "claude recipe: a valid --session-id is required")
    notice = read_notice(sys.stdin.buffer.read())
    if notice is None:
        return fail(EXIT_REFUSED, "claude recipe: standard input is not a notice")
    # --resume=ID in one token: a value starting with a dash can never become a flag.
    command = [
        args.claude,
        "-p",
        f"--resume={sid}",
        "--output-format",
        "stream-json",
        "--verbose",
        *args.extra,
    ]
    ran = run_tool(command, notice.text.encode("utf-8"), cwd=args.cwd)
    if ran is None:
        return fail(EXIT_REFUSED, f"claude recipe: cannot run {args.claude!r}")
    events = json_lines(ran.stdout)
    result = next((e for e in events if e.get("type") == "result"), None)
    if ran.code != 0:
        if _GONE.search(ran.stderr) or _GONE.search(ran.stdout):
            return fail(EXIT_GONE, f"claude recipe: session {sid} not found")
        return fail(EXIT_RETRY, f"claude recipe: claude exited {ran.code}")
    if result is None:
        # Claude exits 0 without a turn when the session runs elsewhere (a background job).
        return fail(EXIT_BUSY, f"claude recipe: session {sid} did not take the turn")
    reported = [e.get("session_id") for e in (result, *events)]
    new_id = next((s for s in reported if isinstance(s, str) and valid_session_id(s)), sid)
    print(f"session-id: {new_id}", flush=True)
    if result.get("is_error"):
        print(f"claude recipe: the turn ended with {result.get('subtype')}", file=sys.stderr)
    return EXIT_DELIVERED


if __name__ == "__main__":
    sys.exit(main())
