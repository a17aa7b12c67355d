"""The observation stream in the store (fleet mode): the reader writes, owners follow.

One reader per GitHub identity polls every watched PR of the fleet's live hosts and
writes what it saw here, one row per item kind and PR (an upsert: the latest only, as
``InMemoryObservations`` keeps it), each with the next ``seq`` of its identity and the
reader's lease ``term``.  Every host follows the rows of the PRs it owns by its cursor
(``follow_stream``), in seq order.

Why the order holds: ``ship`` takes the identity's stream lock, checks that the writer
still holds the reader lease at its term (a deposed reader writes nothing: its late
write loses on term), and moves the identity's counter in that transaction.  The lock is
held to the commit, so rows commit in seq order and a follower's snapshot always sees a
prefix of the stream: a cursor never skips a row that commits later with a lower seq.

Bodies and failing checks prefetched by the reader ride in their observation, a cache for
the owner's look (``prune_bodies`` drops them after ten minutes; what is missing the owner
reads itself).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

import msgspec

from review_monitor._listener import Watch
from review_monitor._missing import Missing
from review_monitor._model import PrRef
from review_monitor._observations import Observation, Observed, PrGone, PrReadable, RoundDone

from ._db import ReadTx, WriteTx, parse_store_time, store_time
from ._leases import read_lease
from ._schema import Migration, Tables

__all__ = [
    "STREAM",
    "ReaderState",
    "follow_stream",
    "latest_observations",
    "prune_bodies",
    "prune_stream",
    "read_reader_state",
    "reader_lease_name",
    "save_reader_state",
    "ship",
    "unread_prs",
    "unread_watches",
]

_V1 = (
    """CREATE TABLE observations (
        identity TEXT NOT NULL,
        kind TEXT NOT NULL,
        pr_key TEXT NOT NULL,
        seq INTEGER NOT NULL,
        term INTEGER NOT NULL,
        at TEXT NOT NULL,
        item BLOB NOT NULL,
        PRIMARY KEY (identity, kind, pr_key)
    )""",
    "CREATE INDEX observations_by_seq ON observations (identity, seq)",
    """CREATE TABLE observation_seq (
        identity TEXT PRIMARY KEY,
        n INTEGER NOT NULL
    )""",
    # Each host's cursor in each identity's stream: where a restart goes on from.
    """CREATE TABLE stream_cursors (
        host_id TEXT NOT NULL,
        identity TEXT NOT NULL,
        seq INTEGER NOT NULL,
        updated_at TEXT NOT NULL,
        PRIMARY KEY (host_id, identity)
    )""",
)
# The reader's failover state: what its poller learned that no observation holds, so a
# reader that takes over starts where the last one stopped.  ``kind`` 'missing': a PR
# GitHub answers NOT_FOUND, with its backoff (``state``: a ``Missing``); 'alone': a PR
# whose badge query GitHub refuses, read alone (``state``: the refusal's code).
_V2 = (
    """CREATE TABLE reader_state (
        identity TEXT NOT NULL,
        kind TEXT NOT NULL,
        pr_key TEXT NOT NULL,
        pr BLOB NOT NULL,
        state BLOB NOT NULL,
        PRIMARY KEY (identity, kind, pr_key)
    )""",
)
STREAM = Tables(
    "review_monitor.stream",
    (
        Migration(1, "the observation stream", _V1),
        Migration(2, "the reader's failover state", _V2),
    ),
)

_ENCODER = msgspec.json.Encoder()
_DECODER = msgspec.json.Decoder(Observed)  # a tagged union


def reader_lease_name(identity: str) -> str:
    """The lease of ``identity``'s one reader (``github_host:login``)."""
    return f"reader:{identity}"


def _kind_and_key(item: Observed) -> tuple[str, str]:
    if isinstance(item, RoundDone):
        return "round-done", ""
    kind = {Observation: "observation", PrGone: "pr-gone", PrReadable: "pr-readable"}
    return kind[type(item)], item.pr.key_text


def _at(item: Observed) -> datetime:
    return item.read_at if isinstance(item, Observation) else item.at


