"""The per-PR rate limit: pure arithmetic over the PR's wake times.

People and trusted bots have windows of their own (``bots=True``: ``bot_wakes_per_hour``
and ``bot_wakes_per_day``, over the same window lengths and minimum gap), each over its
own wake times, so a bot's wakes never use up people's.

A wake at ``w`` counts in a sliding window of length ``W`` at every time ``t`` with
``t - W < w <= t``; a wake recorded after the present (the clock stepped backwards)
counts as made now.  At most ``cap`` wakes in any window means the next wake may go
at ``t`` only when fewer than ``cap`` earlier wakes are inside ``(t - W, t]``.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from ._config import WakeConfig

__all__ = ["prune_wakes", "release_at"]


def release_at(
    wakes: Sequence[datetime], config: WakeConfig, *, bots: bool = False
) -> datetime | None:
    """The earliest time the next wake may go; None when nothing limits it.  ``bots``:
    the trusted bots' windows (``wakes`` their wake times)."""
    if not wakes:
        return None
    ordered = sorted(wakes)
    earliest = ordered[-1] + config.wake_min_gap
    per_hour = config.bot_wakes_per_hour if bots else config.wakes_per_hour
    per_day = config.bot_wakes_per_day if bots else config.wakes_per_day
    for cap, window in (
        (per_hour, config.wake_hour_window),
        (per_day, config.wake_day_window),
    ):
        if len(ordered) >= cap:
            # Once the (n - cap)-th oldest wake leaves the window, cap - 1 remain.
            earliest = max(earliest, ordered[len(ordered) - cap] + window)
    return earliest


def prune_wakes(
    wakes: Sequence[datetime], now: datetime, config: WakeConfig
) -> tuple[datetime, ...]:
    """Only the wake times that can still limit a wake at ``now`` or later.

    A wake time after ``now`` (the clock stepped backwards) is kept as ``now``: otherwise
    the next wake would wait until the clock passed it again, however far that is; this
    way the wait it causes is at most ``wake_min_gap``, and it leaves each window after
    that window's length."""
    keep = max(config.wake_hour_window, config.wake_day_window, config.wake_min_gap)
    return tuple(sorted(min(w, now) for w in wakes if w > now - keep))
