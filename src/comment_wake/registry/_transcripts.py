"""From a transcript spec to the files the agents write, the way they lay them out.

Claude Code: ``<claude home>/projects/<encoded cwd>/<session>.jsonl``, where the encoded
cwd is the real path, NFC-normalised, with every UTF-16 unit other than an ASCII letter or
digit turned into ``-`` (so an emoji, two units, becomes ``--``); past 200 characters the
agent cuts it to 200 and appends ``-`` and a hash we cannot reproduce, so we match the
200-character prefix (measured on Claude Code 2.1.332).  A session not found under
its cwd (a worktree moved, a resume elsewhere) is looked for under every project.

Codex: ``<codex home>/sessions/YYYY/MM/DD/rollout-<local time>-<thread>.jsonl``, or under
``archived_sessions`` once archived; compaction may add ``<thread>_<window>.jsonl``
siblings, so every plain ``.jsonl`` naming the thread counts.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import unicodedata2  # type: ignore[import-not-found]

from ._model import ClaudeSession, CodexThread, TranscriptPath, TranscriptSpec

__all__ = [
    "AgentHomes",
    "claude_project_name",
    "resolve_transcript",
    "session_id_problem",
    "transcript_files_of",
]

_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,127}")
_LONG = 200


@dataclass(frozen=True)
class AgentHomes:
    """Where Claude Code and Codex keep their files; tests point them at a temporary dir."""

    claude: Path
    codex: Path

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, home: Path | None = None) -> AgentHomes:
        """``$CLAUDE_CONFIG_DIR`` or ``~/.claude``; ``$CODEX_HOME`` or ``~/.codex``."""
        environ = os.environ if env is None else env
        user = home or Path.home()
        claude = environ.get("CLAUDE_CONFIG_DIR") or str(user / ".claude")
        codex = environ.get("CODEX_HOME") or str(user / ".codex")
        return cls(Path(claude).expanduser(), Path(codex).expanduser())


def session_id_problem(value: str, what: str) -> str | None:
    """Why ``value`` cannot be a session or thread id, or None.  Ids become file names
    and glob patterns, so only letters, digits, ``_`` and ``-`` pass."""
    if _ID.fullmatch(value) is None:
        return (
            f"{what} {value!r} is not an id: use the letters, digits, - and _ the agent "
            "printed (for example 3f2a9c4e-...)"
        )
    return None


def claude_project_name(cwd: str) -> str:
    """The project folder name Claude Code gives ``cwd`` (before the long-path hash)."""
    real: str = unicodedata2.normalize("NFC", os.path.realpath(cwd))
    return re.sub(r"[^a-zA-Z0-9]", lambda m: "--" if ord(m[0]) > 0xFFFF else "-", real)


def _nonempty(path: Path) -> bool:
    try:
        return path.is_file() and path.stat().st_size > 0
    except OSError:
        return False


def _claude_file(session: str, cwd: str, homes: AgentHomes) -> Path | None:
    projects = homes.claude / "projects"
    name = claude_project_name(cwd)
    if len(name) <= _LONG:
        candidates = [projects / name]
    else:
        candidates = sorted(projects.glob(name[:_LONG] + "-*"))
    for folder in candidates:
        path = folder / f"{session}.jsonl"
        if path.is_file():
            return path
    for path in sorted(projects.glob(f"*/{session}.jsonl")):
        if _nonempty(path):
            return path
    return None


def _codex_files(thread: str, homes: AgentHomes) -> list[Path]:
    for root, pattern in (
        ("sessions", f"*/*/*/rollout-*{thread}*.jsonl"),
        ("archived_sessions", f"**/rollout-*{thread}*.jsonl"),
    ):
        found = sorted(p for p in (homes.codex / root).glob(pattern) if p.is_file())
        if found:
            return found
    return []


def _files_for(spec: TranscriptSpec, ids: tuple[str, ...], homes: AgentHomes) -> list[Path]:
    files: list[Path] = []
    for sid in ids:
        if isinstance(spec, ClaudeSession):
            one = _claude_file(sid, spec.cwd, homes)
            files.extend([one] if one is not None else [])
        else:
            files.extend(_codex_files(sid, homes))
    return files


def resolve_transcript(spec: TranscriptSpec, homes: AgentHomes) -> list[Path]:
    """The current files of ``spec`` (several for a compacted Codex thread); empty when
    none exists (yet, or any more)."""
    if isinstance(spec, TranscriptPath):
        path = Path(spec.path)
        return [path] if path.is_file() else []
    current = spec.session_id if isinstance(spec, ClaudeSession) else spec.thread_id
    return _files_for(spec, (current,), homes)


def transcript_files_of(spec: TranscriptSpec, homes: AgentHomes) -> list[Path]:
    """The current files, then those of the ids the session had before (posts made
    before a session id changed are still the worker's own)."""
    files = resolve_transcript(spec, homes)
    if isinstance(spec, ClaudeSession | CodexThread) and spec.previous:
        for path in _files_for(spec, spec.previous, homes):
            if path not in files:
                files.append(path)
    return files
