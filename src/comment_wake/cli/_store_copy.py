"""``comment-wake store copy --to postgresql://...``: move one host's SQLite store into a
fleet's PostgreSQL store.

The local daemon must be stopped: the command takes the state directory's lease (the one
the daemon holds) and keeps it for the whole copy.  Every row goes in one PostgreSQL
transaction, so a copy is all or nothing; it is refused, with nothing written, when the
target already has a live owner of one of the store's PRs (a ``pr_owners`` row with a
worker, whose host's lease is live, or a worker record bound to the PR, not archived),
or when a row's identity (a worker or orchestrator id, an outbox key, a mark...) is
already there with other values.  Rows already there with the same values are left as
they are, so a second run of the same copy writes nothing and says so.

The host id (``--host-id``, else ``[fleet] host_id``, else the state directory's) replaces
``LOCAL_HOST`` in ``pr_owners`` and the unset ``host_id`` of the workers and
orchestrators: a single host's store records them under no host.

What each table is, in the copy (``_COPIED``, ``_SKIPPED``):

- refused when there, unless identical: watches, marks, the application records (the
  registry's workers and orchestrators, decision records), comment outcomes, posts and
  their ids, the outbox and its attempts;
- the outbox's ``seq`` is an identity column on PostgreSQL: the entries are copied in
  their order with new seqs, and what points at a seq follows it (``routed_to``, the
  attempts, the outcomes and reactions of a delivery);
- kept when there (the target's row is as good, and may be fresher): the reactions (one
  identity's reaction to one comment), the permission cache, the budget rows, the content
  and gap buckets and the pending poll requests, all per GitHub identity rather than per host;
- ``pr_owners``: a PR the target never had is copied under the host id; one whose owner
  is not live there moves to this host at the next epoch (an epoch never goes back).

Skipped, because they are local by nature: ``daemon_state`` (its keys describe the daemon
that wrote them, its status line; the daemon on the PostgreSQL store writes its own),
``leases`` (a lease belongs to the process holding it; SQLite's are this machine's),
the observation stream (``observations``, ``observation_seq``, ``stream_cursors``,
``reader_state``: the fleet's reader writes them, and an owner's cursor starts from the
reader's), the inbox deliveries (``inbox_deliveries``: only a fleet host records them,
so a single host's store has none), and the
schema ledgers and the registry version (the target has its own; the copy moves its
registry version, so every daemon reloads).  A table not named here stops the copy: a
new table must be given a rule.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal

import msgspec

from comment_wake._paths import store_path
from comment_wake.cli._common import add_location_options, load_location, open_command_store
from comment_wake.cli._errors import CliError

__all__ = ["register"]

_Rule = Literal["refuse", "keep"]


@dataclass(frozen=True)
class _Table:
    name: str
    key: tuple[str, ...]
    rule: _Rule
    seq_column: str | None = None  # a column holding an outbox seq, remapped


# In the order they are written (a foreign key's table first).
_COPIED: tuple[_Table, ...] = (
    _Table("watches", ("thread_id", "pr_key", "tool"), "refuse"),
    _Table("marks", ("pr_key", "listener"), "refuse"),
    _Table("app_records", ("namespace", "key"), "refuse"),
    _Table("comment_outcomes", ("subject_id", "worker"), "refuse", seq_column="seq"),
    _Table("reactions", ("subject_id", "content"), "keep", seq_column="seq"),
    _Table("posts", ("key",), "refuse"),
    _Table("post_ids", ("node_id",), "refuse"),
    _Table("permission_cache", ("host", "repo", "login"), "keep"),
    _Table("budget", ("identity", "resource"), "keep"),
    _Table("content_buckets", ("identity",), "keep"),
    _Table("gap_buckets", ("identity",), "keep"),
    _Table("poll_requests", ("identity", "pr_key", "kind"), "keep"),
)
# Copied by their own code: the owners (stamped), the outbox and its attempts (new seqs).
_SPECIAL = ("pr_owners", "outbox", "outbox_attempts")
_SKIPPED = frozenset(
    {
        "daemon_state",
        "leases",
        "observations",
        "observation_seq",
        "stream_cursors",
        "reader_state",
        "inbox_deliveries",
        "schema_versions",
        "schema_migrations",
        "registry_version",
        "sqlite_sequence",
    }
)
_REPORTED = ("pr_owners", "outbox", "outbox_attempts", *(t.name for t in _COPIED))


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Add ``store copy`` to the command line."""
    store = subparsers.add_parser(
        "store",
        help="the state store: move a host's store into a fleet's PostgreSQL",
        description="Commands on the state store.",
    )
    commands = store.add_subparsers(dest="store_command", metavar="COMMAND", required=True)
    copy = commands.add_parser(
        "copy",
        help="copy this host's SQLite store into a PostgreSQL store",
        description="Copy this host's SQLite store (STATE_DIR/state.db) into the PostgreSQL "
        "store at --to, in one transaction, stamping this host's id on its PRs, workers and "
        "orchestrators.  The local daemon must be stopped.  Refused, with nothing written, "
        "when the target has a live owner of one of the PRs or a row with the same identity "
        "and other values; a second run of the same copy writes nothing.  The password "
        "comes from the environment (PGPASSWORD) or a libpq service file, as libpq reads "
        "them.  The local store is left as it was.",
    )
    add_location_options(copy)
    copy.add_argument(
        "--to", required=True, metavar="URL", help="the PostgreSQL store, postgresql://..."
    )
    copy.add_argument(
        "--host-id",
        default=None,
        help="this host's id in the fleet (default: [fleet] host_id, else the state directory's)",
    )
    copy.set_defaults(handler=_copy)


