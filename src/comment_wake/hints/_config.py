"""The ``[webhook]`` table, and the secret, which comes from the environment only."""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Mapping, MutableMapping
from datetime import timedelta
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from review_monitor import Duration

from ._errors import WebhookSecretError

__all__ = ["DEFAULT_MAX_BODY", "WebhookConfig", "load_secret"]

DEFAULT_MAX_BODY = 2 * 1024 * 1024
"""2 MiB: a comment's and a PR's body are capped at 65,536 characters each, so a real
delivery of the four events stays well below; GitHub's own cap (25 MB) would let a few
connections hold a lot of memory."""

_GITHUB_CAP = 25 * 1024 * 1024
_PATH = re.compile(r"/[A-Za-z0-9._~/-]{0,200}")
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,127}")


class WebhookConfig(BaseModel):
    """The ``[webhook]`` table.  Every key is documented in ``docs/webhooks.md``."""

    model_config = ConfigDict(extra="forbid", frozen=True, hide_input_in_errors=True)

    enabled: bool = Field(default=False, strict=True)
    bind: str = "127.0.0.1"
    port: int = Field(default=8787, ge=0, le=65535, strict=True)  # 0: any free port
    path: str = "/github"
    secret_env: str = "COMMENT_WAKE_WEBHOOK_SECRET"
    max_body: int = Field(default=DEFAULT_MAX_BODY, ge=1024, le=_GITHUB_CAP, strict=True)
    allow_non_loopback: bool = Field(default=False, strict=True)
    timeout: Duration = timedelta(seconds=10)  # one connection's whole exchange
    max_connections: int = Field(default=16, ge=1, le=1024, strict=True)

    @model_validator(mode="before")
    @classmethod
    def _no_secret_in_the_file(cls, data: Any) -> Any:
        if isinstance(data, Mapping) and "secret" in data:
            # Pydantic quotes the input in its errors, and an enclosing model's settings
            # decide that: blank the value in place so no message can carry it.
            if isinstance(data, MutableMapping):
                data["secret"] = "(not shown)"
            raise ValueError(
                "the webhook secret is never written in the configuration file (it would be "
                "committed or shared with it); put it in the environment variable named by "
                "secret_env (default COMMENT_WAKE_WEBHOOK_SECRET) and remove the secret key"
            )
        return data

    @field_validator("bind")
    @classmethod
    def _bind_is_an_address(cls, value: str) -> str:
        try:
            ipaddress.ip_address(value)
        except ValueError:
            raise ValueError(
                f"bind must be an IP address such as 127.0.0.1 or ::1, not {value!r}"
            ) from None
        return value

    @field_validator("path")
    @classmethod
    def _path_shape(cls, value: str) -> str:
        if _PATH.fullmatch(value) is None:
            raise ValueError(
                f"path must start with / and use letters, digits and ._~/- only: {value!r}"
            )
        return value

    @field_validator("secret_env")
    @classmethod
    def _env_name(cls, value: str) -> str:
        if _ENV_NAME.fullmatch(value) is None:
            # Not quoted: a secret pasted here by mistake must not reach a message.
            raise ValueError("secret_env must be the name of an environment variable")
        return value

    @field_validator("timeout")
    @classmethod
    def _timeout_range(cls, value: timedelta) -> timedelta:
        if not timedelta(0) < value <= timedelta(minutes=5):
            raise ValueError("timeout must be more than 0s and at most 5m")
        return value

    @model_validator(mode="after")
    def _loopback_unless_allowed(self) -> WebhookConfig:
        if not self.allow_non_loopback and not ipaddress.ip_address(self.bind).is_loopback:
            raise ValueError(
                f"bind {self.bind} is not a loopback address: deliveries should reach the "
                "listener through a forwarder or a tunnel on this machine; set "
                "allow_non_loopback = true only if a proxy you control must reach it"
            )
        return self


def load_secret(config: WebhookConfig, environ: Mapping[str, str]) -> bytes:
    """The webhook secret from ``environ[config.secret_env]``; raise when unset or blank."""
    value = environ.get(config.secret_env, "")
    if not value.strip():
        raise WebhookSecretError(
            f"the webhook listener needs a secret: set the environment variable "
            f"{config.secret_env} to the secret the webhook (or gh webhook forward) signs with"
        )
    return value.encode("utf-8")
