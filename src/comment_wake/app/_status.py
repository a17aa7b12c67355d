"""``comment-wake status``: what the store says about every watched PR, read in short
transactions (safe while the daemon runs)."""

from __future__ import annotations

import os
from collections import defaultdict
from datetime import datetime
from pathlib import Path

import msgspec

from comment_wake._paths import inbox_root
from comment_wake.delivery import backlog
from comment_wake.fleet import host_lease_name
from comment_wake.registry import InboxSpec, PublisherSpec, Registry
from comment_wake.service import (
    LISTENER_NAME,
    decode_record,
    describe_gap,
    latest_by_comment,
    namespace_of,
    rate_evidence,
    read_gaps,
)
from comment_wake.store import (
    OutcomeSummary,
    outcome_summary,
    outcomes,
    posts,
    reactions,
    read_records,
)
from comment_wake.wake import FloodGap, MarkError, WakeConfig, decode_mark
from review_monitor import PrRef, format_duration
from review_monitor.store import SyncStore, read_budgets, read_lease, read_leases, unread_prs
from untrusted_fence import one_line

from ._state import DaemonState, FaultLine, daemon_state_key, pr_key

__all__ = [
    "BudgetLine",
    "CommentLine",
    "HostLeaseLine",
    "InboxLine",
    "LeaseLine",
    "ParkedLine",
    "PrStatusLine",
    "QueueLine",
    "StatusReport",
    "UnreadLine",
    "read_host_lease",
    "read_status",
    "render_status",
]

_FINAL = ("wake", "skip", "drop")
_COMMENTS_SHOWN = 10  # per PR in the text; --json has them all
_REASON_LIMIT = 300  # characters of a parked notice's reason


class QueueLine(msgspec.Struct, frozen=True):
    """One worker's outbox."""

    worker: str
    pending: int
    parked: int
    oldest_pending_at: datetime | None


class InboxLine(msgspec.Struct, frozen=True):
    """A worker (or orchestrator) bound to an inbox: notices delivered there that its
    hook has not taken yet (``comment-wake inbox take``)."""

    worker: str
    root: str
    untaken: int
    oldest_at: datetime | None


class ParkedLine(msgspec.Struct, frozen=True, kw_only=True):
    """A parked notice: refused by its publisher, kept until ``comment-wake unpark``."""

    worker: str
    notice_key: str
    kind: str
    pr: str
    parked_at: datetime | None
    reason: str  # the refusal, as the delivery recorded it


class CommentLine(msgspec.Struct, frozen=True, kw_only=True):
    """A comment delivered on a watched PR and what its worker says became of it."""

    url: str
    author: str | None
    worker: str
    delivered_at: datetime
    outcome: str  # open, done, declined, handed-off, failed
    note: str


class PrStatusLine(msgspec.Struct, frozen=True, kw_only=True):
    """One watched PR in ``status``: its workers, floor, wakes left, held comments and
    retries."""

    pr: str
    host: str
    workers: tuple[str, ...]
    floor: datetime | None
    handled: int  # comments decided for good, as recorded
    woken: int  # of those, how many woke the worker
    wakes_left_hour: int
    wakes_left_day: int
    next_wake_at: datetime | None
    held: int
    held_until: datetime | None
    pending_retries: int
    next_retry_at: datetime | None
    last_poll: datetime | None
    state: str | None = None  # as last read: open, draft, merged, closed, gone
    # The posts the worker tools asked for on it (issue 27): made, waiting, failed, and
    # the last failure's reason.
    posts_made: int = 0
    posts_waiting: int = 0
    posts_failed: int = 0
    last_post_failure: str | None = None
    # The trusted bots' own windows (issue 27); None when no bot is trusted.
    bot_wakes_left_hour: int | None = None
    bot_wakes_left_day: int | None = None
    # A PR GitHub answered NOT_FOUND: when the running daemon reads it again (1, 2, 4, 8
    # minutes after each miss, up to missing_pr_interval); None otherwise.
    next_try_at: datetime | None = None
    last_error: FaultLine | None = None  # the last fault or read failure on this PR
    # What became of the comments delivered on it (the workers' ``comment_addressed``).
    outcomes: OutcomeSummary = OutcomeSummary()
    comments: tuple[CommentLine, ...] = ()
    # Spans a flood pushed out of the listing that no read covered (until pruned).
    gaps: tuple[FloodGap, ...] = ()