def _copy(args: argparse.Namespace) -> int:
    from comment_wake.fleet import host_identity
    from comment_wake.store import open_sync_store
    from review_monitor import StoreLockedError
    from review_monitor.store import Lease

    config, state_dir = load_location(args)
    _check_url(args.to)
    path = store_path(state_dir)
    if not path.exists():
        raise CliError(f"no state store at {path}: nothing to copy (check --state-dir)", 2)
    host_id = args.host_id or config.fleet.host_id or host_identity(state_dir).host_id
    try:
        lease = Lease.acquire(path)
    except StoreLockedError as exc:
        raise CliError(str(exc), 2) from None
    with lease:
        source = open_sync_store(path, create=False, check_spellings=False)
        try:
            rows = _read_source(source)
        finally:
            source.close()
        target = open_command_store(args.to, create=True, check_spellings=False)
        try:
            where = target.where
            counts = _write_target(target, rows, host_id)
        finally:
            target.close()
    if not any(counts.values()):
        print(f"nothing to copy: {where} already holds this store's rows (host id {host_id})")
        return 0
    print(f"copied {path} into {where}, in one transaction:")
    for name in _REPORTED:
        print(f"  {name}: {counts.get(name, 0)} row(s)")
    print(f"host id stamped: {host_id}")
    print("the local store is left as it was: point [store] url at the server and start the daemon")
    return 0


def _check_url(url: str) -> None:
    """A PostgreSQL URL without a password (never quoted back: it may hold one)."""
    from comment_wake.config._file import store_url_problem

    problem = store_url_problem(url, source="a command line (every process on the host sees it)")
    if problem is not None:
        raise CliError(f"--to: {problem}", 2)


@dataclass
class _Rows:
    columns: dict[str, tuple[str, ...]] = field(default_factory=dict)
    rows: dict[str, list[tuple[Any, ...]]] = field(default_factory=dict)


def _value(v: Any) -> Any:
    return bytes(v) if isinstance(v, memoryview | bytearray) else v


def _read_source(source: Any) -> _Rows:
    """Every row of every table to copy, read in one transaction."""
    out = _Rows()
    with source.read() as tx:
        names = [
            str(r[0])
            for r in tx.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
        ]
        known = {*_SKIPPED, *_SPECIAL, *(t.name for t in _COPIED)}
        unknown = sorted(set(names) - known)
        if unknown:
            raise CliError(
                f"the store has tables this copy does not know: {', '.join(unknown)}; "
                "nothing was written",
                1,
            )
        for name in names:
            if name in _SKIPPED:
                continue
            columns = tuple(str(r[1]) for r in tx.execute(f"PRAGMA table_info({name})"))
            out.columns[name] = columns
            order = " ORDER BY seq" if name == "outbox" else ""
            out.rows[name] = [
                tuple(_value(v) for v in r)
                for r in tx.execute(f"SELECT {', '.join(columns)} FROM {name}{order}")
            ]
    return out


def _stamp_record(namespace: str, blob: bytes, host_id: str) -> bytes:
    from comment_wake.registry import ORCHESTRATORS, WORKERS, OrchestratorRecord, WorkerRecord

    kind: type[WorkerRecord | OrchestratorRecord]
    if namespace == WORKERS:
        kind = WorkerRecord
    elif namespace == ORCHESTRATORS:
        kind = OrchestratorRecord
    else:
        return blob
    record = msgspec.json.decode(blob, type=kind)
    if record.host_id is not None:
        return blob
    return msgspec.json.encode(msgspec.structs.replace(record, host_id=host_id))


class _Refused:
    """What the target refuses: each a short phrase, the line lists them."""

    def __init__(self) -> None:
        self.items: list[str] = []

    def add(self, what: str) -> None:
        self.items.append(what)

    def check(self) -> None:
        if self.items:
            shown = "; ".join(self.items[:10])
            more = f" (and {len(self.items) - 10} more)" if len(self.items) > 10 else ""
            raise CliError(f"refused, nothing was written: {shown}{more}", 2)


