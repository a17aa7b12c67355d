"""The app's typed events and the bus that carries them.

Components publish; the JSON log, ``status``, the demo's timeline, the replay's output,
tests and session managers subscribe (``EventBus.subscribe`` for a callback,
``EventBus.stream`` for an async iterator).  No component reads another's log records.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from comment_wake._lazy import lazy_exports

if TYPE_CHECKING:
    from review_monitor import Fault, FaultKind, PollRound

    from ._bus import EventBus, EventsLost, EventStream, Subscriber
    from ._logger import EventLogger
    from ._model import (
        CommentDecided,
        Event,
        FloodGap,
        Noted,
        NoticeBusy,
        NoticeDelivered,
        NoticeHandedOff,
        NoticeParked,
        NoticeQueued,
        WorkerWoken,
        decode_event,
        encode_event,
    )

__all__ = [
    "CommentDecided",
    "Event",
    "EventBus",
    "EventLogger",
    "EventStream",
    "EventsLost",
    "Fault",
    "FaultKind",
    "FloodGap",
    "Noted",
    "NoticeBusy",
    "NoticeDelivered",
    "NoticeHandedOff",
    "NoticeParked",
    "NoticeQueued",
    "PollRound",
    "Subscriber",
    "WorkerWoken",
    "decode_event",
    "encode_event",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    globals(),
    {
        "review_monitor": ("Fault", "FaultKind", "PollRound"),
        "._bus": ("EventBus", "EventsLost", "EventStream", "Subscriber"),
        "._logger": ("EventLogger",),
        "._model": (
            "CommentDecided",
            "Event",
            "FloodGap",
            "Noted",
            "NoticeBusy",
            "NoticeDelivered",
            "NoticeHandedOff",
            "NoticeParked",
            "NoticeQueued",
            "WorkerWoken",
            "decode_event",
            "encode_event",
        ),
    },
)
