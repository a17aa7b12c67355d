"""Publishers: how a notice from the outbox reaches a worker.

Each class implements ``review_monitor.Publisher``: ``await publisher.publish(notice)``
returns ``Delivered``, ``Busy``, ``Gone`` or ``Refused``, or raises ``PublishError`` for a
fault the delivery loop retries with backoff.  The wire contract is ``docs/notice.md``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from comment_wake._lazy import lazy_exports

if TYPE_CHECKING:
    from ._callback import CallbackPublisher, NoticeCallback
    from ._child import (
        CHILD_ENV,
        EXIT_BUSY,
        EXIT_DELIVERED,
        EXIT_GONE,
        EXIT_REFUSED,
        WITHHELD_ENV,
        child_env_allows,
        child_environment,
    )
    from ._command import CommandPublisher
    from ._errors import (
        CallbackError,
        CommandFailedError,
        InboxError,
        PublishError,
        PublishTimeoutError,
        WebhookError,
    )
    from ._handoff import (
        HANDOFF_KIND,
        ORCHESTRATOR_KINDS,
        WORKER_KINDS,
        WORKER_MESSAGE_KIND,
        WORKER_REPORT_KIND,
        handoff_notice,
    )
    from ._inbox import InboxPublisher, backlog, default_inbox_root, take, write_notice
    from ._loop import Decision, DeliveryConfig, DeliveryLoop, PlannedDelivery
    from ._posts import POST_FAILED_KIND, PostPass, PostSender, post_failed_notice
    from ._signature import sign, verify_signature
    from ._webhook import WebhookPublisher
    from ._webhook_url import safe_url, webhook_url_problem

__all__ = [
    "CHILD_ENV",
    "EXIT_BUSY",
    "EXIT_DELIVERED",
    "EXIT_GONE",
    "EXIT_REFUSED",
    "HANDOFF_KIND",
    "ORCHESTRATOR_KINDS",
    "POST_FAILED_KIND",
    "WITHHELD_ENV",
    "WORKER_KINDS",
    "WORKER_MESSAGE_KIND",
    "WORKER_REPORT_KIND",
    "CallbackError",
    "CallbackPublisher",
    "CommandFailedError",
    "CommandPublisher",
    "Decision",
    "DeliveryConfig",
    "DeliveryLoop",
    "InboxError",
    "InboxPublisher",
    "NoticeCallback",
    "PlannedDelivery",
    "PostPass",
    "PostSender",
    "PublishError",
    "PublishTimeoutError",
    "WebhookError",
    "WebhookPublisher",
    "backlog",
    "child_env_allows",
    "child_environment",
    "default_inbox_root",
    "handoff_notice",
    "post_failed_notice",
    "safe_url",
    "sign",
    "take",
    "verify_signature",
    "webhook_url_problem",
    "write_notice",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    globals(),
    {
        "._callback": ("CallbackPublisher", "NoticeCallback"),
        "._child": (
            "CHILD_ENV",
            "EXIT_BUSY",
            "EXIT_DELIVERED",
            "EXIT_GONE",
            "EXIT_REFUSED",
            "WITHHELD_ENV",
            "child_env_allows",
            "child_environment",
        ),
        "._command": ("CommandPublisher",),
        "._errors": (
            "CallbackError",
            "CommandFailedError",
            "InboxError",
            "PublishError",
            "PublishTimeoutError",
            "WebhookError",
        ),
        "._handoff": (
            "HANDOFF_KIND",
            "ORCHESTRATOR_KINDS",
            "WORKER_KINDS",
            "WORKER_MESSAGE_KIND",
            "WORKER_REPORT_KIND",
            "handoff_notice",
        ),
        "._inbox": ("InboxPublisher", "backlog", "default_inbox_root", "take", "write_notice"),
        "._loop": ("Decision", "DeliveryConfig", "DeliveryLoop", "PlannedDelivery"),
        "._posts": ("POST_FAILED_KIND", "PostPass", "PostSender", "post_failed_notice"),
        "._signature": ("sign", "verify_signature"),
        "._webhook": ("WebhookPublisher",),
        "._webhook_url": ("safe_url", "webhook_url_problem"),
    },
)