def _write_target(target: Any, src: _Rows, host_id: str) -> dict[str, int]:
    from comment_wake.registry import WORKERS, WorkerRecord
    from review_monitor.store import LOCAL_HOST, bump_registry, database_now

    cols = src.columns
    counts: dict[str, int] = {}
    refused = _Refused()
    records = [
        (r[cols["app_records"].index("namespace")], r) for r in src.rows.get("app_records", [])
    ]
    ours = {
        str(r[cols["app_records"].index("key")]): msgspec.json.decode(
            r[cols["app_records"].index("value")], type=WorkerRecord
        )
        for ns, r in records
        if ns == WORKERS
    }
    owners = {str(r[0]): r for r in _named(src, "pr_owners", ("pr_key", "host_id", "worker"))}
    prs = {*owners, *(w.pr.key_text for w in ours.values())}
    prs |= {str(r[0]) for r in _named(src, "marks", ("pr_key",))}
    with target.write(at=datetime.now(UTC)) as tx:
        # The registry's checks and each PR's owner are check-then-write: their locks first.
        tx.lock("registry")
        for key in sorted(prs):
            tx.lock(f"pr:{key}")  # review_monitor.store.pr_lock's name for the PR
        now = database_now(tx)
        _refuse_live_owners(tx, src, owners, prs, ours, host_id, now, refused)
        counts["pr_owners"] = _copy_owners(tx, src, host_id, LOCAL_HOST)
        seqs = _copy_outbox(tx, src, refused, counts)
        for table in _COPIED:
            counts[table.name] = _copy_table(tx, src, table, seqs, host_id, refused)
        refused.check()
        if any(counts.values()):
            bump_registry(tx)
    return counts


def _named(src: _Rows, table: str, names: Sequence[str]) -> list[tuple[Any, ...]]:
    columns = src.columns.get(table, ())
    at = [columns.index(n) for n in names]
    return [tuple(r[i] for i in at) for r in src.rows.get(table, [])]


def _refuse_live_owners(
    tx: Any,
    src: _Rows,
    owners: dict[str, tuple[Any, ...]],
    prs: set[str],
    ours: dict[str, Any],
    host_id: str,
    now: datetime,
    refused: _Refused,
) -> None:
    from comment_wake.registry import WORKERS, WorkerRecord
    from review_monitor.store import read_lease

    for key in sorted(prs):
        row = tx.execute(
            "SELECT host_id, worker FROM pr_owners WHERE pr_key = ?", (key,)
        ).fetchone()
        if row is None or not row[1]:
            continue
        mine = owners.get(key)
        stamped = None if mine is None else (_stamp_host(mine[1], host_id), mine[2])
        if stamped == (row[0], row[1]):
            continue  # this copy's own owner: a second run
        lease = read_lease(tx, f"host:{row[0]}")
        if lease is not None and lease.expires_at > now:
            refused.add(f"{key} has a live owner (worker {row[1]} on host {row[0]})")
    for worker, blob in tx.execute(
        "SELECT key, value FROM app_records WHERE namespace = ?", (WORKERS,)
    ).fetchall():
        if str(worker) in ours:
            continue  # the same id: refused below unless identical
        record = msgspec.json.decode(bytes(blob), type=WorkerRecord)
        if not record.archived and record.pr.key_text in prs:
            refused.add(f"{record.pr} is bound to worker {worker} in the target")


def _stamp_host(value: Any, host_id: str) -> Any:
    from review_monitor.store import LOCAL_HOST

    return host_id if value == LOCAL_HOST else value


def _copy_owners(tx: Any, src: _Rows, host_id: str, local: str) -> int:
    written = 0
    for key, host, worker, epoch, updated_at in _named(
        src, "pr_owners", ("pr_key", "host_id", "worker", "epoch", "updated_at")
    ):
        host = host_id if host == local else host
        row = tx.execute(
            "SELECT host_id, worker, epoch FROM pr_owners WHERE pr_key = ?", (key,)
        ).fetchone()
        if row is not None and (row[0], row[1]) == (host, worker):
            continue
        # The owner there is not live (checked first): the PR moves to this host at the
        # next epoch, so a host that owned it there can never pass for its owner again.
        epoch = epoch if row is None else max(int(epoch), int(row[2]) + 1)
        tx.execute(
            "INSERT INTO pr_owners (pr_key, host_id, worker, epoch, updated_at) "
            "VALUES (?, ?, ?, ?, ?) ON CONFLICT (pr_key) DO UPDATE SET "
            "host_id = excluded.host_id, worker = excluded.worker, epoch = excluded.epoch, "
            "updated_at = excluded.updated_at",
            (key, host, worker, epoch, updated_at),
        )
        written += 1
    return written


