"""Which PRs need a full badge this round, from what the sweep saw.  Pure: time is an
argument.

A PR's full badge is read when:

* ``first``: no badge of it has been read yet (the sweep asks by node id, which the
  badge gives), or the badge gave no ``updatedAt``;
* ``unswept``: this round's sweep did not read it (an error, a partial answer);
* ``changed``: the sweep shows a field, or an ``updatedAt``, other than the last badge's;
* ``settling``: GitHub may list a comment a few seconds after it moved ``updatedAt``
  (the seed's grace), so a PR stays dirty, with a full badge every round, until a badge
  is read at least ``grace`` after its ``updatedAt``.  ``updatedAt`` is GitHub's clock and
  the read time is ours: a clock of ours running behind costs extra badges, one running
  ahead by more than the grace could read too early, which the safety net bounds;
* ``safety-net``: waiting for the next round would leave its last full badge older than
  ``full_interval``, against a change that ``updatedAt`` misses.

Otherwise the sweep proved that nothing the badge shows has changed since a badge that
was complete, and the poller tells its listeners that badge again.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal

from ._model import PrRef, PrStatus, SweepEntry

__all__ = ["DueReason", "SweepBook"]

DueReason = Literal["first", "unswept", "changed", "settling", "safety-net"]
"""Why a PR's full badge is read this round (``SweepBook.due``)."""


@dataclass
class _Look:
    node_id: str
    badge: SweepEntry  # what the last full badge showed, in the sweep's terms
    badge_at: datetime  # when it was read (our clock)
    swept: SweepEntry | None = None  # what this round's sweep showed (None: not read)


class SweepBook:
    """Per PR: the last full badge and the last sweep, and the rule that says whether a
    full badge is due."""

    def __init__(self, *, grace: timedelta, full_interval: timedelta) -> None:
        self.grace = grace
        self.full_interval = full_interval
        self._looks: dict[PrRef, _Look] = {}

    def node_ids(self, prs: Iterable[PrRef]) -> dict[str, PrRef]:
        """The node ids the sweep can ask for, of those of ``prs`` whose badge gave one."""
        return {look.node_id: pr for pr in prs if (look := self._looks.get(pr)) is not None}

    def badge_read(self, status: PrStatus, at: datetime) -> None:
        """A full badge of ``status.pr`` was read at ``at``."""
        entry = SweepEntry.of(status)
        if entry is None:
            self._looks.pop(status.pr, None)
            return
        self._looks[status.pr] = _Look(node_id=entry.node_id, badge=entry, badge_at=at)

    def swept(self, found: Mapping[PrRef, SweepEntry | None]) -> None:
        """This round's sweep: each PR's entry, None for one it did not read."""
        for pr, look in self._looks.items():
            look.swept = found.get(pr)

    def due(self, pr: PrRef, now: datetime, interval: timedelta) -> DueReason | None:
        """Why ``pr`` needs a full badge in the round starting at ``now`` (whose interval is
        ``interval``); None when the sweep showed it unchanged and settled."""
        look = self._looks.get(pr)
        if look is None:
            return "first"
        swept = look.swept
        if swept is None:
            return "unswept"
        if swept != look.badge:
            return "changed"
        if look.badge_at < swept.updated_at + self.grace:
            return "settling"
        if now + interval > look.badge_at + self.full_interval:
            return "safety-net"
        return None

    def forget(self, keep: Iterable[PrRef]) -> None:
        """Drop every PR not in ``keep`` (no longer watched)."""
        kept = set(keep)
        for pr in [pr for pr in self._looks if pr not in kept]:
            del self._looks[pr]
