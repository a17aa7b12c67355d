"""The monitor's configuration (the ``[monitor]`` table), validated by pydantic."""

from __future__ import annotations

from datetime import timedelta
from typing import Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ._duration_field import Duration

__all__ = ["GitHubConfig", "MonitorConfig"]

Permission = Literal["admin", "maintain", "write", "triage", "read", "none"]


class GitHubConfig(BaseModel):
    """The ``[github]`` table."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    host: str = "github.com"
    # None: https://api.github.com for github.com, https://HOST/api/v3 (REST) and
    # https://HOST/api/graphql for Enterprise Server.  Set: the base of both (GraphQL at
    # {api_url}/graphql); tests and FakeGitHub over loopback use it.
    api_url: str | None = None
    timeout: Duration = timedelta(seconds=30)

    @field_validator("api_url")
    @classmethod
    def _api_url_is_http(cls, value: str | None) -> str | None:
        if value is None:
            return value
        parts = urlsplit(value)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(
                "api_url must be an http:// or https:// URL with a host, for example "
                '"https://github.example.com/api/v3" or "http://127.0.0.1:8080"'
            )
        try:
            parts.port  # noqa: B018 - raises on a port that is not a number
        except ValueError:
            raise ValueError("api_url has a port that is not a number") from None
        return value


class MonitorConfig(BaseModel):
    """The ``[monitor]`` table.  Every key is documented in ``docs/configuration.md``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    poll_interval: Duration = timedelta(seconds=60)
    # 74 PRs is the largest batch that costs one point: each PR brings two connections,
    # 148 requests, and GitHub rounds 1.48 points down to 1 (75 PRs cost 2).
    batch_size: int = Field(default=74, ge=1, le=100, strict=True)
    comments_window: int = Field(default=10, ge=1, le=100, strict=True)
    reviews_window: int = Field(default=20, ge=1, le=100, strict=True)
    detail_batch: int = Field(default=30, ge=1, le=100, strict=True)
    inline_window: int = Field(default=20, ge=1, le=100, strict=True)
    budget_share: float = Field(default=0.5, gt=0.0, le=1.0, strict=True)
    # Hinted polls (``poll_now``): one PR at most once per ``hint_min_gap``, all of them
    # within ``hint_share`` of the hourly budget (the governor's hint bucket).
    hint_min_gap: Duration = timedelta(seconds=10)
    hint_share: float = Field(default=0.1, gt=0.0, le=1.0, strict=True)
    # The sweep (docs/monitor.md): one query of only connection-free fields for up to
    # ``sweep_size`` PRs; full badges only where it saw a change, for ``sweep_grace``
    # after an ``updatedAt`` (GitHub lists some comments late), and for every PR at least
    # once per ``full_badge_interval``.  ``sweep = false``: every PR's badge every round.
    sweep: bool = Field(default=True, strict=True)
    sweep_size: int = Field(default=1000, ge=1, le=1000, strict=True)
    sweep_grace: Duration = timedelta(seconds=30)
    full_badge_interval: Duration = timedelta(minutes=10)
    missing_pr_interval: Duration = timedelta(minutes=15)
    # Permissions: shared by the verdict notices and the comment wake.
    permission_ttl: Duration = timedelta(minutes=10)
    permission_retries: tuple[Duration, ...] = (
        timedelta(minutes=1),
        timedelta(minutes=2),
        timedelta(minutes=4),
    )
    trusted_permissions: tuple[Permission, ...] = ("admin", "write")
    review_bots: tuple[str, ...] = ()

    @field_validator("sweep_grace")
    @classmethod
    def _sweep_grace_range(cls, value: timedelta) -> timedelta:
        if not timedelta(0) <= value <= timedelta(minutes=10):
            raise ValueError("sweep_grace must be from 0s to 10m")
        return value

    @field_validator("full_badge_interval")
    @classmethod
    def _full_badge_range(cls, value: timedelta) -> timedelta:
        if not timedelta(seconds=1) <= value <= timedelta(minutes=10):
            raise ValueError(
                "full_badge_interval must be from 1s to 10m (the safety net against a "
                "change that updatedAt misses)"
            )
        return value

    @field_validator("hint_min_gap")
    @classmethod
    def _hint_gap_range(cls, value: timedelta) -> timedelta:
        if not timedelta(seconds=1) <= value <= timedelta(hours=1):
            raise ValueError("hint_min_gap must be from 1s to 1h")
        return value
