"""Webhook hints: GitHub deliveries that ask the monitor to poll one pull request now.

A hint carries nothing but the PR (the payload's repository, number and host, checked
strictly); the poll that follows reads everything from the API and applies every rule.
A delivery id seen in the last hour hints nothing, and the poller polls one PR at most
once per ``hint_min_gap`` within its hint share of the budget, so replays cost little.
``docs/webhooks.md`` explains how deliveries reach the loopback listener and why it is
built this way.

    listener = HintListener(config, load_secret(config, os.environ), poller.poll_now, clock=clock)
    port = await task_group.start(listener.serve)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from comment_wake._lazy import lazy_exports

if TYPE_CHECKING:
    from ._config import DEFAULT_MAX_BODY, WebhookConfig, load_secret
    from ._errors import HintsError, WebhookSecretError
    from ._ledger import DELIVERY_ID_MEMORY, DELIVERY_ID_WINDOW, SUMMARY_EVERY, HintCounts
    from ._payload import HINT_EVENTS, matching_watch, pr_of_delivery
    from ._server import Hint, HintListener
    from ._signature import github_signature, verify_github_signature

__all__ = [
    "DEFAULT_MAX_BODY",
    "DELIVERY_ID_MEMORY",
    "DELIVERY_ID_WINDOW",
    "HINT_EVENTS",
    "SUMMARY_EVERY",
    "Hint",
    "HintCounts",
    "HintListener",
    "HintsError",
    "WebhookConfig",
    "WebhookSecretError",
    "github_signature",
    "load_secret",
    "matching_watch",
    "pr_of_delivery",
    "verify_github_signature",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    globals(),
    {
        "._config": ("DEFAULT_MAX_BODY", "WebhookConfig", "load_secret"),
        "._errors": ("HintsError", "WebhookSecretError"),
        "._ledger": ("DELIVERY_ID_MEMORY", "DELIVERY_ID_WINDOW", "SUMMARY_EVERY", "HintCounts"),
        "._payload": ("HINT_EVENTS", "matching_watch", "pr_of_delivery"),
        "._server": ("Hint", "HintListener"),
        "._signature": ("github_signature", "verify_github_signature"),
    },
)
