"""The comment-wake core: what is new, who is trusted, the rate limit and the notice.

Pure logic: no I/O, the time is an argument.  ``step`` works out one PR from its badge
and the reads the service has done; ``docs/trust-rules.md`` states the rules.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from comment_wake._lazy import lazy_exports

if TYPE_CHECKING:
    from ._config import WakeConfig
    from ._core import finish, next_due, step
    from ._errors import MarkError, WakeError
    from ._mark import (
        MARK_VERSION,
        GapSpend,
        Handled,
        Held,
        Pending,
        WakeMark,
        decode_mark,
        encode_mark,
    )
    from ._mention import check_handle, mentions, starts_with_marker
    from ._model import (
        Binding,
        Connection,
        Decision,
        Facts,
        FloodGap,
        GapNeed,
        KnownPosts,
        LogLine,
        Needs,
        Outcome,
        OwnPostVerdict,
        Reason,
        Step,
        Trigger,
    )
    from ._prompt import (
        NOTICE_HEADER,
        NOTICE_INSTRUCTION,
        NOTICE_INSTRUCTION_POSTING,
        PR_REVIEW_MONITOR_TOOL_DESCRIPTION,
        PR_REVIEW_MONITOR_TOOL_DESCRIPTION_POSTING,
        WORKER_PROMPT,
        WORKER_PROMPT_POSTING,
        instruction,
    )
    from ._rate import release_at
    from ._render import NOTICE_KIND, build_notice, build_notices, one_line_title
    from ._rules import RULES, Rule, is_bot, is_trusted_bot, is_valid_login

__all__ = [
    "MARK_VERSION",
    "NOTICE_HEADER",
    "NOTICE_INSTRUCTION",
    "NOTICE_INSTRUCTION_POSTING",
    "NOTICE_KIND",
    "PR_REVIEW_MONITOR_TOOL_DESCRIPTION",
    "PR_REVIEW_MONITOR_TOOL_DESCRIPTION_POSTING",
    "RULES",
    "WORKER_PROMPT",
    "WORKER_PROMPT_POSTING",
    "Binding",
    "Connection",
    "Decision",
    "Facts",
    "FloodGap",
    "GapNeed",
    "GapSpend",
    "Handled",
    "Held",
    "KnownPosts",
    "LogLine",
    "MarkError",
    "Needs",
    "Outcome",
    "OwnPostVerdict",
    "Pending",
    "Reason",
    "Rule",
    "Step",
    "Trigger",
    "WakeConfig",
    "WakeError",
    "WakeMark",
    "build_notice",
    "build_notices",
    "check_handle",
    "decode_mark",
    "encode_mark",
    "finish",
    "instruction",
    "is_bot",
    "is_trusted_bot",
    "is_valid_login",
    "mentions",
    "next_due",
    "one_line_title",
    "release_at",
    "starts_with_marker",
    "step",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    globals(),
    {
        "._config": ("WakeConfig",),
        "._core": ("finish", "next_due", "step"),
        "._errors": ("MarkError", "WakeError"),
        "._mark": (
            "MARK_VERSION",
            "GapSpend",
            "Handled",
            "Held",
            "Pending",
            "WakeMark",
            "decode_mark",
            "encode_mark",
        ),
        "._model": (
            "Binding",
            "Connection",
            "Decision",
            "Facts",
            "FloodGap",
            "GapNeed",
            "KnownPosts",
            "LogLine",
            "Needs",
            "Outcome",
            "OwnPostVerdict",
            "Reason",
            "Step",
            "Trigger",
        ),
        "._prompt": (
            "NOTICE_HEADER",
            "NOTICE_INSTRUCTION",
            "NOTICE_INSTRUCTION_POSTING",
            "PR_REVIEW_MONITOR_TOOL_DESCRIPTION",
            "PR_REVIEW_MONITOR_TOOL_DESCRIPTION_POSTING",
            "WORKER_PROMPT",
            "WORKER_PROMPT_POSTING",
            "instruction",
        ),
        "._mention": ("check_handle", "mentions", "starts_with_marker"),
        "._rate": ("release_at",),
        "._render": ("NOTICE_KIND", "build_notice", "build_notices", "one_line_title"),
        "._rules": ("RULES", "Rule", "is_bot", "is_trusted_bot", "is_valid_login"),
    },
)
