"""One bad PR never starves its batch: split a refused badge query until it is isolated.

Every PR of a batch shares one badge query, so a PR that makes GitHub refuse the whole
request (a validation error, such as a number beyond GraphQL's 32-bit ``Int``: the answer
carries errors and no data at all) would fail the batch on every poll.  ``BatchSplitter``
reads a batch through the badge reader; on such a whole-request error it reads the two
halves, and each half that fails again is halved again, until the PRs that fail alone
are found.  Those are marked faulted (``on_fault``, once each) and isolated: from then on
they are read alone, so the rest of their batch is one query again and the split is not
paid again every poll.  An isolated PR whose own read succeeds rejoins the batches.

A split of ``n`` PRs costs about ``2 * log2(n)`` more requests per bad PR, once.  It is
given up (the batch fails as before) when it has sent ``4 * ceil(log2(n)) + 2`` refused
requests, enough to isolate two bad PRs, or when every PR of more than two fails alone
(the refusal is nobody's doing, such as a query GitHub no longer accepts); then no batch
is split again for ``pause``, so a refusal of every query does not cost a split every poll.

Only a whole-request GraphQL refusal splits.  A rate limit, a 5xx, a timeout or a refused
token says nothing about any one PR and fails the batch as before (the poller's rule: no
listener is called, no mark moves).
"""

from __future__ import annotations

import logging
import math
import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from datetime import datetime, timedelta

from ._duration import format_duration
from ._errors import GraphQLError
from ._model import BadgeBatch, PrRef, PrStatus

__all__ = ["BatchSplitter", "refusal_code"]

_log = logging.getLogger("review_monitor.poller")

Read = Callable[[Sequence[PrRef]], Awaitable[BadgeBatch]]
_CODE = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,47}$")


def refusal_code(exc: GraphQLError) -> str:
    """What GitHub said, as one word fit for a log line: the first error's
    ``extensions.code`` or ``type`` (GitHub's identifiers), never its message."""
    for error in exc.errors:
        extensions = error.get("extensions")
        code = extensions.get("code") if isinstance(extensions, dict) else None
        for value in (code, error.get("type")):
            if isinstance(value, str) and _CODE.match(value):
                return value
    return "OTHER"


def _refusal(exc: Exception) -> GraphQLError | None:
    """``exc`` when it refuses the whole request and may be one PR's doing, else None."""
    if not isinstance(exc, GraphQLError) or not exc.errors:
        return None
    if any(e.get("type") == "RATE_LIMITED" for e in exc.errors):
        return None
    return exc