class HostLeaseLine(msgspec.Struct, frozen=True, kw_only=True):
    """Fleet mode: this host and its lease as the store holds it (``holder`` and the rest
    None when no daemon of this host ever took it)."""

    host_id: str | None  # None: not configured, and the state directory has none yet
    lease: str | None = None  # host:<host_id>
    holder: str | None = None  # the holding daemon start's instance id
    term: int | None = None
    expires_at: datetime | None = None
    live: bool = False  # not expired at the report's time


class LeaseLine(msgspec.Struct, frozen=True, kw_only=True):
    """Fleet mode: one role's lease (a host's, an identity's reader) as the store holds it."""

    name: str  # host:<host_id>, reader:<github_host>:<login>
    holder: str
    term: int
    expires_at: datetime
    live: bool


class BudgetLine(msgspec.Struct, frozen=True, kw_only=True):
    """Fleet mode: what the fleet last heard of an identity's rate limit."""

    identity: str  # github_host:login
    resource: str  # graphql, core
    remaining: int
    limit: int | None
    reset_at: datetime | None


class UnreadLine(msgspec.Struct, frozen=True, kw_only=True):
    """Fleet mode: a PR the reader's token cannot read (GitHub answered it NOT_FOUND), so
    the host that owns it reads it with its own token."""

    pr: str
    host_id: str  # the owner, which reads it
    since: datetime  # the reader's NOT_FOUND


class StatusReport(msgspec.Struct, frozen=True, kw_only=True):
    """Everything ``comment-wake status --json`` prints (docs/embedding.md lists the
    fields)."""

    store: str
    at: datetime
    daemon_running: bool
    daemon: DaemonState | None
    prs: tuple[PrStatusLine, ...]
    queues: tuple[QueueLine, ...]
    reactions_pending: int
    inboxes: tuple[InboxLine, ...] = ()
    parked: tuple[ParkedLine, ...] = ()
    engine: str = "sqlite"  # or "postgresql" (fleet mode)
    fleet: HostLeaseLine | None = None
    # Fleet mode, the whole fleet's view from any host: every role's lease and budget.
    leases: tuple[LeaseLine, ...] = ()
    budget: tuple[BudgetLine, ...] = ()
    unread: tuple[UnreadLine, ...] = ()  # PRs their owners read, not the reader


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def read_daemon_state(store: SyncStore, host_id: str | None = None) -> DaemonState | None:
    """The running (or last) daemon's own figures as it wrote them (fleet mode: the
    daemon of ``host_id``); None when no daemon ever ran on ``store`` or the entry cannot
    be read (another build's)."""
    raw = store.get_state(daemon_state_key(host_id))
    if raw is None:
        return None
    try:
        return msgspec.json.decode(raw, type=DaemonState)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None


def read_host_lease(store: SyncStore, host_id: str | None, now: datetime) -> HostLeaseLine:
    """``host_id``'s lease as ``store`` holds it at ``now``."""
    if host_id is None:
        return HostLeaseLine(host_id=None)
    name = host_lease_name(host_id)
    with store.read() as tx:
        row = read_lease(tx, name)
    if row is None:
        return HostLeaseLine(host_id=host_id, lease=name)
    return HostLeaseLine(
        host_id=host_id,
        lease=name,
        holder=row.holder,
        term=row.term,
        expires_at=row.expires_at,
        live=row.expires_at > now,
    )


