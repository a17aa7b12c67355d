"""What is new on a PR: the pure seen set, its floor and the permission retry schedule,
shared by the monitor's notices and the comment wake."""

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
