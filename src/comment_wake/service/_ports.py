"""The service's seams: where bindings and transcripts come from, and who reads bodies."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence, Set
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

    ``binding`` answers from memory (a look asks it once).  ``transcripts(worker)``
    lists the worker's own transcript files (role ``worker``), its orchestrator's
    (``orchestrator``) and its siblings' (``sibling``); it may look for files, and is
    called off the event loop.

    ``version`` is the registry version the answers hold as of (``RegistryBook``), or
    None for a source that is not versioned.  The wake's commit re-reads the version
    inside its transaction: when it moved, the commit is undone, ``refresh`` reloads
    the source (blocking, called off the event loop; it returns the PRs whose binding
    changed) and the look steps again on the fresh binding, so an archived or unbound
    worker is never woken.
    """

    def binding(self, pr: PrRef) -> Binding: ...

    def transcripts(self, worker: str) -> Sequence[TranscriptSource]: ...

    def version(self) -> int | None: ...

    def refresh(self) -> Set[PrRef]: ...
