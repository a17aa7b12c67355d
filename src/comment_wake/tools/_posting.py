"""What the posting tools post, and the checkout a review is pinned to.

Every post a worker's tools make ends with a visible line naming the worker and saying an
agent wrote it (the post goes out under a person's account: seed 002), then the hidden
marker ``<!-- comment-wake:KEY -->`` that makes it known as the worker's own.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Final

from comment_wake._post_marker import MARKER, marker
from comment_wake.registry import (
    AgentHomes,
    ClaudeSession,
    CodexThread,
    WorkerRecord,
    resolve_transcript,
)
from review_monitor.github import MAX_BODY_CHARS
from untrusted_fence import is_blank

__all__ = [
    "POST_TEXT_MAX",
    "agent_line",
    "checkout_head",
    "post_body",
    "text_problem",
    "working_dir",
]

# Room left under GitHub's body limit for the reply link, the agent line and the marker.
POST_TEXT_MAX: Final = MAX_BODY_CHARS - 2_000
_GIT_TIMEOUT: Final = 10.0
_SHA: Final = frozenset("0123456789abcdef")


def agent_line(worker: str) -> str:
    """The last visible line of a tool-made post."""
    shown = "".join(ch for ch in worker if ch.isalnum() or ch in "-_.")
    return f"<sub>Posted by the AI agent `{shown}` through comment-wake, not by a person.</sub>"


def post_body(text: str, worker: str, key: str, *, replying_to: str | None = None) -> str:
    """The body posted for ``text``: a link to the comment answered (a reply that is not
    in a review thread), the text, the agent line and the marker of ``key``."""
    parts = [f"Replying to {replying_to}"] if replying_to else []
    if not is_blank(text):
        parts.append(text.strip("\n"))
    parts.append(f"{agent_line(worker)}\n{marker(key)}")
    return "\n\n".join(parts)


def text_problem(text: str, what: str, *, blank_ok: bool = False) -> str | None:
    """Why ``text`` cannot be posted as ``what`` (one line), or None."""
    if not blank_ok and is_blank(text):
        return f"the {what} is blank; say something"
    if len(text) > POST_TEXT_MAX:
        return f"the {what} has {len(text)} characters; keep it under {POST_TEXT_MAX}"
    if MARKER.search(text) is not None or "<!-- comment-wake:" in text:
        return f"the {what} holds a comment-wake marker; leave it out (the tool adds its own)"
    return None


def working_dir(record: WorkerRecord, homes: AgentHomes) -> str | None:
    """Where the worker has its checkout: ``bind --workdir``, else its Claude Code
    session's cwd, else the cwd its Codex rollout recorded; None when none is known."""
    if record.workdir:
        return record.workdir
    for spec in record.transcripts:
        if isinstance(spec, ClaudeSession):
            return spec.cwd
        if isinstance(spec, CodexThread):
            for path in resolve_transcript(spec, homes):
                cwd = _rollout_cwd(path)
                if cwd is not None:
                    return cwd
    return None


def _rollout_cwd(path: Path) -> str | None:
    """The cwd a Codex rollout's first line (its ``session_meta``) records."""
    try:
        with path.open(encoding="utf-8") as f:
            first = json.loads(f.readline() or "null")
    except (OSError, ValueError):
        return None
    payload = first.get("payload") if isinstance(first, dict) else None
    cwd = payload.get("cwd") if isinstance(payload, dict) else None
    return cwd if isinstance(cwd, str) and cwd else None


def checkout_head(workdir: str) -> str:
    """``git -C workdir rev-parse HEAD``; ``ValueError`` (one line) when git cannot say."""
    try:
        done = subprocess.run(
            ["git", "-C", workdir, "rev-parse", "--verify", "HEAD"],
            capture_output=True,
            text=True,
            timeout=_GIT_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ValueError(f"git could not read HEAD in {workdir} ({type(exc).__name__})") from None
    head = done.stdout.strip()
    if done.returncode != 0 or len(head) != 40 or not set(head) <= _SHA:
        raise ValueError(f"{workdir} is not a git checkout with a commit (git rev-parse failed)")
    return head
