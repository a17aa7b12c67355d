"""Wake a Claude Code session by headless resume.

    python -m comment_wake.delivery.recipes.claude --session-id ID [--claude PATH] \
        [--cwd WORKTREE] [--state-dir DIR] [-- EXTRA CLAUDE FLAGS]

``ID`` is a session id (a UUID) or a session title (``claude -n TITLE``, ``/rename``).
Runs ``claude -p --resume=ID --output-format stream-json --verbose EXTRA`` with the
notice's text on standard input and reads the stream.  Exit codes, as measured on Claude
Code 2.1.197 and 2.1.332:

- 0 delivered: a ``result`` event (first line ``session-id: <id>``, the id the stream
  reports).  Also 0, without running claude, for a notice this recipe delivered before
  (its key is kept under the state directory) or whose fence opener is already in the
  session's transcript.
- 75 busy: the session runs as a background agent (``claude --bg``: "That session is
  running in the background"), or claude exited 0 without taking the turn.  Claude does not
  say when it will be free.
- 69 gone: "No conversation found with session ID" (a UUID no transcript has), or "is not
  a UUID and does not match any session title".
- 78 refused: no valid ``--session-id``, standard input is not a notice, no ``claude``.
- 1 anything else, retried.

The CLI's own reason (the ``result`` event's ``errors``, else its ``Error:`` line) is the
last line of stderr, so it reaches the outcome and the daemon's log.

Never resume a session whose interactive process is alive: two writers corrupt its
transcript.  Use the inbox and hooks for live sessions (``docs/recipes/claude-code.md``).
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Sequence
from pathlib import Path

from ._common import (
    EXIT_BUSY,
    EXIT_GONE,
    EXIT_REFUSED,
    EXIT_RETRY,
    DeliveredKeys,
    already_delivered,
    cli_reason,
    delivered,
    fail,
    is_uuid,
    json_lines,
    read_notice,
    recipe_state_dir,
    repeat,
    run_tool,
    valid_session_id,
)

_GONE = re.compile(
    rb"No conversation found|session .{0,80}not found|does not match any session title",
    re.IGNORECASE,
)
_BUSY = re.compile(rb"running in the background", re.IGNORECASE)


def claude_home() -> Path:
    given = os.environ.get("CLAUDE_CONFIG_DIR")
    return Path(given) if given else Path.home() / ".claude"


def session_transcript(session: str, home: Path | None = None) -> Path | None:
    """The transcript of a session by id, or by title (the last ``custom-title`` line that
    names it); ``None`` when none is found."""
    projects = (home or claude_home()) / "projects"
    if is_uuid(session):
        return next(iter(sorted(projects.glob(f"*/{session}.jsonl"))), None)
    needle = f'"customTitle":"{session}"'.encode()
    try:
        candidates = sorted(projects.glob("*/*.jsonl"), key=lambda p: p.stat().st_mtime)
    except OSError:
        return None
    for path in reversed(candidates):
        try:
            if needle in path.read_bytes():
                return path
        except OSError:
            continue
    return None


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m comment_wake.delivery.recipes.claude")
    parser.add_argument("--session-id", default=os.environ.get("COMMENT_WAKE_SESSION_ID"))
    parser.add_argument("--claude", default="claude", help="the claude executable")
    parser.add_argument("--cwd", default=None, help="the worker's worktree")
    parser.add_argument("--state-dir", default=None, help="where delivered keys are kept")
    parser.add_argument("extra", nargs="*", help="more claude flags, after --")
    args = parser.parse_args(argv)
    sid: str | None = args.session_id
    if not sid or not valid_session_id(sid):
        return fail(EXIT_REFUSED, "claude recipe: a valid --session-id is required")
    notice = read_notice(sys.stdin.buffer.read())
    if notice is None:
        return fail(EXIT_REFUSED, "claude recipe: standard input is not a notice")
    keys = DeliveredKeys(recipe_state_dir(args.state_dir), "claude")
    transcript = session_transcript(sid)
    known_id = transcript.stem if transcript is not None else sid
    before = already_delivered(keys, notice, transcript, known_id)
    if before is not None:
        return repeat("claude", before)
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
    reason = cli_reason(ran.stderr, events)
    if ran.code != 0:
        if _BUSY.search(ran.stderr) or _BUSY.search(ran.stdout):
            return fail(EXIT_BUSY, f"claude recipe: session {sid} is busy: {reason}")
        if _GONE.search(ran.stderr) or _GONE.search(ran.stdout):
            return fail(EXIT_GONE, f"claude recipe: session {sid} not found: {reason}")
        return fail(EXIT_RETRY, f"claude recipe: claude exited {ran.code}: {reason}")
    if result is None:
        # Claude exits 0 without a turn when the session runs elsewhere.
        return fail(EXIT_BUSY, f"claude recipe: session {sid} did not take the turn: {reason}")
    reported = [e.get("session_id") for e in (result, *events)]
    new_id = next((s for s in reported if isinstance(s, str) and valid_session_id(s)), sid)
    if result.get("is_error"):
        print(f"claude recipe: the turn ended with {result.get('subtype')}", file=sys.stderr)
    return delivered(keys, notice, new_id)


if __name__ == "__main__":
    sys.exit(main())