def ship(tx: WriteTx, identity: str, holder: str, term: int, items: Sequence[Observed]) -> bool:
    """Write ``items`` as the reader ``holder`` at ``term``, inside ``tx``; False (nothing
    written) when that is no longer the reader lease's holder and term."""
    tx.lock(f"stream:{identity}")
    lease = read_lease(tx, reader_lease_name(identity))
    if lease is None or (lease.holder, lease.term) != (holder, term):
        return False
    row = tx.execute("SELECT n FROM observation_seq WHERE identity = ?", (identity,)).fetchone()
    n = 0 if row is None else int(row[0])
    for item in items:
        n += 1
        kind, key = _kind_and_key(item)
        blob = _ENCODER.encode(msgspec.structs.replace(item, seq=n))
        tx.execute(
            "INSERT INTO observations (identity, kind, pr_key, seq, term, at, item) "
            "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (identity, kind, pr_key) DO UPDATE SET "
            "seq = excluded.seq, term = excluded.term, at = excluded.at, item = excluded.item",
            (identity, kind, key, n, term, store_time(_at(item)), blob),
        )
    tx.execute(
        "INSERT INTO observation_seq (identity, n) VALUES (?, ?) "
        "ON CONFLICT (identity) DO UPDATE SET n = excluded.n",
        (identity, n),
    )
    return True


def follow_stream(
    tx: ReadTx, identity: str, after_seq: int, host_id: str | None, *, limit: int = 1000
) -> list[Observed]:
    """The items after ``after_seq``, oldest first, at most ``limit``: every round's end,
    and the PR items of the PRs ``host_id`` owns (every PR's with ``host_id`` None)."""
    if host_id is None:
        rows = tx.execute(
            "SELECT item FROM observations WHERE identity = ? AND seq > ? ORDER BY seq LIMIT ?",
            (identity, after_seq, limit),
        ).fetchall()
    else:
        rows = tx.execute(
            "SELECT o.item FROM observations o LEFT JOIN pr_owners p ON p.pr_key = o.pr_key "
            "WHERE o.identity = ? AND o.seq > ? AND (o.kind = 'round-done' OR p.host_id = ?) "
            "ORDER BY o.seq LIMIT ?",
            (identity, after_seq, host_id, limit),
        ).fetchall()
    return [_DECODER.decode(bytes(r[0])) for r in rows]


def latest_observations(tx: ReadTx, identity: str) -> list[Observation]:
    """Every PR's latest observation for ``identity``, oldest first (a new reader starts
    its sweep book and its listed ids from them)."""
    rows = tx.execute(
        "SELECT item FROM observations WHERE identity = ? AND kind = 'observation' ORDER BY seq",
        (identity,),
    ).fetchall()
    out = [_DECODER.decode(bytes(r[0])) for r in rows]
    return [o for o in out if isinstance(o, Observation)]


def prune_bodies(
    tx: WriteTx, identity: str, before: datetime, *, since: datetime | None = None
) -> int:
    """Drop the prefetched bodies and failing checks of observations read before
    ``before`` (a cache: an owner that finds one missing reads it itself); ``since``:
    only those read since then (what the previous pass left), so a pass reads the rows
    written since, not the whole stream.  How many observations were pruned."""
    low = "" if since is None else " AND at >= ?"
    rows = tx.execute(
        "SELECT pr_key, item FROM observations WHERE identity = ? AND kind = 'observation' "
        f"AND at < ?{low}",
        (identity, store_time(before), *(() if since is None else (store_time(since),))),
    ).fetchall()
    dropped = 0
    for key, blob in rows:
        item = _DECODER.decode(bytes(blob))
        if isinstance(item, Observation) and (item.bodies or item.failing_checks is not None):
            tx.execute(
                "UPDATE observations SET item = ? WHERE identity = ? AND kind = 'observation' "
                "AND pr_key = ? AND seq = ?",
                (
                    _ENCODER.encode(
                        msgspec.structs.replace(item, bodies=None, failing_checks=None)
                    ),
                    identity,
                    key,
                    item.seq,
                ),
            )
            dropped += 1
    return dropped


