"""The service's seams: where bindings and transcripts come from, where results go."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from types import MappingProxyType
from typing import Protocol

from comment_wake.ownpost import TranscriptSource
from comment_wake.wake import Binding, Decision, LogLine
from review_monitor import Notice, PrRef

__all__ = ["NO_EVIDENCE", "BindingSource", "WakeSink"]

NO_EVIDENCE: Mapping[str, str] = MappingProxyType({})
"""The default of ``WakeSink.decided``'s ``evidence``: nothing beyond the decisions."""


class BindingSource(Protocol):
    """The session manager's registry: who owns a PR, and whose transcripts to read.

    ``transcripts(worker)`` lists the worker's own transcript (role ``worker``), its
    orchestrator's (``orchestrator``) and its siblings' (``sibling``).
    """

    def binding(self, pr: PrRef) -> Binding: ...

    def transcripts(self, worker: str) -> Sequence[TranscriptSource]: ...


class WakeSink(Protocol):
    """Where decisions, wakes and log lines go once a step is committed (the replay prints
    them; the daemon records them for ``explain``).  Nothing is told before its commit.

    ``decided`` gets each decided comment's creation time by id, for output that orders
    the decisions of one instant by creation time across steps, and ``evidence``: the
    own-post matcher's explanation by id for each decided comment it judged in this step
    (own or not; it names transcript files and lines, never the comment's text), so a
    comment written with the token's login that was judged not the worker's can say why.
    """

    def decided(
        self,
        decisions: Sequence[Decision],
        created: Mapping[str, datetime],
        evidence: Mapping[str, str] = NO_EVIDENCE,
    ) -> None: ...

    def woke(self, at: datetime, notice: Notice, comments: Sequence[str]) -> None: ...

    def logged(self, at: datetime, pr: PrRef | None, line: LogLine) -> None: ...
