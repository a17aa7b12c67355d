"""Workers bound to pull requests and their orchestrators, kept in the state store.

``Registry`` is the sync API (short commands; the daemon reads it too): ``bind``,
``unbind``, ``archive``, ``list``, ``add_orchestrator``, ``update_session``; it is the
service's ``BindingSource`` and gives the delivery loop ``route``, ``orchestrator_of``
and ``on_session``.  A binding names its publisher by a spec (``CommandSpec``,
``WebhookSpec``, ``InboxSpec``, ``CallbackSpec``) and its transcripts by a path, a Claude
Code session id and working directory, or a Codex thread id (``AgentHomes`` says where
those agents keep their files).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from comment_wake._lazy import lazy_exports

if TYPE_CHECKING:
    from ._cache import (
        REGISTRY_CACHE,
        CachedId,
        RegistryCache,
        read_registry_cache,
        write_registry_cache,
    )
    from ._errors import RefusedInputError, RegistryError, UnknownWorkerError
    from ._model import (
        CallbackSpec,
        ClaudeSession,
        CodexThread,
        CommandSpec,
        InboxSpec,
        OrchestratorRecord,
        PublisherSpec,
        TranscriptPath,
        TranscriptSpec,
        WebhookSpec,
        WorkerRecord,
    )
    from ._publishers import Unavailable
    from ._reach import Reach, TranscriptReach, describe_transcript
    from ._registry import ORCHESTRATORS, WORKERS, Registry, id_problem
    from ._snapshot import RegistryBook, RegistrySnapshot
    from ._transcripts import AgentHomes, claude_project_name, resolve_transcript

__all__ = [
    "ORCHESTRATORS",
    "REGISTRY_CACHE",
    "WORKERS",
    "AgentHomes",
    "CachedId",
    "CallbackSpec",
    "ClaudeSession",
    "CodexThread",
    "CommandSpec",
    "InboxSpec",
    "OrchestratorRecord",
    "PublisherSpec",
    "Reach",
    "RefusedInputError",
    "Registry",
    "RegistryBook",
    "RegistryCache",
    "RegistryError",
    "RegistrySnapshot",
    "TranscriptPath",
    "TranscriptReach",
    "TranscriptSpec",
    "Unavailable",
    "UnknownWorkerError",
    "WebhookSpec",
    "WorkerRecord",
    "claude_project_name",
    "describe_transcript",
    "id_problem",
    "read_registry_cache",
    "resolve_transcript",
    "write_registry_cache",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    globals(),
    {
        "._cache": (
            "REGISTRY_CACHE",
            "CachedId",
            "RegistryCache",
            "read_registry_cache",
            "write_registry_cache",
        ),
        "._errors": ("RefusedInputError", "RegistryError", "UnknownWorkerError"),
        "._model": (
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
        ),
        "._publishers": ("Unavailable",),
        "._reach": ("Reach", "TranscriptReach", "describe_transcript"),
        "._registry": ("ORCHESTRATORS", "WORKERS", "Registry", "id_problem"),
        "._snapshot": ("RegistryBook", "RegistrySnapshot"),
        "._transcripts": ("AgentHomes", "claude_project_name", "resolve_transcript"),
    },
)