class BatchSplitter:
    """Reads badge batches, isolating each PR that makes GitHub refuse its whole batch.

    ``on_fault(pr, code)`` is called once when a PR is first isolated, with GitHub's
    error code (``refusal_code``).  ``now`` is the clock; ``pause`` how long no batch is
    split after a split that found nobody to blame.
    """

    def __init__(
        self,
        *,
        now: Callable[[], datetime],
        on_fault: Callable[[PrRef, str], None] | None = None,
        pause: timedelta = timedelta(minutes=15),
    ) -> None:
        self._now = now
        self._on_fault = on_fault
        self._pause = pause
        self._isolated: dict[PrRef, str] = {}
        self._no_split_until: datetime | None = None

    @property
    def isolated(self) -> frozenset[PrRef]:
        """The PRs read alone because their badge query is refused."""
        return frozenset(self._isolated)

    @property
    def refused(self) -> dict[PrRef, str]:
        """The PRs read alone, with GitHub's refusal code (a copy)."""
        return dict(self._isolated)

    def seed(self, refused: Mapping[PrRef, str]) -> None:
        """Read ``refused`` alone from now on, without splitting a batch to find them (a
        fleet reader taking over from one that found them; no fault is reported again)."""
        self._isolated.update(refused)

    async def read(self, read: Read, batch: Sequence[PrRef]) -> BadgeBatch:
        """``read(batch)``, with every PR that GitHub refuses isolated and left out of
        the answer (in neither ``statuses`` nor ``missing``: unread this time).

        Raises what ``read`` raises when the error is not a whole-request refusal, or
        when the refused request holds no PR that fails alone."""
        together = [pr for pr in batch if pr not in self._isolated]
        alone = [pr for pr in batch if pr in self._isolated]
        parts: list[BadgeBatch] = []
        if together:
            await self._read_together(read, together, parts)
        for pr in alone:
            try:
                parts.append(await read([pr]))
            except Exception as exc:
                if _refusal(exc) is None:
                    raise
                continue  # still refused: isolated already, said once
            del self._isolated[pr]
            _log.info("%s: its badge query is accepted again; it rejoins the batches", pr)
        return _merge(parts)

    async def _read_together(
        self, read: Read, prs: Sequence[PrRef], parts: list[BadgeBatch]
    ) -> None:
        try:
            parts.append(await read(prs))
            return
        except Exception as exc:
            paused = self._no_split_until is not None and self._now() < self._no_split_until
            found_refusal = _refusal(exc)
            if found_refusal is None or paused:
                raise
            refused = found_refusal
        if len(prs) == 1:
            self._isolate(prs[0], refusal_code(refused))
            return
        split = _Split(read, 4 * math.ceil(math.log2(max(len(prs), 2))) + 2)
        found = await split.run(prs)
        if found is None or (len(prs) > 2 and len(found) == len(prs)):
            self._no_split_until = self._now() + self._pause
            _log.warning(
                "a refused badge query of %d PRs was not one PR's doing; batches are not "
                "split again for %s",
                len(prs),
                format_duration(self._pause),
            )
            raise refused
        for pr, code in found.items():
            self._isolate(pr, code)
        parts.extend(split.parts)

    def _isolate(self, pr: PrRef, code: str) -> None:
        self._isolated[pr] = code
        _log.warning(
            "%s: GitHub refuses its badge query (%s); it is read alone from now on, and "
            "the other PRs of its batch are read without it",
            pr,
            code,
        )
        if self._on_fault is not None:
            self._on_fault(pr, code)


class _Split:
    """One split: halves read depth first, at most ``refusals`` refused requests."""

    def __init__(self, read: Read, refusals: int) -> None:
        self._read = read
        self._left = refusals
        self.parts: list[BadgeBatch] = []
        self._found: dict[PrRef, str] = {}

    async def run(self, prs: Sequence[PrRef]) -> dict[PrRef, str] | None:
        """The PRs that fail alone, with GitHub's code; None: the split was given up."""
        half = (len(prs) + 1) // 2
        if not await self._halve(prs[:half]) or not await self._halve(prs[half:]):
            return None
        return self._found

    async def _halve(self, prs: Sequence[PrRef]) -> bool:
        if not prs:
            return True
        try:
            self.parts.append(await self._read(prs))
            return True
        except Exception as exc:
            refused = _refusal(exc)
            if refused is None:
                raise
            self._left -= 1
            if self._left < 0:
                return False
            if len(prs) == 1:
                self._found[prs[0]] = refusal_code(refused)
                return True
        return await self.run(prs) is not None


def _merge(parts: Sequence[BadgeBatch]) -> BadgeBatch:
    statuses: dict[PrRef, PrStatus] = {}
    missing: list[PrRef] = []
    costs = [p.cost for p in parts if p.cost is not None]
    remaining = [p.remaining for p in parts if p.remaining is not None]
    resets = [p.reset_at for p in parts if p.reset_at is not None]
    for p in parts:
        statuses.update(p.statuses)
        missing.extend(p.missing)
    return BadgeBatch(
        statuses=statuses,
        missing=tuple(missing),
        cost=sum(costs) if costs else None,
        remaining=remaining[-1] if remaining else None,
        reset_at=resets[-1] if resets else None,
    )