def _fleet_view(
    store: SyncStore, now: datetime
) -> tuple[tuple[LeaseLine, ...], tuple[BudgetLine, ...], tuple[UnreadLine, ...]]:
    """Every role's lease, every identity's budget and the PRs their owners read, from
    one read."""
    with store.read() as tx:
        rows, budgets, unread = read_leases(tx), read_budgets(tx), unread_prs(tx)
    leases = tuple(
        LeaseLine(
            name=r.name,
            holder=r.holder,
            term=r.term,
            expires_at=r.expires_at,
            live=r.expires_at > now,
        )
        for r in rows
    )
    budget = tuple(
        BudgetLine(
            identity=identity,
            resource=limit.resource,
            remaining=limit.remaining if limit.remaining is not None else 0,
            limit=limit.limit,
            reset_at=limit.reset_at,
        )
        for identity, by_resource in budgets.items()
        for limit in by_resource.values()
    )
    owned = tuple(UnreadLine(pr=str(pr), host_id=host, since=at) for pr, host, at in unread)
    return leases, budget, owned


def read_status(
    store: SyncStore,
    wake: WakeConfig,
    now: datetime,
    *,
    inbox: Path | None = None,
    host_id: str | None = None,
) -> StatusReport:
    """Everything ``status`` shows, from ``store`` at ``now``; ``inbox`` is the default
    inbox root (the store's directory's ``inbox``; give it for a PostgreSQL store).
    ``host_id``: this host's, in fleet mode (a PostgreSQL store), whose lease is shown."""
    daemon = read_daemon_state(store, host_id if store.dialect == "postgresql" else None)
    running = daemon is not None and daemon.stopped_at is None and _alive(daemon.pid)
    by_pr: dict[PrRef, list[str]] = defaultdict(list)
    for w in store.watches():
        by_pr[w.pr].append(w.thread_id)
    prs = tuple(
        _pr_line(store, pr, tuple(ws), wake, now, daemon, running=running)
        for pr, ws in by_pr.items()
    )
    pending: dict[str, int] = defaultdict(int)
    parked: dict[str, int] = defaultdict(int)
    oldest: dict[str, datetime] = {}
    parked_lines: list[ParkedLine] = []
    for e in store.entries(statuses=("pending", "parked")):
        if e.status == "pending":
            pending[e.worker] += 1
            oldest.setdefault(e.worker, e.created_at)
        else:
            parked[e.worker] += 1
            attempts = store.attempts(e.seq)
            parked_lines.append(
                ParkedLine(
                    worker=e.worker,
                    notice_key=e.key,
                    kind=e.notice.kind,
                    pr=str(e.pr),
                    parked_at=attempts[-1].at if attempts else None,
                    reason=one_line(e.last_detail or "no reason recorded", _REASON_LIMIT),
                )
            )
    queue_lines = tuple(
        QueueLine(w, pending.get(w, 0), parked.get(w, 0), oldest.get(w))
        for w in sorted({*pending, *parked})
    )
    fleet = read_host_lease(store, host_id, now) if store.dialect == "postgresql" else None
    leases, budget, unread = _fleet_view(store, now) if fleet is not None else ((), (), ())
    return StatusReport(
        store=store.where,
        engine=store.dialect,
        fleet=fleet,
        leases=leases,
        budget=budget,
        unread=unread,
        at=now,
        daemon_running=running,
        daemon=daemon,
        prs=prs,
        queues=queue_lines,
        reactions_pending=len(reactions(store, statuses=("pending",))),
        inboxes=_inboxes(store, inbox or inbox_root(store.path.parent)),
        parked=tuple(parked_lines),
    )


