"""What this host can read of the transcripts a worker's own-post check reads
(``Registry.transcript_reach``; ``doctor`` and ``explain`` show it).

A worker's own-post check reads its own transcripts, its orchestrator's and its siblings'
(``RegistrySnapshot.transcript_agents``), each resolved as the scan resolves it
(``Registry.transcript_sources``) and opened as the scan opens it
(``ownpost.check_readable``).  In fleet mode an agent bound on another host keeps its
transcripts there: it is not looked for here, and its own posts are not recognised on
this host, except those made through the posting tools (docs/fleet.md, "Own posts across
hosts").
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Literal

import msgspec

from comment_wake.ownpost import check_readable

from ._model import ClaudeSession, TranscriptPath, TranscriptSpec
from ._snapshot import Role

__all__ = ["Reach", "TranscriptReach", "describe_transcript", "reach_of"]

Reach = Literal["readable", "elsewhere", "missing", "unreadable"]
"""Whether this host can read a bound transcript: it can; the agent is bound on another
host (fleet mode), so it is not looked for here; no file of it is found here; a file of it
cannot be opened here."""


class TranscriptReach(msgspec.Struct, frozen=True):
    """One transcript bound to an agent whose posts a worker's own-post check reads, as
    this host can read it."""

    agent: str  # the worker's or orchestrator's id
    role: Role  # worker, orchestrator or sibling: to the worker asked about
    transcript: str  # what was bound, as ``describe_transcript`` says it
    reach: Reach
    host_id: str | None = None  # the host the agent is bound on (None: a single host's)
    files: tuple[str, ...] = ()  # readable: the files found here
    problem: str = ""  # unreadable: the file and the system's reason

    @property
    def readable(self) -> bool:
        return self.reach == "readable"

    def where(self) -> str:
        """Where it is, in a few words: the files, ``on host h2, not local``, ``not found
        on this host`` or ``not readable here (...)``."""
        if self.reach == "elsewhere":
            return f"on host {self.host_id}, not local"
        if self.reach == "missing":
            return "not found on this host"
        if self.reach == "unreadable":
            return f"not readable here ({self.problem})"
        return ", ".join(self.files)


def describe_transcript(spec: TranscriptSpec) -> str:
    """A bound transcript as ``list`` shows it: the path, ``claude SESSION in CWD`` or
    ``codex THREAD``."""
    if isinstance(spec, TranscriptPath):
        return spec.path
    if isinstance(spec, ClaudeSession):
        return f"claude {spec.session_id} in {spec.cwd}"
    return f"codex {spec.thread_id}"


def reach_of(
    agent: str,
    role: Role,
    spec: TranscriptSpec,
    host_id: str | None,
    files: Sequence[Path] | None,
) -> TranscriptReach:
    """``spec``'s reach from the ``files`` it resolved to here (None: not looked for,
    the agent being bound on another host)."""
    said = describe_transcript(spec)
    if files is None:
        return TranscriptReach(agent, role, said, "elsewhere", host_id)
    if not files:
        return TranscriptReach(agent, role, said, "missing", host_id)
    for path in files:
        try:
            check_readable(str(path))
        except OSError as exc:
            problem = f"{exc.filename or path}: {exc.strerror or type(exc).__name__}"
            return TranscriptReach(agent, role, said, "unreadable", host_id, problem=problem)
    return TranscriptReach(agent, role, said, "readable", host_id, tuple(str(p) for p in files))
