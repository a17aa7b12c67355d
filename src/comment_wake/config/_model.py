"""``AppConfig``: the whole configuration file, one pydantic model per table."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from comment_wake.delivery import DeliveryConfig
from comment_wake.fleet import FleetConfig, StoreConfig
from comment_wake.hints import WebhookConfig
from comment_wake.wake import WakeConfig
from review_monitor import Duration, GitHubConfig, MonitorConfig

__all__ = ["TABLES", "AppConfig", "LogFormat", "LogLevel"]

LogFormat = Literal["auto", "json", "text"]
"""How the logs are written: ``auto`` is JSON lines off a terminal and text on one."""
LogLevel = Literal["debug", "info", "warning", "error"]
"""The lowest level logged."""


class AppConfig(BaseModel):
    """The configuration file: the app's own keys at the top, then one table per package.

    Every key has a default, so an empty file (or none) is a valid configuration.
    """

    model_config = ConfigDict(extra="forbid", frozen=True, hide_input_in_errors=True)

    # Where the store and the default inbox live; see ``comment_wake._paths``.
    state_dir: Path | None = None
    # Store records (delivered notices, their attempts) older than this are pruned.
    prune_after: Duration = timedelta(days=30)
    # auto: JSON lines when stderr is not a terminal, readable text when it is.
    log_format: LogFormat = "auto"
    log_level: LogLevel = "info"

    github: GitHubConfig = Field(default_factory=GitHubConfig)
    monitor: MonitorConfig = Field(default_factory=MonitorConfig)
    wake: WakeConfig = Field(default_factory=WakeConfig)
    delivery: DeliveryConfig = Field(default_factory=DeliveryConfig)
    webhook: WebhookConfig = Field(default_factory=WebhookConfig)
    store: StoreConfig = Field(default_factory=StoreConfig)
    fleet: FleetConfig = Field(default_factory=FleetConfig)

    @field_validator("prune_after")
    @classmethod
    def _prune_positive(cls, value: timedelta) -> timedelta:
        if value <= timedelta(0):
            raise ValueError('prune_after must be more than 0s, for example "30d"')
        return value


TABLES: tuple[str, ...] = ("github", "monitor", "wake", "delivery", "webhook", "store", "fleet")
"""The tables of ``AppConfig``, in the order the documentation lists them."""