def _inboxes(store: SyncStore, default_root: Path) -> tuple[InboxLine, ...]:
    """Every live worker and orchestrator bound to an inbox, with its untaken backlog."""
    registry = Registry(store, inbox_root=default_root)
    owners: list[tuple[str, PublisherSpec]] = [
        (w.worker, w.publisher) for w in registry.workers() if not w.archived
    ]
    owners += [(o.id, o.publisher) for o in registry.orchestrators()]
    lines = []
    for owner, spec in sorted(owners, key=lambda o: o[0]):
        if not isinstance(spec, InboxSpec):
            continue
        root = Path(spec.root) if spec.root else default_root
        try:
            count, oldest = backlog(root, owner)
        except (OSError, ValueError):
            continue
        lines.append(InboxLine(owner, str(root), count, oldest))
    return tuple(lines)


def _pr_line(
    store: SyncStore,
    pr: PrRef,
    workers: tuple[str, ...],
    wake: WakeConfig,
    now: datetime,
    daemon: DaemonState | None,
    *,
    running: bool,
) -> PrStatusLine:
    stored = store.load_mark(pr, LISTENER_NAME)
    mark = None
    if stored is not None:
        try:
            mark = decode_mark(stored.blob)
        except MarkError:
            mark = None
    records = [r for _, b in read_records(store, namespace_of(pr)) if (r := decode_record(b))]
    latest = latest_by_comment(records)
    final = [r for r in latest.values() if r.outcome in _FINAL]
    rate = rate_evidence(mark, wake, now) if mark is not None else None
    bots = rate_evidence(mark, wake, now, bots=True) if mark is not None else None
    trusting = bool(wake.trusted_bots)
    key = pr_key(pr)
    polled = daemon.polled.get(key) if daemon is not None else None
    delivered = outcomes(store, pr=pr)
    asked = posts(store, pr=pr)
    failed = [p for p in asked if p.status == "failed"]
    return PrStatusLine(
        pr=str(pr),
        host=pr.host,
        workers=workers,
        floor=mark.floor if mark else None,
        handled=len(final),
        woken=sum(1 for r in final if r.outcome == "wake"),
        wakes_left_hour=max(0, wake.wakes_per_hour - (rate.wakes_in_hour if rate else 0)),
        wakes_left_day=max(0, wake.wakes_per_day - (rate.wakes_in_day if rate else 0)),
        posts_made=sum(1 for p in asked if p.status == "posted"),
        posts_waiting=sum(1 for p in asked if p.status in ("queued", "sending")),
        posts_failed=len(failed),
        last_post_failure=failed[-1].failure if failed else None,
        bot_wakes_left_hour=(
            max(0, wake.bot_wakes_per_hour - (bots.wakes_in_hour if bots else 0))
            if trusting
            else None
        ),
        bot_wakes_left_day=(
            max(0, wake.bot_wakes_per_day - (bots.wakes_in_day if bots else 0))
            if trusting
            else None
        ),
        next_wake_at=rate.next_wake_at if rate else None,
        held=len(mark.held) if mark else 0,
        held_until=mark.held_until if mark else None,
        pending_retries=len(mark.pending) if mark else 0,
        next_retry_at=min((p.retry_at for p in mark.pending), default=None) if mark else None,
        last_poll=polled,
        state=daemon.pr_states.get(key) if daemon is not None else None,
        # A stopped daemon tries nothing: the next one reads every watched PR at its start.
        next_try_at=daemon.pr_next_try.get(key) if daemon is not None and running else None,
        last_error=daemon.pr_errors.get(key) if daemon is not None else None,
        outcomes=outcome_summary(delivered),
        comments=tuple(
            CommentLine(
                url=o.url,
                author=o.author,
                worker=o.worker,
                delivered_at=o.delivered_at,
                outcome=o.outcome,
                note=o.note,
            )
            for o in delivered
        ),
        gaps=read_gaps(store, pr),
    )


def _t(t: datetime | None, now: datetime) -> str:
    if t is None:
        return "-"
    delta = now - t
    stamp = t.strftime("%Y-%m-%d %H:%M:%SZ")
    if delta.total_seconds() >= 0:
        return f"{stamp} ({format_duration(delta)} ago)" if delta.total_seconds() >= 1 else stamp
    return f"{stamp} (in {format_duration(-delta)})"


