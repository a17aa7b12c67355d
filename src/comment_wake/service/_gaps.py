"""Flood gaps: the spans of a PR's listing that no read covered, kept for ``status`` and
``explain``.

A ``FloodGap`` is an application record in the PR's gap namespace
(``comment-wake/gaps/HOST/owner/name#N``, folded as the decision namespaces are), keyed
by its time and connection, committed in the look's own transaction with the mark that
raised the floor over it.  The daemon's prune deletes them with the decision records.
"""

from __future__ import annotations

from datetime import UTC, datetime

import msgspec

from comment_wake.store import read_records
from comment_wake.wake import FloodGap
from review_monitor import PrRef
from review_monitor.store import SyncStore

__all__ = ["GAPS", "describe_gap", "gap_row", "read_gaps"]

GAPS = "comment-wake/gaps/"
"""The prefix of every PR's gap namespace."""

_decoder = msgspec.json.Decoder(FloodGap)


def _namespace(pr: PrRef) -> str:
    host, owner, name, number = pr.key
    return f"{GAPS}{host}/{owner}/{name}#{number}"


def gap_row(gap: FloodGap) -> tuple[str, str, bytes]:
    """``(namespace, key, value)`` of a gap's record (``putting_records`` takes these)."""
    at = gap.at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    return _namespace(gap.pr), f"{at}/{gap.connection}", msgspec.json.encode(gap)


def _decoded(rows: tuple[tuple[str, bytes], ...]) -> tuple[FloodGap, ...]:
    out = []
    for _, blob in rows:
        try:
            out.append(_decoder.decode(blob))
        except (msgspec.DecodeError, msgspec.ValidationError):
            continue  # a record this build cannot read: skipped, never fatal
    return tuple(out)


def read_gaps(store: SyncStore, pr: PrRef) -> tuple[FloodGap, ...]:
    """The PR's recorded gaps, oldest first."""
    return _decoded(read_records(store, _namespace(pr)))


def describe_gap(gap: FloodGap) -> str:
    """One line for a person: what was not read, and why."""
    start = "the last look" if gap.start is None else _iso(gap.start)
    if gap.deferred:
        return (
            f"{gap.connection} created between {start} and {_iso(gap.end)} were not read "
            f"yet: the gap read was deferred after {gap.pages_read} page(s), the identity's "
            "gap pages spent or its shared budget low; a later look reads them "
            f"({gap.reason}, recorded {_iso(gap.at)})"
        )
    if gap.pages_allowed:
        why = f"the gap read stopped at its bound, {gap.pages_read} of {gap.pages_allowed} pages"
    else:
        why = "no gap read was allowed (turned off, or the hour's pages spent)"
    return (
        f"{gap.connection} created between {start} and {_iso(gap.end)} may never have been "
        f"listed: a flood pushed them out and {why} ({gap.reason}, recorded {_iso(gap.at)})"
    )


def _iso(t: datetime) -> str:
    return t.astimezone(UTC).isoformat().replace("+00:00", "Z")
