"""What is new on a PR: the pure seen set, its floor and the permission retry schedule,
shared by the monitor's notices and the comment wake."""

from __future__ import annotations

from typing import TYPE_CHECKING

from review_monitor._lazy import lazy_exports

if TYPE_CHECKING:
    from ._seen import (
        WATCH_CLOCK_SKEW,
        Seen,
        history_until,
        lag_floor,
        retry_delay,
        settle_seen,
        unseen,
    )

__all__ = [
    "WATCH_CLOCK_SKEW",
    "Seen",
    "history_until",
    "lag_floor",
    "retry_delay",
    "settle_seen",
    "unseen",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    globals(),
    {
        "._seen": (
            "WATCH_CLOCK_SKEW",
            "Seen",
            "history_until",
            "lag_floor",
            "retry_delay",
            "settle_seen",
            "unseen",
        ),
    },
)
