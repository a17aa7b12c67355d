"""The service's seams: where bindings and transcripts come from, and who reads bodies."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Protocol

from comment_wake.ownpost import TranscriptSource
from comment_wake.wake import Binding
from review_monitor import ItemDetail, PrRef

__all__ = ["LISTENER_NAME", "BindingSource", "DetailSource"]

LISTENER_NAME = "comment-wake"
"""The comment wake's listener name: its mark in the store is kept under it (here, with
the service's seams, so a command that reads a mark needs no service)."""


class DetailSource(Protocol):
    """Bodies by node id (``Monitor.read_details``); the reviews in ``first_page_only`` may
    come read to their first page of inline comments, every other in full."""

    async def __call__(
        self, ids: Sequence[str], first_page_only: Collection[str] = ()
    ) -> Mapping[str, ItemDetail]: ...


class BindingSource(Protocol):
    """The session manager's registry: who owns a PR, and whose transcripts to read.

    ``transcripts(worker)`` lists the worker's own transcript (role ``worker``), its
    orchestrator's (``orchestrator``) and its siblings' (``sibling``).
    """

    def binding(self, pr: PrRef) -> Binding: ...

    def transcripts(self, worker: str) -> Sequence[TranscriptSource]: ...
