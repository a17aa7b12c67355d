"""The seen set: what is new on a PR, what stays known, and when a failed lookup is retried.

Pure, the time is an argument.  Shared by the monitor's notices (reviews) and the comment
wake (comments and reviews), so both answer "is this new?" the same way:

* Everything created at or before the **floor** is old, never decided again.
* Above the floor every item handled for good is kept by id and time (``Seen``), so an
  item is new when it is above the floor and not known (``unseen``).
* ``settle_seen`` raises the floor (to the highest of the raises asked for: the caller's
  grace floor, a flood's "whole from" time) but never below where it was, nor past an
  item still open (waiting for a retry, or held) unless the id set overflows; it then
  keeps at most ``capacity`` ids above the floor, raising the floor further when more are
  handled, so a flood that is then deleted can never bring a forgotten item back as new.
* ``lag_floor`` is the grace floor: ``lag`` behind the newest item handled, so an item
  GitHub lists late is still new.
* ``retry_delay``: a failed lookup is retried after each delay of the schedule in turn,
  then given up.
* ``history_until``: the first look at a watched PR takes what was created at or before
  the watch's start, less ``WATCH_CLOCK_SKEW``, as history; what came after is new.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from datetime import datetime, timedelta

import msgspec

from ._model import BadgeItem

__all__ = [
    "WATCH_CLOCK_SKEW",
    "Seen",
    "history_until",
    "lag_floor",
    "retry_delay",
    "settle_seen",
    "unseen",
]

_TICK = timedelta(microseconds=1)

WATCH_CLOCK_SKEW = timedelta(minutes=2)
"""How far before a watch's start an item still counts as new at the first look.

The watch's start (``watched_since``) is stamped by this machine's clock, an item's
``createdAt`` by GitHub's.  If ours runs ahead, a comment posted right after ``bind`` can
carry a time before the watch began and would be taken for history; two minutes is far
more than a clock kept by NTP drifts (milliseconds) or one left alone drifts in weeks, yet
short enough that only a comment posted in the moments before the bind (most likely meant
for the worker being bound) is taken as new with it."""


def history_until(watched_since: datetime | None) -> datetime | None:
    """The last creation time the first look at a PR watched since ``watched_since``
    takes as history: ``WATCH_CLOCK_SKEW`` before it.  None (no watch time known, as for
    a caller that keeps none): everything listed at the first look is history."""
    return None if watched_since is None else watched_since - WATCH_CLOCK_SKEW


class Seen(msgspec.Struct, frozen=True, array_like=True):
    """An item handled for good, kept by id while it is above the floor."""

    id: str
    at: datetime  # its creation time


def unseen(
    items: Iterable[BadgeItem], floor: datetime | None, known: Collection[str]
) -> list[BadgeItem]:
    """The items above ``floor`` whose ids are not ``known``, oldest first."""
    return sorted(
        (i for i in items if i.id not in known and (floor is None or i.created_at > floor)),
        key=lambda i: (i.created_at, i.id),
    )


def settle_seen(
    floor: datetime | None,
    raises: Sequence[datetime | None],
    handled: Sequence[Seen],
    open_at: Sequence[datetime],
    capacity: int,
) -> tuple[datetime | None, tuple[Seen, ...]]:
    """Raise the floor to the highest of ``raises``, never past an item still open (created
    at one of ``open_at``) nor below where it was, then keep at most ``capacity`` ids above
    it, oldest first."""
    target = floor
    for t in raises:
        target = _max_time(target, t)
    if target is not None and open_at:
        below_open = min(open_at) - _TICK
        if target > below_open:
            target = _max_time(floor, below_open)
    by_id = {h.id: h for h in handled}
    above = sorted(
        (h for h in by_id.values() if target is None or h.at > target),
        key=lambda h: (h.at, h.id),
    )
    excess = len(above) - capacity
    if excess > 0:
        # Everything handled above the floor must stay known by id, so a flood that
        # fills the set pushes the floor up rather than forgetting an id.
        cut = above[excess - 1].at
        target = _max_time(target, cut)
        above = [h for h in above if h.at > cut]
    return target, tuple(above)


def lag_floor(handled: Iterable[Seen], lag: timedelta) -> datetime | None:
    """``lag`` behind the newest item handled; None when nothing is."""
    newest = max((h.at for h in handled), default=None)
    return None if newest is None else newest - lag


def retry_delay(failures: int, schedule: Sequence[timedelta]) -> timedelta | None:
    """The wait after the ``failures``-th failed try (1-based); None: give up."""
    if failures < 1:
        raise ValueError("failures counts failed tries and starts at 1")
    if failures > len(schedule):
        return None
    return schedule[failures - 1]


def _max_time(a: datetime | None, b: datetime | None) -> datetime | None:
    if a is None:
        return b
    return a if b is None else max(a, b)
