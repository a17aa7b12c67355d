"""The poll loop's parts, for an application that drives them itself (``Monitor``
assembles them for everyone else): the poller, its seams, the budget governor and what
the poller reports as it goes."""

from ._events import PollObserver
from ._governor import BudgetGovernor, Pace
from ._model import BadgeBatch
from ._notices import CheckReader, DetailReader, MonitorNotices, NoticesMark
from ._poller import BadgeReader, Poller, WatchSource
from ._split import BatchSplitter

__all__ = [
    "BadgeBatch",
    "BadgeReader",
    "BatchSplitter",
    "BudgetGovernor",
    "CheckReader",
    "DetailReader",
    "MonitorNotices",
    "NoticesMark",
    "Pace",
    "PollObserver",
    "Poller",
    "WatchSource",
]
