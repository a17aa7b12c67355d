"""pr-review-monitor: watch many pull requests with one batched badge poll."""

from ._api import GitHubApi, GraphQLResult, RestResult
from ._badge import (
    add_reactions,
    parse_badge,
    parse_details,
    parse_failing_checks,
    read_badges,
    read_details,
    read_failing_checks,
    read_gap,
)
from ._clock import Clock, SystemClock
from ._config import GitHubConfig, MonitorConfig
from ._duration import Duration, format_duration, parse_duration
from ._errors import (
    AuthError,
    GitHubError,
    GraphQLError,
    RateLimitedError,
    StoreError,
    StoreLockedError,
    StoreSchemaError,
    TokenNotFoundError,
    TransientError,
)
from ._events import (
    Fault,
    FaultKind,
    MonitorEvent,
    PollObserver,
    PollRound,
    describe_event,
    log_event,
)
from ._github import GitHubClient, RetryPolicy
from ._governor import BudgetGovernor, Pace
from ._lease import Lease
from ._listener import WATCH_TOOL, Listener, Watch
from ._model import (
    Author,
    BadgeBatch,
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
)
from ._monitor import Monitor
from ._notice import NOTICE_VERSION, Notice, NoticeItem, NoticePr, notice_key
from ._notices import (
    CheckReader,
    DetailReader,
    MonitorNotices,
    NoticesMark,
    PermissionChecker,
    is_bot,
)
from ._permissions import Permissions, is_valid_login
from ._poller import BadgeReader, Poller, WatchSource
from ._publisher import Busy, Delivered, Gone, Publisher, PublishOutcome, Refused
from ._queries import all_documents
from ._ratelimit import RateLimit
from ._seen import Seen, lag_floor, retry_delay, settle_seen, unseen
from ._store import Attempt, Mark, OutboxEntry, OutboxStatus, Store, SyncStore
from ._token import find_token

__all__ = [
    "NOTICE_VERSION",
    "WATCH_TOOL",
    "Attempt",
    "AuthError",
    "Author",
    "BadgeBatch",
    "BadgeItem",
    "BadgeReader",
    "BudgetGovernor",
    "Busy",
    "CheckFailure",
    "CheckReader",
    "Clock",
    "Delivered",
    "DetailReader",
    "Duration",
    "Fault",
    "FaultKind",
    "GapRead",
    "GitHubApi",
    "GitHubClient",
    "GitHubConfig",
    "GitHubError",
    "Gone",
    "GraphQLError",
    "GraphQLResult",
    "InlineComment",
    "ItemDetail",
    "Lease",
    "Listener",
    "LookupFailed",
    "Mark",
    "Monitor",
    "MonitorConfig",
    "MonitorEvent",
    "MonitorNotices",
    "Notice",
    "NoticeItem",
    "NoticePr",
    "NoticesMark",
    "OutboxEntry",
    "OutboxStatus",
    "Pace",
    "PageInfo",
    "PermissionAnswer",
    "PermissionChecker",
    "Permissions",
    "PollObserver",
    "PollRound",
    "Poller",
    "PrRef",
    "PrStatus",
    "PublishOutcome",
    "Publisher",
    "RateLimit",
    "RateLimitedError",
    "Refused",
    "RestResult",
    "RetryPolicy",
    "Seen",
    "Store",
    "StoreError",
    "StoreLockedError",
    "StoreSchemaError",
    "SyncStore",
    "SystemClock",
    "TokenNotFoundError",
    "TransientError",
    "Watch",
    "WatchSource",
    "add_reactions",
    "all_documents",
    "describe_event",
    "find_token",
    "format_duration",
    "is_bot",
    "is_valid_login",
    "lag_floor",
    "log_event",
    "notice_key",
    "parse_badge",
    "parse_details",
    "parse_duration",
    "parse_failing_checks",
    "read_badges",
    "read_details",
    "read_failing_checks",
    "read_gap",
    "retry_delay",
    "settle_seen",
    "unseen",
]
