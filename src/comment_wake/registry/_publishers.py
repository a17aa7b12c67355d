"""From a publisher spec to a ``Publisher``; a spec that cannot work refuses every notice.

A refusal parks the notice (it is kept, not retried) with the reason, which says what to
fix; the person fixes the binding or the environment, then unparks.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from comment_wake.delivery import WITHHELD_ENV, child_env_allows, webhook_url_problem
from review_monitor import Notice, Publisher, PublishOutcome, Refused

from ._model import CallbackSpec, CommandSpec, InboxSpec, PublisherSpec, WebhookSpec

if TYPE_CHECKING:
    from comment_wake.delivery import NoticeCallback

__all__ = ["Unavailable", "build_publisher", "publisher_problem"]

_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,127}")


class Unavailable:
    """A publisher that refuses every notice, saying why (a missing secret, say)."""

    def __init__(self, reason: str) -> None:
        self.reason = reason

    def __repr__(self) -> str:
        return f"Unavailable({self.reason!r})"

    async def publish(self, notice: Notice) -> PublishOutcome:
        return Refused(self.reason)


def publisher_problem(spec: object, callbacks: Mapping[str, NoticeCallback]) -> str | None:
    """Why ``spec`` cannot be stored, or None."""
    if isinstance(spec, CommandSpec):
        if not spec.argv or not all(isinstance(a, str) and a for a in spec.argv):
            return (
                "a command publisher needs a program and its arguments, for example "
                "--command notify-worker W1"
            )
        for name in spec.env:
            if _ENV_NAME.fullmatch(name) is None:
                return (
                    f"--env {name!r} must name an environment variable (letters, digits "
                    "and _), never its value"
                )
            if name in WITHHELD_ENV:
                return (
                    f"--env {name} names one of the daemon's own secrets, which no worker's "
                    "command may see; give the worker a credential of its own under another "
                    "name"
                )
    elif isinstance(spec, WebhookSpec):
        problem = webhook_url_problem(spec.url)
        if problem is not None:
            return problem
        if _ENV_NAME.fullmatch(spec.secret_env) is None:
            return (
                "--secret-env must name an environment variable (letters, digits and _), "
                "never the secret itself"
            )
        if spec.secret_env in WITHHELD_ENV:
            return (
                f"--secret-env {spec.secret_env} names one of the daemon's own secrets (its "
                "GitHub token): a webhook's signing secret must be one of its own, in a "
                "variable of its own, for example COMMENT_WAKE_ORCH_SECRET"
            )
        if child_env_allows(spec.secret_env):
            return (
                f"--secret-env {spec.secret_env} is a name every command publisher's child "
                "gets (docs/notice.md lists them); keep the secret in a variable of its own, "
                "for example COMMENT_WAKE_ORCH_SECRET"
            )
    elif isinstance(spec, InboxSpec):
        pass
    elif isinstance(spec, CallbackSpec):
        if spec.name not in callbacks:
            return (
                f"no callback named {spec.name!r} is registered in this process; pass it in "
                "Registry(..., callbacks={name: fn})"
            )
    else:
        return (
            f"unknown publisher kind {type(spec).__name__}: use CommandSpec, WebhookSpec, "
            "InboxSpec or CallbackSpec (--command, --webhook or --inbox)"
        )
    timeout = getattr(spec, "timeout", None)
    if timeout is not None and not timeout > 0:
        return "a publisher timeout must be a positive number of seconds"
    return None


def build_publisher(
    spec: PublisherSpec,
    *,
    inbox_root: Path,
    default_timeout: timedelta,
    environ: Mapping[str, str],
    callbacks: Mapping[str, NoticeCallback],
    withhold: Collection[str] = (),
) -> Publisher:
    """The publisher for ``spec``; ``Unavailable`` when it cannot work right now.  A
    command's child never gets the variables named in ``withhold`` (the daemon's secrets)."""
    # The publishers themselves (anyio, httpx) only where one is built: the daemon.  The
    # commands that read the registry (a hook's ``inbox take``) never pay for them.
    from comment_wake.delivery import (
        CallbackPublisher,
        CommandPublisher,
        InboxPublisher,
        WebhookPublisher,
    )

    seconds = default_timeout.total_seconds()
    if isinstance(spec, CommandSpec):
        return CommandPublisher(
            spec.argv, timeout=spec.timeout or seconds, pass_env=spec.env, withhold=withhold
        )
    if isinstance(spec, WebhookSpec):
        secret = environ.get(spec.secret_env, "")
        if not secret:
            return Unavailable(
                f"the webhook secret is missing: set the environment variable "
                f"{spec.secret_env} for the daemon"
            )
        return WebhookPublisher(spec.url, secret, timeout=spec.timeout or seconds)
    if isinstance(spec, InboxSpec):
        return InboxPublisher(Path(spec.root) if spec.root else inbox_root)
    callback = callbacks.get(spec.name)
    if callback is None:
        return Unavailable(f"no callback named {spec.name!r} is registered in this process")
    return CallbackPublisher(callback, timeout=spec.timeout)
