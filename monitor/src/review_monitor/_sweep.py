"""The sweep: one cheap query for many PRs, read by node id, halved when GitHub balks.

``sweep_query`` asks only fields without connections (``updatedAt``, state, merged, draft,
head, review decision, check rollup state), so GitHub's formula charges one point for up
to 1,000 PRs.  ``parse_sweep`` is pure; ``read_sweep`` sends one document.  ``Sweeper``
reads any number of ids in documents of at most ``size`` PRs; a document that times out,
comes back with a ``nodes`` field nulled (partial data) or with a resource-limit error is
read again at once as two halves, and the smaller size is kept for later sweeps (doubled
back after ``_RECOVER`` clean sweeps), so a GitHub that cannot answer 1,000 ids at once
costs the halving only once.  A sweep gives up halving after ``2 * ceil(log2(n)) + 2``
refused documents (GitHub down, not a document too large): what is left is unread, and
the poller reads those badges instead, as it would without the sweep.  A PR whose id errs
alone (its part of the answer carries an error) is ``unread`` too: the poller reads its full
badge, which reports it the usual way.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Awaitable, Callable, Mapping, Sequence
from datetime import datetime
from typing import Any

import msgspec

from ._api import GitHubApi
from ._badge import (
    ErrorList,
    _str,
    graphql_answer,
    parse_time,
    rate_figures,
    rate_limit_field,
)
from ._errors import AuthError, GitHubError, GraphQLError, RateLimitedError, TransientError
from ._model import SweepBatch, SweepEntry
from ._queries import MAX_SWEEP_IDS, MAX_SWEEP_PRS, sweep_query

__all__ = ["SweepRead", "SweepRefused", "Sweeper", "parse_sweep", "read_sweep"]

_log = logging.getLogger("review_monitor.sweep")

SweepRead = Callable[[Sequence[str]], Awaitable[SweepBatch]]
"""Reads the sweep of up to 1,000 node ids in one query (``read_sweep`` bound to an api)."""

_RECOVER = 60  # clean sweeps at a halved size before the size is doubled again
_RESOURCE_LIMITS = "RESOURCE_LIMITS_EXCEEDED"


class SweepRefused(GitHubError):
    """A sweep document GitHub would not answer whole (timeout, partial data, resource
    limits); the ``Sweeper`` halves it."""


def _entry(node: Mapping[str, Any], node_id: str) -> SweepEntry | None:
    rollup = node.get("statusCheckRollup")
    updated = parse_time(node.get("updatedAt"))
    state, head = _str(node.get("state")), _str(node.get("headRefOid"))
    merged, draft = node.get("merged"), node.get("isDraft")
    if updated is None or state is None or head is None:
        return None
    if not isinstance(merged, bool) or not isinstance(draft, bool):
        return None
    return SweepEntry(
        node_id=node_id,
        updated_at=updated,
        state=state,
        merged=merged,
        is_draft=draft,
        head_ref_oid=head,
        review_decision=_str(node.get("reviewDecision")),
        check_state=_str(rollup.get("state")) if isinstance(rollup, Mapping) else None,
    )


def parse_sweep(data: object, node_ids: Sequence[str], *, errors: ErrorList = ()) -> SweepBatch:
    """Parse a sweep answer for ``node_ids`` (built by ``sweep_query`` with the same ids).

    Raises ``SweepRefused`` when a whole ``nodes`` field is missing or nulled, or GitHub
    says resource limits were exceeded: the answer is partial, and a smaller document is
    the remedy.  An id answered null with NOT_FOUND, or by a node that is not a pull
    request, is ``missing``; one whose own part carries another error or is malformed is
    ``unread``."""
    root = data if isinstance(data, Mapping) else {}
    by_path: dict[tuple[str, int], str] = {}
    for e in errors:
        kind = e.get("type")
        if kind == _RESOURCE_LIMITS:
            raise SweepRefused("GitHub's resource limits were exceeded by the sweep")
        path = e.get("path")
        if isinstance(path, list) and len(path) >= 2 and isinstance(path[1], int):
            by_path[(str(path[0]), path[1])] = kind if isinstance(kind, str) else "ERROR"
    entries: dict[str, SweepEntry] = {}
    missing: list[str] = []
    unread: list[str] = []
    for k in range(0, len(node_ids), MAX_SWEEP_IDS):
        alias = f"s{k // MAX_SWEEP_IDS}"
        group = node_ids[k : k + MAX_SWEEP_IDS]
        nodes = root.get(alias)
        if not isinstance(nodes, list) or len(nodes) != len(group):
            raise SweepRefused(f"the sweep answer's {alias} is missing or partial")
        for i, (node_id, node) in enumerate(zip(group, nodes, strict=True)):
            error = by_path.get((alias, i))
            if error is not None and error != "NOT_FOUND":
                unread.append(node_id)
            elif not isinstance(node, Mapping):
                (missing if error == "NOT_FOUND" or node is None else unread).append(node_id)
            elif node.get("__typename") != "PullRequest" or node.get("id") != node_id:
                missing.append(node_id)
            elif (entry := _entry(node, node_id)) is None:
                unread.append(node_id)
            else:
                entries[node_id] = entry
    return SweepBatch(
        entries=entries, missing=tuple(missing), unread=tuple(unread), **rate_limit_field(root)
    )


async def read_sweep(api: GitHubApi, node_ids: Sequence[str]) -> SweepBatch:
    """The sweep of up to 1,000 PRs (by node id) in one query.  Raises ``SweepRefused``
    for a partial answer, and what ``api.graphql`` raises."""
    if len(node_ids) > MAX_SWEEP_PRS:
        raise ValueError(f"read_sweep reads at most {MAX_SWEEP_PRS} PRs, not {len(node_ids)}")
    if not node_ids:
        return SweepBatch(entries={})
    document, variables = sweep_query(node_ids)
    try:
        result = await graphql_answer(api, document, variables)
    except GraphQLError as exc:
        if any(e.get("type") == _RESOURCE_LIMITS for e in exc.errors):
            raise SweepRefused("GitHub's resource limits were exceeded by the sweep") from None
        raise
    batch = parse_sweep(result.data, node_ids, errors=result.errors)
    return msgspec.structs.replace(batch, **rate_figures(result, batch))


class Sweeper:
    """Sweeps any number of node ids in documents of at most ``size``, halving a document
    GitHub cannot answer whole and keeping the smaller size for a while."""

    def __init__(self, read: SweepRead, *, size: int = MAX_SWEEP_PRS) -> None:
        if not 1 <= size <= MAX_SWEEP_PRS:
            raise ValueError(f"a sweep reads 1 to {MAX_SWEEP_PRS} PRs a document, not {size}")
        self._read = read
        self.max_size = size
        self.size = size  # the size in force (halved after a refusal)
        self._clean = 0  # clean sweeps since the size was last halved
        self._warned_cost: int | None = None

    async def sweep(self, node_ids: Sequence[str]) -> tuple[SweepBatch, int]:
        """Every id swept (missing and unread ones said), and the requests it took.

        Raises ``RateLimitedError`` and ``AuthError`` as they come; any other fault of a
        one-id document leaves that id unread."""
        ids = list(node_ids)
        queue = [ids[i : i + self.size] for i in range(0, len(ids), self.size)]
        parts: list[SweepBatch] = []
        unread: list[str] = []
        requests = 0
        halved = False
        refusals_left = 2 * math.ceil(math.log2(max(len(ids), 2))) + 2
        size_before = self.size
        while queue:
            chunk = queue.pop(0)
            requests += 1
            try:
                part = await self._read(chunk)
            except (RateLimitedError, AuthError):
                raise
            except GitHubError as exc:
                refusals_left -= 1
                if refusals_left < 0:
                    # Not the size's fault: the next sweep tries the size it had.
                    self.size, halved = size_before, False
                    unread += chunk + [i for rest in queue for i in rest]
                    _log.warning(
                        "the sweep was refused %d times (%s); the badges of the %d PRs it "
                        "did not read are read instead",
                        requests - len(parts),
                        type(exc).__name__,
                        len(unread),
                    )
                    break
                if len(chunk) == 1:
                    unread.extend(chunk)
                    continue
                if not isinstance(exc, SweepRefused | TransientError):
                    unread.extend(chunk)  # refused for a reason halving cannot help
                    _log.warning(
                        "a sweep of %d PRs failed (%s); their full badges are read instead",
                        len(chunk),
                        type(exc).__name__,
                    )
                    continue
                half = (len(chunk) + 1) // 2
                if half < self.size:
                    self.size = half
                    halved = True
                queue[:0] = [chunk[:half], chunk[half:]]
                continue
            parts.append(part)
            self._check_cost(part, len(chunk))
        if halved:
            self._clean = 0
            _log.warning(
                "GitHub could not answer a sweep whole (a timeout, partial data or its "
                "resource limits); sweeping %d PRs a document from now on",
                self.size,
            )
        elif self.size < self.max_size:
            self._clean += 1
            if self._clean >= _RECOVER:
                self._clean = 0
                self.size = min(self.max_size, self.size * 2)
                _log.info("sweeping %d PRs a document again", self.size)
        return _merge(parts, unread), requests

    def _check_cost(self, part: SweepBatch, count: int) -> None:
        if part.cost is not None and part.cost > 1 and part.cost != self._warned_cost:
            self._warned_cost = part.cost
            _log.warning(
                "a sweep of %d PRs cost %d points, not the 1 point GitHub's formula gives "
                "a query without connections; docs/monitor.md says what the sweep asks",
                count,
                part.cost,
            )


def _merge(parts: Sequence[SweepBatch], unread: Sequence[str]) -> SweepBatch:
    entries: dict[str, SweepEntry] = {}
    missing: list[str] = []
    not_read = list(unread)
    for p in parts:
        entries.update(p.entries)
        missing.extend(p.missing)
        not_read.extend(p.unread)
    costs = [p.cost for p in parts if p.cost is not None]
    remaining = [p.remaining for p in parts if p.remaining is not None]
    resets = [p.reset_at for p in parts if p.reset_at is not None]
    reset_at: datetime | None = resets[-1] if resets else None
    return SweepBatch(
        entries=entries,
        missing=tuple(missing),
        unread=tuple(not_read),
        cost=sum(costs) if costs else None,
        remaining=remaining[-1] if remaining else None,
        reset_at=reset_at,
    )
