"""``EventRecorder``: a subscriber that keeps every event, for tests and session managers'
own test suites."""

from __future__ import annotations

from dataclasses import dataclass, field

from ._model import CommentDecided, Event, Noted, NoticeQueued

__all__ = ["EventRecorder"]


@dataclass
class EventRecorder:
    """Subscribe it (``app.subscribe(recorder)``, or pass it as ``publish``)."""

    events: list[Event] = field(default_factory=list)

    def __call__(self, event: Event) -> None:
        self.events.append(event)

    @property
    def decisions(self) -> list[CommentDecided]:
        return [e for e in self.events if isinstance(e, CommentDecided)]

    @property
    def wakes(self) -> list[tuple[str, ...]]:
        """The comments of each wake, in order."""
        return [e.comments for e in self.events if isinstance(e, NoticeQueued)]

    @property
    def lines(self) -> list[Noted]:
        return [e for e in self.events if isinstance(e, Noted)]

    def outcomes(self) -> list[tuple[str, str, str]]:
        """``(comment, outcome, reason)`` of every decision, in arrival order."""
        return [(d.comment, d.outcome, d.reason) for d in self.decisions]
