"""What the registry stores: publisher and transcript specs, workers and orchestrators.

Frozen msgspec structs, stored as JSON in the store's application records; tagged
unions, so a record names its kind (``{"kind": "command", ...}``).
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

import msgspec

from review_monitor import PrRef

__all__ = [
    "CallbackSpec",
    "ClaudeSession",
    "CodexThread",
    "CommandSpec",
    "InboxSpec",
    "OrchestratorRecord",
    "PublisherSpec",
    "TranscriptPath",
    "TranscriptSpec",
    "WebhookSpec",
    "WorkerRecord",
]


class CommandSpec(msgspec.Struct, frozen=True, tag="command", tag_field="kind"):
    """Run ``argv`` (never through a shell) per notice; ``timeout`` seconds, None: the
    ``[delivery] publisher_timeout``; ``env``: names of the daemon's environment variables
    the child gets on top of ``CHILD_ENV`` (``--env NAME``; a record written before it
    existed reads as none)."""

    argv: tuple[str, ...]
    timeout: float | None = None
    env: tuple[str, ...] = ()


class WebhookSpec(msgspec.Struct, frozen=True, tag="webhook", tag_field="kind"):
    """POST each notice to ``url``, signed with the secret in ``$secret_env`` (the secret
    itself is never stored)."""

    url: str
    secret_env: str
    timeout: float | None = None


class InboxSpec(msgspec.Struct, frozen=True, tag="inbox", tag_field="kind"):
    """Write each notice under ``root``; None: the state directory's ``inbox``."""

    root: str | None = None


class CallbackSpec(msgspec.Struct, frozen=True, tag="callback", tag_field="kind"):
    """Call the Python callable registered as ``name`` in this process (Python API only)."""

    name: str
    timeout: float | None = None


PublisherSpec = CommandSpec | WebhookSpec | InboxSpec | CallbackSpec
"""How a worker or orchestrator is reached: a command, a webhook, an inbox or an in-process
callback."""


class TranscriptPath(msgspec.Struct, frozen=True, tag="path", tag_field="kind"):
    """A transcript file named directly."""

    path: str


class ClaudeSession(msgspec.Struct, frozen=True, tag="claude", tag_field="kind"):
    """A Claude Code session: ``<claude home>/projects/<encoded cwd>/<session_id>.jsonl``.

    ``previous`` keeps the ids the session had before (a headless resume may hand out a
    new one); their files still hold posts the worker made before the switch.
    """

    session_id: str
    cwd: str
    previous: tuple[str, ...] = ()


class CodexThread(msgspec.Struct, frozen=True, tag="codex", tag_field="kind"):
    """A Codex thread: ``<codex home>/sessions/YYYY/MM/DD/rollout-*-<thread_id>.jsonl``."""

    thread_id: str
    previous: tuple[str, ...] = ()


TranscriptSpec = TranscriptPath | ClaudeSession | CodexThread
"""Where a worker's transcript is: a path, a Claude Code session or a Codex thread."""


class WorkerRecord(msgspec.Struct, frozen=True):
    """A worker bound to one pull request."""

    worker: str
    pr: PrRef
    orchestrator: str
    publisher: PublisherSpec
    transcripts: tuple[TranscriptSpec, ...] = ()
    archived: bool = False
    bound_at: datetime | None = None
    archived_at: datetime | None = None
    session_id: str | None = None  # the last one a publisher reported
    # The posting tools (reply, review, progress): off unless ``bind --post-tools``.
    post_tools: bool = False
    # Where the worker has its checkout (``bind --workdir``); None: its Claude Code
    # session's cwd, or its Codex rollout's.  The review tool reads HEAD there.
    workdir: str | None = None
    # What wakes it (``bind --trigger``, ``--handle``): None takes the ``[wake]`` table's
    # ``trigger`` and ``handle`` (a record written before these existed reads as None).
    trigger: Literal["any", "mention"] | None = None
    handle: str | None = None
    # The fleet host it is bound on, which reads its transcripts and decides its PR
    # (None: a single host's store, and every record written before fleet mode).
    host_id: str | None = None


class OrchestratorRecord(msgspec.Struct, frozen=True):
    """An orchestrator: it spawns workers and takes the notices they can no longer take."""

    id: str
    publisher: PublisherSpec
    transcripts: tuple[TranscriptSpec, ...] = ()
    added_at: datetime | None = None
    session_id: str | None = None
    # The fleet host it runs on (None: a single host's store).
    host_id: str | None = None