def prune_stream(tx: WriteTx, identity: str, before: datetime) -> int:
    """Delete the PR items last written before ``before``: the safety net reads every
    watched PR's full badge every few minutes, so an older row is an unwatched PR's;
    how many were deleted."""
    cur = tx.execute(
        "DELETE FROM observations WHERE identity = ? AND kind != 'round-done' AND at < ?",
        (identity, store_time(before)),
    )
    return cur.rowcount


# A PR whose latest stream item is the reader's NOT_FOUND: no observation or pr-readable
# of it came after.
_UNREAD = (
    "JOIN observations g ON g.kind = 'pr-gone' AND g.pr_key = w.pr_key "
    "WHERE w.tool = 'pr_review_monitor' AND NOT EXISTS (SELECT 1 FROM observations r "
    "WHERE r.identity = g.identity AND r.pr_key = g.pr_key "
    "AND r.kind IN ('observation', 'pr-readable') AND r.seq > g.seq)"
)


def unread_watches(tx: ReadTx, identity: str, host_id: str) -> tuple[Watch, ...]:
    """The watches of the PRs ``host_id`` owns that the reader cannot read: the stream's
    latest item of each is the reader's NOT_FOUND (``pr-gone``), with no observation or
    ``pr-readable`` after it.  Another token of the identity, this host's, may read them
    (a fine-grained token's repository selection, an SSO authorization)."""
    rows = tx.execute(
        "SELECT w.thread_id, w.host, w.owner, w.name, w.number FROM watches w "
        f"JOIN pr_owners o ON o.pr_key = w.pr_key AND o.host_id = ? {_UNREAD} "
        "AND g.identity = ?",
        (host_id, identity),
    ).fetchall()
    out = [Watch(r[0], PrRef(host=r[1], owner=r[2], name=r[3], number=r[4])) for r in rows]
    return tuple(sorted(out, key=lambda w: (w.pr, w.thread_id)))


def unread_prs(tx: ReadTx) -> tuple[tuple[PrRef, str, datetime], ...]:
    """Every watched PR the reader of its identity cannot read, with the host that owns
    (and so reads) it and since when (``status``, from any host)."""
    rows = tx.execute(
        "SELECT DISTINCT w.host, w.owner, w.name, w.number, o.host_id, g.at FROM watches w "
        f"JOIN pr_owners o ON o.pr_key = w.pr_key {_UNREAD}",
    ).fetchall()
    found = ((PrRef(r[1], r[2], r[3], r[0]), str(r[4]), parse_store_time(r[5])) for r in rows)
    return tuple(sorted(found))


class ReaderState(msgspec.Struct, frozen=True):
    """What a reader's poller learned that no observation holds (``reader_state``)."""

    missing: dict[PrRef, Missing]  # answered NOT_FOUND, with each PR's backoff
    alone: dict[PrRef, str]  # read alone: GitHub refuses their badge query (its code)


_PR = msgspec.json.Decoder(PrRef)
_MISSING = msgspec.json.Decoder(Missing)


def save_reader_state(tx: WriteTx, identity: str, state: ReaderState) -> None:
    """Replace ``identity``'s reader state with ``state``."""
    tx.execute("DELETE FROM reader_state WHERE identity = ?", (identity,))
    rows = [("missing", pr, _ENCODER.encode(m)) for pr, m in state.missing.items()]
    rows += [("alone", pr, _ENCODER.encode(code)) for pr, code in state.alone.items()]
    for kind, pr, blob in rows:
        tx.execute(
            "INSERT INTO reader_state (identity, kind, pr_key, pr, state) VALUES (?, ?, ?, ?, ?)",
            (identity, kind, pr.key_text, _ENCODER.encode(pr), blob),
        )


def read_reader_state(tx: ReadTx, identity: str) -> ReaderState:
    """``identity``'s reader state as the last reader saved it (empty: none saved)."""
    rows = tx.execute(
        "SELECT kind, pr, state FROM reader_state WHERE identity = ?", (identity,)
    ).fetchall()
    missing = {
        _PR.decode(bytes(r[1])): _MISSING.decode(bytes(r[2])) for r in rows if r[0] == "missing"
    }
    alone = {
        _PR.decode(bytes(r[1])): msgspec.json.decode(bytes(r[2]), type=str)
        for r in rows
        if r[0] == "alone"
    }
    return ReaderState(missing=missing, alone=alone)