_STATES = {
    "merged": "merged: no comment wakes its worker any more",
    "closed": "closed: no comment wakes its worker unless it is reopened",
    "gone": "gone: GitHub says it does not exist or the token lost access to it",
    "draft": "draft",
}


def _error(f: FaultLine, now: datetime) -> str:
    times = f" ({f.count} so far)" if f.count > 1 else ""
    return f"{_t(f.at, now)}: {f.kind}: {f.detail}{times}"


def _daemon_lines(report: StatusReport) -> list[str]:
    now, d = report.at, report.daemon
    if d is None:
        return ["daemon: never ran on this store"]
    state = "running" if report.daemon_running else "not running"
    extra = ", dry run" if d.dry_run and report.daemon_running else ""
    lines = [f"daemon: {state} (pid {d.pid}{extra}), started {_t(d.started_at, now)}"]
    if d.stop_reason and not report.daemon_running:
        lines.append(f"stopped {_t(d.stopped_at, now)}: {d.stop_reason}")
    if d.last_poll is not None:
        p = d.last_poll
        cost = "?" if p.cost is None else str(p.cost)
        prs = "?" if p.prs is None else str(p.prs)
        lines.append(f"last poll: {_t(p.at, now)}, {prs} PR(s), {cost} point(s)")
    else:
        lines.append("last poll: none yet")
    if d.budget_remaining is not None:
        limit = f" of {d.budget_limit}" if d.budget_limit is not None else ""
        resets = f", resets {_t(d.budget_reset_at, now)}" if d.budget_reset_at else ""
        lines.append(f"API budget: {d.budget_remaining}{limit} points left{resets}")
    else:
        lines.append("API budget: unknown")
    lines.append(f"since start: {d.wakes} wake(s), {d.decisions} decision(s)")
    if not d.faults:
        lines.append("errors since start: none")
    for f in d.faults:
        lines.append(f"last error ({f.kind}): {_error(f, now)}")
    return lines


def _pr_lines(pr: PrStatusLine, now: datetime) -> list[str]:
    state = f"; {_STATES.get(pr.state, pr.state)}" if pr.state and pr.state != "open" else ""
    lines = [f"{pr.pr} ({pr.host}): worker(s) {', '.join(pr.workers)}{state}"]
    lines.append(f"  floor {_t(pr.floor, now)}; last poll {_t(pr.last_poll, now)}")
    if pr.next_try_at is not None:
        lines.append(
            f"  next try {_t(pr.next_try_at, now)} (GitHub answered not found; "
            f"`comment-wake poll {pr.pr}` asks for the next round)"
        )
    if pr.last_error is not None:
        lines.append(f"  last error {_error(pr.last_error, now)}")
    lines.append(f"  handled {pr.handled} comment(s), {pr.woken} woke the worker")
    nxt = f", next wake not before {_t(pr.next_wake_at, now)}" if pr.next_wake_at else ""
    lines.append(f"  wakes left: {pr.wakes_left_hour} this hour, {pr.wakes_left_day} today{nxt}")
    if pr.posts_made or pr.posts_waiting or pr.posts_failed:
        last = f" (last: {pr.last_post_failure})" if pr.last_post_failure else ""
        lines.append(
            f"  posts by the worker tools: {pr.posts_made} made, {pr.posts_waiting} waiting, "
            f"{pr.posts_failed} failed{last}"
        )
    if pr.bot_wakes_left_hour is not None:
        lines.append(
            f"  trusted bots' wakes left: {pr.bot_wakes_left_hour} this hour, "
            f"{pr.bot_wakes_left_day} today"
        )
    held = f" until {_t(pr.held_until, now)}" if pr.held_until else ""
    retry = f", next at {_t(pr.next_retry_at, now)}" if pr.next_retry_at else ""
    lines.append(f"  held {pr.held}{held}; permission retries {pr.pending_retries}{retry}")
    o = pr.outcomes
    if o.delivered:
        lines.append(
            f"  delivered {o.delivered}: {o.done} done, {o.declined} declined, "
            f"{o.handed_off} handed off, {o.failed} failed, {o.open} open"
        )
    if pr.gaps:
        lines.append(f"  flood gaps {len(pr.gaps)}; the last: {describe_gap(pr.gaps[-1])}")
    shown = pr.comments[-_COMMENTS_SHOWN:]
    if len(pr.comments) > len(shown):
        lines.append(f"    ({len(pr.comments) - len(shown)} earlier: status --json)")
    for c in shown:
        note = f": {c.note}" if c.note else ""
        lines.append(f"    {c.outcome} {c.url} (@{c.author or 'ghost'}, {c.worker}){note}")
    return lines


