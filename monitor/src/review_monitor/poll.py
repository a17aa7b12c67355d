"""The poll loop's parts, for an application that drives them itself (``Monitor``
assembles them for everyone else): the poller, its seams, the budget governor and what
the poller reports as it goes."""

from __future__ import annotations

from typing import TYPE_CHECKING

from review_monitor._lazy import lazy_exports

if TYPE_CHECKING:
    from ._events import PollObserver
    from ._governor import BudgetGovernor, Pace
    from ._model import BadgeBatch, SweepBatch, SweepEntry
    from ._notices import CheckReader, DetailReader, MonitorNotices, NoticesMark
    from ._poller import BadgeReader, Poller, WatchSource
    from ._split import BatchSplitter
    from ._sweep import Sweeper, SweepRead, SweepRefused, parse_sweep, read_sweep
    from ._sweep_book import DueReason, SweepBook

__all__ = [
    "BadgeBatch",
    "BadgeReader",
    "BatchSplitter",
    "BudgetGovernor",
    "CheckReader",
    "DetailReader",
    "DueReason",
    "MonitorNotices",
    "NoticesMark",
    "Pace",
    "PollObserver",
    "Poller",
    "SweepBatch",
    "SweepBook",
    "SweepEntry",
    "SweepRead",
    "SweepRefused",
    "Sweeper",
    "WatchSource",
    "parse_sweep",
    "read_sweep",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    globals(),
    {
        "._events": ("PollObserver",),
        "._governor": ("BudgetGovernor", "Pace"),
        "._model": ("BadgeBatch", "SweepBatch", "SweepEntry"),
        "._notices": ("CheckReader", "DetailReader", "MonitorNotices", "NoticesMark"),
        "._poller": ("BadgeReader", "Poller", "WatchSource"),
        "._split": ("BatchSplitter",),
        "._sweep": ("Sweeper", "SweepRead", "SweepRefused", "parse_sweep", "read_sweep"),
        "._sweep_book": ("DueReason", "SweepBook"),
    },
)
