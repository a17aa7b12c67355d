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
    StoreLockedError,
    TokenNotFoundError,
    TransientError,
)
from ._github import GitHubClient, RetryPolicy
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
from ._notice import NOTICE_VERSION, Notice, NoticeItem, NoticePr, notice_key
from ._permissions import Permissions, is_valid_login
from ._publisher import Busy, Delivered, Gone, Publisher, PublishOutcome, Refused
from ._queries import all_documents
from ._ratelimit import RateLimit
from ._token import find_token

__all__ = [
    "NOTICE_VERSION",
    "AuthError",
    "Author",
    "BadgeBatch",
    "BadgeItem",
    "Busy",
    "CheckFailure",
    "Clock",
    "Delivered",
    "Duration",
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
    "LookupFailed",
    "MonitorConfig",
    "Notice",
    "NoticeItem",
    "NoticePr",
    "PageInfo",
    "PermissionAnswer",
    "Permissions",
    "PrRef",
    "PrStatus",
    "PublishOutcome",
    "Publisher",
    "RateLimit",
    "RateLimitedError",
    "Refused",
    "RestResult",
    "RetryPolicy",
    "StoreLockedError",
    "SystemClock",
    "TokenNotFoundError",
    "TransientError",
    "add_reactions",
    "all_documents",
    "find_token",
    "format_duration",
    "is_valid_login",
    "notice_key",
    "parse_badge",
    "parse_details",
    "parse_duration",
    "parse_failing_checks",
    "read_badges",
    "read_details",
    "read_failing_checks",
    "read_gap",
]