def _copy_outbox(tx: Any, src: _Rows, refused: _Refused, counts: dict[str, int]) -> dict[int, int]:
    """Copy the outbox with new seqs; the map from the source's seqs to the target's."""
    columns = src.columns.get("outbox", ())
    rest = [c for c in columns if c not in ("seq", "routed_to")]
    at = [columns.index(c) for c in rest]
    seq_at, routed_at = columns.index("seq"), columns.index("routed_to")
    seqs: dict[int, int] = {}
    routed: list[tuple[int, int]] = []  # (source seq, source routed_to) to check or set
    new: set[int] = set()
    for row in src.rows.get("outbox", []):
        values = tuple(row[i] for i in at)
        key = row[columns.index("key")]
        there = tx.execute(
            f"SELECT seq, {', '.join(rest)} FROM outbox WHERE key = ?", (key,)
        ).fetchone()
        if there is None:
            got = tx.execute(
                f"INSERT INTO outbox ({', '.join(rest)}) VALUES "
                f"({', '.join('?' * len(rest))}) RETURNING seq",
                values,
            ).fetchone()
            seqs[int(row[seq_at])] = int(got[0])
            new.add(int(row[seq_at]))
        elif tuple(_value(v) for v in there[1:]) == values:
            seqs[int(row[seq_at])] = int(there[0])
        else:
            refused.add(f"outbox key {key} is in the target with other values")
            continue
        if row[routed_at] is not None:
            routed.append((int(row[seq_at]), int(row[routed_at])))
    for seq, to in routed:
        mapped = seqs.get(to)
        if seq in new:
            tx.execute("UPDATE outbox SET routed_to = ? WHERE seq = ?", (mapped, seqs[seq]))
            continue
        there = tx.execute("SELECT routed_to FROM outbox WHERE seq = ?", (seqs[seq],)).fetchone()
        if there[0] != mapped:
            refused.add(f"outbox entry {seq} is routed elsewhere in the target")
    counts["outbox"] = len(new)
    counts["outbox_attempts"] = _copy_rows(
        tx,
        "outbox_attempts",
        src.columns.get("outbox_attempts", ()),
        [_remap(r, 0, seqs) for r in _named(src, "outbox_attempts", _ATTEMPT_COLUMNS)],
        ("seq", "n"),
        "refuse",
        refused,
    )
    return seqs


_ATTEMPT_COLUMNS = ("seq", "n", "at", "outcome", "detail")


def _remap(row: tuple[Any, ...], at: int, seqs: dict[int, int]) -> tuple[Any, ...]:
    # A seq the source no longer has (a pruned entry) stays as it was.
    return (*row[:at], seqs.get(int(row[at]), row[at]), *row[at + 1 :])


def _copy_table(
    tx: Any, src: _Rows, table: _Table, seqs: dict[int, int], host_id: str, refused: _Refused
) -> int:
    columns = src.columns.get(table.name)
    if columns is None:
        return 0
    rows = src.rows[table.name]
    if table.seq_column is not None:
        at = columns.index(table.seq_column)
        rows = [_remap(r, at, seqs) for r in rows]
    if table.name == "app_records":
        ns, value = columns.index("namespace"), columns.index("value")
        rows = [
            (*r[:value], _stamp_record(r[ns], r[value], host_id), *r[value + 1 :]) for r in rows
        ]
    return _copy_rows(tx, table.name, columns, rows, table.key, table.rule, refused)


def _copy_rows(
    tx: Any,
    name: str,
    columns: Sequence[str],
    rows: Sequence[tuple[Any, ...]],
    key: tuple[str, ...],
    rule: _Rule,
    refused: _Refused,
) -> int:
    """Insert ``rows``; one already there (by ``key``) is skipped when identical (or
    under ``keep``), else refused."""
    if rule == "keep":
        written = 0
        for row in rows:
            cur = tx.execute(
                f"INSERT INTO {name} ({', '.join(columns)}) VALUES "
                f"({', '.join('?' * len(columns))}) ON CONFLICT ({', '.join(key)}) DO NOTHING",
                row,
            )
            written += cur.rowcount
        return written
    written = 0
    at = [columns.index(k) for k in key]
    where = " AND ".join(f"{k} = ?" for k in key)
    for row in rows:
        ident = tuple(row[i] for i in at)
        there = tx.execute(
            f"SELECT {', '.join(columns)} FROM {name} WHERE {where}", ident
        ).fetchone()
        if there is None:
            tx.execute(
                f"INSERT INTO {name} ({', '.join(columns)}) VALUES "
                f"({', '.join('?' * len(columns))})",
                row,
            )
            written += 1
        elif tuple(_value(v) for v in there) != row:
            shown = "/".join(str(v) for v in ident)
            refused.add(f"{name} {shown} is in the target with other values")
    return written
