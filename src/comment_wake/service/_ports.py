"""The service's seam: where bindings and transcripts come from."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from comment_wake.ownpost import TranscriptSource
from comment_wake.wake import Binding
from review_monitor import PrRef

__all__ = ["BindingSource"]


class BindingSource(Protocol):
    """The session manager's registry: who owns a PR, and whose transcripts to read.

    ``transcripts(worker)`` lists the worker's own transcript (role ``worker``), its
    orchestrator's (``orchestrator``) and its siblings' (``sibling``).
    """

    def binding(self, pr: PrRef) -> Binding: ...

    def transcripts(self, worker: str) -> Sequence[TranscriptSource]: ...
