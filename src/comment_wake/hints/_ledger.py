"""What the listener remembers between requests (pure; time is an argument).

``DeliveryIds`` remembers the ``X-GitHub-Delivery`` ids of recent hinting deliveries, so
a replay of one polls nothing; memory is bounded by a window and a count.  ``Tally``
counts what the listener answered, so a flood of refused requests is one line now and
one summary line per period, never a line per request.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from dataclasses import dataclass
from datetime import datetime, timedelta

__all__ = [
    "DELIVERY_ID_MEMORY",
    "DELIVERY_ID_WINDOW",
    "SUMMARY_EVERY",
    "DeliveryIds",
    "HintCounts",
    "Tally",
    "is_delivery_id",
]

DELIVERY_ID_WINDOW = timedelta(hours=1)
"""How long a delivery id is remembered."""
DELIVERY_ID_MEMORY = 10_000
"""How many ids are remembered at most (the oldest is forgotten first): well under 2 MB."""
SUMMARY_EVERY = timedelta(minutes=5)
"""How often refused and duplicate deliveries are summarised in one log line."""

_DELIVERY_ID = re.compile(r"[0-9A-Za-z-]{1,64}")  # GitHub sends a GUID


def is_delivery_id(value: str) -> bool:
    """True when ``value`` has the shape of an ``X-GitHub-Delivery`` id."""
    return _DELIVERY_ID.fullmatch(value) is not None


class DeliveryIds:
    """The delivery ids seen in the last ``window``, at most ``size`` of them."""

    def __init__(
        self, *, window: timedelta = DELIVERY_ID_WINDOW, size: int = DELIVERY_ID_MEMORY
    ) -> None:
        if size < 1:
            raise ValueError("size must be at least 1")
        self._window = window
        self._size = size
        self._seen: OrderedDict[str, datetime] = OrderedDict()  # oldest first

    def __len__(self) -> int:
        return len(self._seen)

    def first_time(self, delivery: str, now: datetime) -> bool:
        """Remember ``delivery``; True unless it was seen within the window.  A repeat
        does not renew the memory: the window counts from the first sight."""
        while self._seen:
            oldest, at = next(iter(self._seen.items()))
            if now - at < self._window:
                break
            del self._seen[oldest]
        if delivery in self._seen:
            return False
        self._seen[delivery] = now
        while len(self._seen) > self._size:
            self._seen.popitem(last=False)
        return True

    def forget(self, delivery: str) -> None:
        """Forget ``delivery`` (its hint failed: a redelivery must be able to try again)."""
        self._seen.pop(delivery, None)


@dataclass(frozen=True)
class HintCounts:
    """What the listener answered since it started, by kind."""

    hinted: int = 0  # signed deliveries that asked for a poll
    duplicates: int = 0  # signed deliveries whose id was seen before (no poll)
    bad_signatures: int = 0  # a signature that does not match the body and the secret
    unsigned: int = 0  # no X-Hub-Signature-256, or one of the wrong shape


_KINDS = ("hinted", "duplicates", "bad_signatures", "unsigned")
_REFUSED = ("duplicates", "bad_signatures", "unsigned")  # deliveries that poll nothing


class Tally:
    """Counts answers; ``count`` says when a refused delivery deserves its own line (the
    first after a quiet period) and ``summary`` gives the period's counts once it ends."""

    def __init__(self, every: timedelta = SUMMARY_EVERY) -> None:
        self.every = every
        self._total = dict.fromkeys(_KINDS, 0)
        self._period = dict.fromkeys(_KINDS, 0)
        self._ends: datetime | None = None  # None: quiet, no refusal since the last summary

    @property
    def counts(self) -> HintCounts:
        """Everything counted so far."""
        return HintCounts(**self._total)

    @property
    def summary_due(self) -> datetime | None:
        """When the current period ends; None while quiet."""
        return self._ends

    def count(self, kind: str, now: datetime) -> bool:
        """Count one answer of ``kind`` (a ``HintCounts`` field).  For a delivery that
        polls nothing (all but ``hinted``), True when it starts a period: log it now."""
        self._total[kind] += 1
        self._period[kind] += 1
        if kind not in _REFUSED:
            return False
        if self._ends is None:
            self._ends = now + self.every
            self._period = dict.fromkeys(_KINDS, 0)  # the first one is logged on its own
            return True
        return False

    def summary(self, now: datetime) -> HintCounts | None:
        """The counts of the period that ended by ``now`` (then a new one starts; with
        nothing refused in it, the tally is quiet again); None before it ends."""
        if self._ends is None or now < self._ends:
            return None
        counts = HintCounts(**self._period)
        self._period = dict.fromkeys(_KINDS, 0)
        refused = counts.duplicates + counts.bad_signatures + counts.unsigned
        self._ends = now + self.every if refused else None
        return counts
