"""pr-review-monitor: watch many pull requests with one batched badge poll."""

from ._api import GitHubApi, GraphQLResult, RestResult
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
    "find_token",
    "format_duration",
    "is_valid_login",
    "notice_key",
    "parse_duration",
]
