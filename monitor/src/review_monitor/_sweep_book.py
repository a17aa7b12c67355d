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
  ``full_interval``, against a change that ``updatedAt`` misses;
* ``slot``: the PR's own safety-net slot has come and its badge was not read since.  Each
  PR has a slot every ``full_interval``, at a phase of its own (a hash of its key), so
  PRs first read together (at the start, or when a new reader takes over) are read by
  the net at their slots, spread over the rounds of an interval, rather than all
  together every tenth round: 4,000 PRs cost a tenth of their badges a round (fleet
  mode's reader: no round over 12 points).  A slot read may wait (``slot_reads``): the
  poller reads slot PRs in whole batches, since a batch of 74 PRs costs what one of 10
  does; a PR left waiting stays due, and the ``safety-net`` rule still bounds its age.

Otherwise the sweep proved that nothing the badge shows has changed since a badge that
was complete, and nobody is told anything.

The last full badge of each PR and when it was read are the observation stream's latest
observation (``latest``): the book keeps only what this round's sweep showed.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Literal

from ._model import PrRef, SweepEntry
from ._observations import Observation

__all__ = ["DueReason", "SweepBook", "net_slot"]

DueReason = Literal["first", "unswept", "changed", "settling", "safety-net", "slot"]
"""Why a PR's full badge is read this round (``SweepBook.due``)."""

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def net_slot(pr: PrRef, before: datetime, full_interval: timedelta) -> datetime:
    """The last of ``pr``'s safety-net slots strictly before ``before``: its slots are
    ``full_interval`` apart, at a phase set by a hash of its key (stable across restarts
    and hosts, so a new reader keeps the spread)."""
    phase = full_interval * (zlib.crc32(pr.key_text.encode()) / 2**32)
    since = (before - _EPOCH - phase) % full_interval
    return before - (since or full_interval)


class SweepBook:
    """Per PR: whether a full badge is due, from the PR's latest observation (``latest``:
    its last full badge and when it was read) and this round's sweep."""

    def __init__(
        self,
        *,
        grace: timedelta,
        full_interval: timedelta,
        latest: Callable[[PrRef], Observation | None],
    ) -> None:
        self.grace = grace
        self.full_interval = full_interval
        self._latest = latest
        self._swept: dict[PrRef, SweepEntry | None] = {}  # this round's sweep

    def _badge(self, pr: PrRef) -> tuple[SweepEntry, datetime] | None:
        """The PR's last full badge in the sweep's terms, and when it was read."""
        seen = self._latest(pr)
        entry = None if seen is None else SweepEntry.of(seen.badge)
        return None if entry is None or seen is None else (entry, seen.read_at)

    def node_ids(self, prs: Iterable[PrRef]) -> dict[str, PrRef]:
        """The node ids the sweep can ask for, of those of ``prs`` whose badge gave one."""
        return {badge[0].node_id: pr for pr in prs if (badge := self._badge(pr)) is not None}

    def swept(self, found: Mapping[PrRef, SweepEntry | None]) -> None:
        """This round's sweep: each PR's entry (a PR it did not read is missing or None)."""
        self._swept = dict(found)

    def due(self, pr: PrRef, now: datetime, interval: timedelta) -> DueReason | None:
        """Why ``pr`` needs a full badge in the round starting at ``now`` (whose interval is
        ``interval``); None when the sweep showed it unchanged and settled."""
        badge = self._badge(pr)
        if badge is None:
            return "first"
        entry, badge_at = badge
        swept = self._swept.get(pr)
        if swept is None:
            return "unswept"
        if swept != entry:
            return "changed"
        if badge_at < swept.updated_at + self.grace:
            return "settling"
        if now + interval > badge_at + self.full_interval:
            return "safety-net"
        # Half a round's margin: a read at the slot's round may come a little before it.
        if badge_at < net_slot(pr, now + interval, self.full_interval) - interval / 2:
            return "slot"
        return None

    def slot_reads(
        self, slots: Sequence[PrRef], others: int, batch: int, now: datetime, interval: timedelta
    ) -> list[PrRef]:
        """Of ``slots`` (PRs due by their slot alone), those to read this round beside
        ``others`` badges, in batches of ``batch``: enough to fill the last batch the
        others start, then whole batches; the earliest slots first.  The rest wait."""
        by_slot = sorted(slots, key=lambda pr: net_slot(pr, now + interval, self.full_interval))
        fill = -others % batch
        return by_slot[: fill + (len(by_slot) - fill) // batch * batch]
