"""Publishers: how a notice from the outbox reaches a worker.

Each class implements ``review_monitor.Publisher``: ``await publisher.publish(notice)``
returns ``Delivered``, ``Busy``, ``Gone`` or ``Refused``, or raises ``PublishError`` for a
fault the delivery loop retries with ``Backoff``.  The wire contract is ``docs/notice.md``.
"""

from ._ack import ACK_ITEM_KINDS, Acknowledger, AckPass, ack_subjects, reaction_content
from ._backoff import Backoff, RetryState
from ._callback import CallbackPublisher, NoticeCallback
from ._command import (
    EXIT_BUSY,
    EXIT_DELIVERED,
    EXIT_GONE,
    EXIT_REFUSED,
    WITHHELD_ENV,
    CommandPublisher,
)
from ._errors import (
    CallbackError,
    CommandFailedError,
    InboxError,
    PublishError,
    PublishTimeoutError,
    WebhookError,
)
from ._handoff import HANDOFF_KIND, handoff_notice
from ._inbox import InboxPublisher, default_inbox_root, take, worker_dir, write_notice
from ._loop import (
    Decision,
    DeliveryConfig,
    DeliveryLoop,
    DeliveryStats,
    OnSession,
    OrchestratorOf,
    Route,
)
from ._merge import can_merge, merge_notices
from ._signature import sign, verify_signature
from ._webhook import BUSY_STATUSES, GONE_STATUSES, WebhookPublisher

__all__ = [
    "ACK_ITEM_KINDS",
    "BUSY_STATUSES",
    "EXIT_BUSY",
    "EXIT_DELIVERED",
    "EXIT_GONE",
    "EXIT_REFUSED",
    "GONE_STATUSES",
    "HANDOFF_KIND",
    "WITHHELD_ENV",
    "AckPass",
    "Acknowledger",
    "Backoff",
    "CallbackError",
    "CallbackPublisher",
    "CommandFailedError",
    "CommandPublisher",
    "Decision",
    "DeliveryConfig",
    "DeliveryLoop",
    "DeliveryStats",
    "InboxError",
    "InboxPublisher",
    "NoticeCallback",
    "OnSession",
    "OrchestratorOf",
    "PublishError",
    "PublishTimeoutError",
    "RetryState",
    "Route",
    "WebhookError",
    "WebhookPublisher",
    "ack_subjects",
    "can_merge",
    "default_inbox_root",
    "handoff_notice",
    "merge_notices",
    "reaction_content",
    "sign",
    "take",
    "verify_signature",
    "worker_dir",
    "write_notice",
]
