"""The wake's configuration (the ``[wake]`` table), validated by pydantic.

The permission and bot keys (``permission_ttl``, ``permission_retries``,
``trusted_permissions``, ``review_bots``) are not here: they belong to
``review_monitor.MonitorConfig``, whose permissions component the wake shares.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Self

from pydantic import BaseModel, ConfigDict, Field, model_validator

from review_monitor import Duration

from ._mention import check_handle
from ._model import Trigger

__all__ = ["WakeConfig"]


class WakeConfig(BaseModel):
    """Every key is documented in ``docs/trust-rules.md``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    # What counts as new: the floor trails the newest handled comment by this much,
    # which is also the grace for a comment GitHub lists late.
    floor_lag: Duration = timedelta(minutes=5)
    handled_capacity: int = Field(default=64, ge=1, le=10_000, strict=True)
    # The per-PR rate limit, sliding windows.
    wake_min_gap: Duration = timedelta(minutes=1)
    wakes_per_hour: int = Field(default=6, ge=1, strict=True)
    wake_hour_window: Duration = timedelta(minutes=60)
    wakes_per_day: int = Field(default=24, ge=1, strict=True)
    wake_day_window: Duration = timedelta(hours=24)
    # Own posts: bodies the worker's login posts to ask a bot for a re-review, and
    # machine-user logins that agents post with.
    rereview_commands: tuple[str, ...] = ()
    agent_logins: tuple[str, ...] = ()
    # Read by the own-post matcher, not by the core.
    own_post_window: Duration = timedelta(hours=2)
    post_clock_skew: Duration = timedelta(seconds=30)
    # Pages of 100 read backwards per connection after a flood, at the configured poll
    # interval (more when the budget governor stretches it); 0 is the seed's behaviour.
    # 20 pages outlast 2,000 comments between two polls: six accounts at GitHub's ~80
    # items a minute post 480.
    gap_pages: int = Field(default=20, ge=0, le=100, strict=True)
    # The most gap pages read on one PR in any 60 minutes, both connections together:
    # the cap on what a flood can make the gap read spend (one point a page).
    gap_pages_per_hour: int = Field(default=200, ge=1, le=10_000, strict=True)
    # Trigger modes: "any" comment, or only one that mentions ``handle`` (which has no
    # default: a binding may name its own, ``bind --handle``).  A comment whose first
    # non-blank line starts with ``skip_marker`` never wakes ("" turns it off).
    trigger: Trigger = "any"
    handle: str | None = None
    skip_marker: str = ""
    # Bots whose issue comments wake the worker (seed rule 1 says never: opt-in), compared
    # as ``review_bots`` are; ``review_bots`` and ``agent_logins`` win over this list.
    # Their wakes have windows of their own, which never use up people's.
    trusted_bots: tuple[str, ...] = ()
    bot_wakes_per_hour: int = Field(default=2, ge=1, strict=True)
    bot_wakes_per_day: int = Field(default=6, ge=1, strict=True)

    @model_validator(mode="after")
    def _trigger_consistent(self) -> Self:
        if self.handle is not None:
            why = check_handle(self.handle)
            if why is not None:
                raise ValueError(f"handle: {why}")  # not quoted back (it may be a paste)
        if self.trigger == "mention" and self.handle is None:
            raise ValueError(
                'trigger = "mention" needs a handle to look for: set handle in [wake] '
                '(for example handle = "/agent", not a GitHub login: the token\'s login '
                'is your own), or set trigger = "any"'
            )
        return self
