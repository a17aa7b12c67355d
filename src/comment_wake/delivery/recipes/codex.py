"""Wake a Codex thread by headless resume.

    python -m comment_wake.delivery.recipes.codex --session-id THREAD [--codex PATH] \
        [--cwd WORKTREE] [--codex-home DIR] [--state-dir DIR] [-- EXTRA CODEX EXEC FLAGS]

``THREAD`` is a thread id (a UUID) or a thread name (``session_index.jsonl``).  The recipe
first resolves it to a rollout under ``CODEX_HOME`` (``--codex-home``, else
``$CODEX_HOME``, else ``~/.codex``) and exits 69 without running codex when there is none:
given an id it does not know, ``codex exec resume`` silently starts a new thread with the
notice as its first prompt (measured on 0.169.0 and 0.171.0).  Then it runs
``codex exec --json EXTRA resume UUID -`` with the notice's text on standard input (``-``
reads the prompt from stdin, so comment text never reaches argv).  Pass the worker's usual
``--sandbox``/approval flags as EXTRA: resume does not inherit them.

- 0 delivered: a ``turn.completed`` or ``turn.failed`` event (first line
  ``session-id: <thread_id>``).  Also 0, without running codex, for a notice this recipe
  delivered before (its key is kept under the state directory) or whose fence opener is
  already in the thread's rollout.
- 75 busy: "thread X already has an active writer" (another codex process holds the
  thread; Codex does not say until when), or exit 0 without a turn.
- 69 gone: no rollout for the id or name, or codex names a missing session or rollout.
- 78 refused: no valid ``--session-id``, standard input is not a notice, no ``codex``.
- 1 anything else, retried.

The CLI's own reason (its ``Error:`` line) is the last line of stderr, so it reaches the
outcome and the daemon's log.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Sequence
from pathlib import Path

import msgspec

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
    rb"no (saved )?(session|thread|rollout|conversation)[^\n]{0,80}found|"
    rb"(session|thread|rollout)[^\n]{0,80}not found",
    re.IGNORECASE,
)
_BUSY = re.compile(rb"already has an active writer", re.IGNORECASE)
_TURN_DONE = frozenset({"turn.completed", "turn.failed"})


def codex_home(given: str | None = None) -> Path:
    home = given or os.environ.get("CODEX_HOME")
    return Path(home) if home else Path.home() / ".codex"


def resolve_thread(thread: str, home: Path) -> tuple[str, Path] | None:
    """(thread id, rollout) for an id or a thread name, or ``None``: Codex has no such
    thread.  A name is looked up in ``session_index.jsonl`` (its last entry wins)."""
    thread_id: str | None = thread if is_uuid(thread) else None
    if thread_id is None:
        try:
            data = (home / "session_index.jsonl").read_bytes()
        except OSError:
            return None
        for line in data.splitlines():
            try:
                entry = msgspec.json.decode(line)
            except msgspec.DecodeError:
                continue
            if isinstance(entry, dict) and entry.get("thread_name") == thread:
                found = entry.get("id")
                if isinstance(found, str) and is_uuid(found):
                    thread_id = found
        if thread_id is None:
            return None
    for folder in ("sessions", "archived_sessions"):
        rollouts = sorted((home / folder).rglob(f"rollout-*-{thread_id}.jsonl"))
        if rollouts:
            return thread_id, rollouts[-1]
    return None


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m comment_wake.delivery.recipes.codex")
    parser.add_argument("--session-id", default=os.environ.get("COMMENT_WAKE_SESSION_ID"))
    parser.add_argument("--codex", default="codex", help="the codex executable")
    parser.add_argument("--cwd", default=None, help="the worker's worktree")
    parser.add_argument("--codex-home", default=None, help="CODEX_HOME of the worker")
    parser.add_argument("--state-dir", default=None, help="where delivered keys are kept")
    parser.add_argument("extra", nargs="*", help="more codex exec flags, after --")
    args = parser.parse_args(argv)
    sid: str | None = args.session_id
    if not sid or not valid_session_id(sid) or sid.startswith("-"):
        return fail(EXIT_REFUSED, "codex recipe: a valid --session-id is required")
    notice = read_notice(sys.stdin.buffer.read())
    if notice is None:
        return fail(EXIT_REFUSED, "codex recipe: standard input is not a notice")
    home = codex_home(args.codex_home)
    resolved = resolve_thread(sid, home)
    if resolved is None:
        return fail(EXIT_GONE, f"codex recipe: no rollout for thread {sid} under {home}")
    thread_id, rollout = resolved
    keys = DeliveredKeys(recipe_state_dir(args.state_dir), "codex")
    before = already_delivered(keys, notice, rollout, thread_id)
    if before is not None:
        return repeat("codex", before)
    command = [args.codex, "exec", "--json", *args.extra, "resume", thread_id, "-"]
    ran = run_tool(command, notice.text.encode("utf-8"), cwd=args.cwd)
    if ran is None:
        return fail(EXIT_REFUSED, f"codex recipe: cannot run {args.codex!r}")
    events = json_lines(ran.stdout)
    turn = next((e for e in events if e.get("type") in _TURN_DONE), None)
    reason = cli_reason(ran.stderr)
    if ran.code != 0 and turn is None:
        if _BUSY.search(ran.stderr) or _BUSY.search(ran.stdout):
            return fail(EXIT_BUSY, f"codex recipe: thread {thread_id} is busy: {reason}")
        if _GONE.search(ran.stderr) or _GONE.search(ran.stdout):
            return fail(EXIT_GONE, f"codex recipe: thread {thread_id} not found: {reason}")
        return fail(EXIT_RETRY, f"codex recipe: codex exited {ran.code}: {reason}")
    if turn is None:
        return fail(EXIT_BUSY, f"codex recipe: thread {thread_id} did not take the turn")
    started = (e.get("thread_id") for e in events if e.get("type") == "thread.started")
    thread = next((t for t in started if isinstance(t, str) and valid_session_id(t)), thread_id)
    if turn.get("type") == "turn.failed":
        print("codex recipe: the turn failed after taking the notice", file=sys.stderr)
    return delivered(keys, notice, thread)


if __name__ == "__main__":
    sys.exit(main())
