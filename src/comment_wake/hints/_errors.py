"""Why the webhook listener cannot start.  No message carries the secret."""

from __future__ import annotations

__all__ = ["HintsError", "WebhookSecretError"]


class HintsError(Exception):
    """Base: the webhook listener is misconfigured."""


class WebhookSecretError(HintsError):
    """The environment variable that should hold the webhook secret is unset or empty."""
