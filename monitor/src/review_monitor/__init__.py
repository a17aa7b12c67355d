"""pr-review-monitor: watch many pull requests with one batched badge poll.

The names here are what an application that runs the monitor needs.  The parts it
assembles have public modules of their own: ``review_monitor.github`` (the client and
the reads), ``review_monitor.poll`` (the poller and its seams), ``review_monitor.store``
(the state store) and ``review_monitor.seen`` (the pure seen set); ``review_monitor.testing``
has FakeGitHub and the clocks.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from review_monitor._lazy import lazy_exports

if TYPE_CHECKING:
    from ._clock import Clock, SystemClock
    from ._config import GitHubConfig, MonitorConfig
    from ._duration import format_duration, parse_duration
    from ._duration_field import Duration
    from ._errors import (
        AuthError,
        GitHubError,
        GraphQLError,
        NotOwnerError,
        RateLimitedError,
        StoreCorruptError,
        StoreError,
        StoreLockedError,
        StoreMissingError,
        StoreSchemaError,
        StoreUnavailableError,
        TokenNotFoundError,
        TransientError,
    )
    from ._events import Fault, FaultKind, MonitorEvent, PollRound, describe_event, log_event
    from ._fleet import FleetMode
    from ._listener import WATCH_TOOL, Listener, LookAgain, Watch
    from ._model import (
        MAX_PR_NUMBER,
        Author,
        BadgeItem,
        CheckFailure,
        GapRead,
        InlineComment,
        ItemDetail,
        LookupFailed,
        PageInfo,
        PermissionAnswer,
        PrRef,
        PrStatus,
        fold,
        pr_number_problem,
    )
    from ._monitor import Monitor
    from ._notice import NOTICE_VERSION, Notice, NoticeItem, NoticePr, notice_key
    from ._notices import PermissionChecker, is_bot
    from ._observations import (
        Dispatcher,
        InMemoryObservations,
        Observation,
        ObservationSource,
        Observed,
        PrGone,
        PrReadable,
        RoundDone,
    )
    from ._permissions import Permissions, is_valid_login
    from ._publisher import Busy, Delivered, Gone, Publisher, PublishOutcome, Refused
    from ._wait import sleep_until_or

__all__ = [
    "MAX_PR_NUMBER",
    "NOTICE_VERSION",
    "WATCH_TOOL",
    "AuthError",
    "Author",
    "BadgeItem",
    "Busy",
    "CheckFailure",
    "Clock",
    "Delivered",
    "Dispatcher",
    "Duration",
    "Fault",
    "FaultKind",
    "FleetMode",
    "GapRead",
    "GitHubConfig",
    "GitHubError",
    "Gone",
    "GraphQLError",
    "InMemoryObservations",
    "InlineComment",
    "ItemDetail",
    "Listener",
    "LookAgain",
    "LookupFailed",
    "Monitor",
    "MonitorConfig",
    "MonitorEvent",
    "NotOwnerError",
    "Notice",
    "NoticeItem",
    "NoticePr",
    "Observation",
    "ObservationSource",
    "Observed",
    "PageInfo",
    "PermissionAnswer",
    "PermissionChecker",
    "Permissions",
    "PollRound",
    "PrGone",
    "PrReadable",
    "PrRef",
    "PrStatus",
    "PublishOutcome",
    "Publisher",
    "RateLimitedError",
    "Refused",
    "RoundDone",
    "StoreCorruptError",
    "StoreError",
    "StoreLockedError",
    "StoreMissingError",
    "StoreSchemaError",
    "StoreUnavailableError",
    "SystemClock",
    "TokenNotFoundError",
    "TransientError",
    "Watch",
    "describe_event",
    "fold",
    "format_duration",
    "is_bot",
    "is_valid_login",
    "log_event",
    "notice_key",
    "parse_duration",
    "pr_number_problem",
    "sleep_until_or",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    globals(),
    {
        "._clock": ("Clock", "SystemClock"),
        "._config": ("GitHubConfig", "MonitorConfig"),
        "._duration": ("format_duration", "parse_duration"),
        "._duration_field": ("Duration",),
        "._errors": (
            "AuthError",
            "GitHubError",
            "GraphQLError",
            "NotOwnerError",
            "RateLimitedError",
            "StoreCorruptError",
            "StoreError",
            "StoreLockedError",
            "StoreMissingError",
            "StoreSchemaError",
            "StoreUnavailableError",
            "TokenNotFoundError",
            "TransientError",
        ),
        "._events": (
            "Fault",
            "FaultKind",
            "MonitorEvent",
            "PollRound",
            "describe_event",
            "log_event",
        ),
        "._listener": ("WATCH_TOOL", "Listener", "LookAgain", "Watch"),
        "._fleet": ("FleetMode",),
        "._observations": (
            "Dispatcher",
            "InMemoryObservations",
            "Observation",
            "ObservationSource",
            "Observed",
            "PrGone",
            "PrReadable",
            "RoundDone",
        ),
        "._model": (
            "MAX_PR_NUMBER",
            "Author",
            "BadgeItem",
            "CheckFailure",
            "GapRead",
            "InlineComment",
            "ItemDetail",
            "LookupFailed",
            "PageInfo",
            "PermissionAnswer",
            "PrRef",
            "PrStatus",
            "fold",
            "pr_number_problem",
        ),
        "._monitor": ("Monitor",),
        "._notice": ("NOTICE_VERSION", "Notice", "NoticeItem", "NoticePr", "notice_key"),
        "._notices": ("PermissionChecker", "is_bot"),
        "._permissions": ("Permissions", "is_valid_login"),
        "._publisher": ("Busy", "Delivered", "Gone", "Publisher", "PublishOutcome", "Refused"),
        "._wait": ("sleep_until_or",),
    },
)