def _fleet_lines(report: StatusReport) -> list[str]:
    f = report.fleet
    if f is None:
        return []
    if f.host_id is None:
        return ["host: no host_id yet (the daemon's first start makes one)"]
    if f.holder is None:
        return [f"host: {f.host_id}; its lease was never taken"]
    state = "held" if f.live else "lapsed"
    lines = [
        f"host: {f.host_id}; lease {state} by instance {f.holder}, term {f.term}, "
        f"expires {_t(f.expires_at, report.at)}"
    ]
    for lease in report.leases:
        if lease.name.startswith("reader:"):
            live = "held" if lease.live else "lapsed"
            lines.append(f"reader {lease.name[7:]}: {live} by {lease.holder}, term {lease.term}")
    hosts = [x for x in report.leases if x.name.startswith("host:")]
    if hosts:
        alive = sum(1 for x in hosts if x.live)
        lines.append(f"fleet: {alive} of {len(hosts)} hosts live")
    for b in report.budget:
        of = f" of {b.limit}" if b.limit is not None else ""
        lines.append(
            f"budget {b.identity} {b.resource}: {b.remaining}{of} left, "
            f"resets {_t(b.reset_at, report.at) if b.reset_at else 'unknown'}"
        )
    for u in report.unread:
        lines.append(
            f"read by its owner {u.host_id}: {u.pr} (the reader's token cannot read it: "
            f"NOT_FOUND {_t(u.since, report.at)}; check that token's repository access or SSO)"
        )
    return lines


def render_status(report: StatusReport) -> str:
    """The report for a person at a terminal."""
    now = report.at
    lines = [
        f"store: {report.store} ({report.engine})",
        *_fleet_lines(report),
        *_daemon_lines(report),
        "",
    ]
    if not report.prs:
        lines.append("no pull request is watched (bind a worker: comment-wake bind --help)")
    for pr in report.prs:
        lines += _pr_lines(pr, now)
    lines.append("")
    if not report.queues:
        lines.append("outbox: empty (every notice went to its publisher)")
    for q in report.queues:
        oldest = f", oldest {_t(q.oldest_pending_at, now)}" if q.oldest_pending_at else ""
        lines.append(f"outbox {q.worker}: {q.pending} pending, {q.parked} parked{oldest}")
    for p in report.parked:
        lines.append(
            f"  parked {p.notice_key[:12]} ({p.kind}, {p.pr}) {_t(p.parked_at, now)}: {p.reason}"
        )
    for i in report.inboxes:
        if i.untaken:
            oldest = f", oldest {_t(i.oldest_at, now)}" if i.oldest_at else ""
            lines.append(
                f"inbox {i.worker}: {i.untaken} notice(s) not taken yet{oldest} "
                f"(the worker's hook runs `comment-wake inbox take {i.worker}`)"
            )
        else:
            lines.append(f"inbox {i.worker}: nothing waiting")
    lines.append(f"reactions owed: {report.reactions_pending}")
    return "\n".join(lines) + "\n"
