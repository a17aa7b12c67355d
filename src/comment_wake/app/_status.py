"""``comment-wake status``: what the store says about every watched PR, read in short
transactions (safe while the daemon runs)."""

from __future__ import annotations

import os
from collections import defaultdict
from datetime import datetime

import msgspec

from comment_wake.service import (
    LISTENER_NAME,
    decode_record,
    latest_by_comment,
    namespace_of,
    rate_evidence,
)
from comment_wake.store import reactions, read_records
from comment_wake.wake import MarkError, WakeConfig, decode_mark
from review_monitor import PrRef, fold, format_duration
from review_monitor.store import SyncStore

from ._state import DAEMON_STATE_KEY, DaemonState

__all__ = ["PrStatusLine", "QueueLine", "StatusReport", "read_status", "render_status"]

_FINAL = ("wake", "skip", "drop")


class QueueLine(msgspec.Struct, frozen=True):
    """One worker's outbox."""

    worker: str
    pending: int
    parked: int
    oldest_pending_at: datetime | None


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


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def read_status(store: SyncStore, wake: WakeConfig, now: datetime) -> StatusReport:
    """Everything ``status`` shows, from ``store`` at ``now``."""
    raw = store.get_state(DAEMON_STATE_KEY)
    daemon: DaemonState | None = None
    if raw is not None:
        try:
            daemon = msgspec.json.decode(raw, type=DaemonState)
        except (msgspec.DecodeError, msgspec.ValidationError):
            daemon = None
    running = daemon is not None and daemon.stopped_at is None and _alive(daemon.pid)
    by_pr: dict[PrRef, list[str]] = defaultdict(list)
    for w in store.watches():
        by_pr[w.pr].append(w.thread_id)
    prs = tuple(_pr_line(store, pr, tuple(ws), wake, now, daemon) for pr, ws in by_pr.items())
    pending: dict[str, int] = defaultdict(int)
    parked: dict[str, int] = defaultdict(int)
    oldest: dict[str, datetime] = {}
    for e in store.entries(statuses=("pending", "parked")):
        if e.status == "pending":
            pending[e.worker] += 1
            oldest.setdefault(e.worker, e.created_at)
        else:
            parked[e.worker] += 1
    queue_lines = tuple(
        QueueLine(w, pending.get(w, 0), parked.get(w, 0), oldest.get(w))
        for w in sorted({*pending, *parked})
    )
    return StatusReport(
        store=str(store.path),
        at=now,
        daemon_running=running,
        daemon=daemon,
        prs=prs,
        queues=queue_lines,
        reactions_pending=len(reactions(store, statuses=("pending",))),
    )


def _pr_line(
    store: SyncStore,
    pr: PrRef,
    workers: tuple[str, ...],
    wake: WakeConfig,
    now: datetime,
    daemon: DaemonState | None,
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
    # Keyed ``host/owner/name#N`` as the poll spelled it: compared with a case fold.
    key = fold(f"{pr.host}/{pr}")
    polled = None
    if daemon is not None:
        polled = next((t for k, t in daemon.polled.items() if fold(k) == key), None)
    return PrStatusLine(
        pr=str(pr),
        host=pr.host,
        workers=workers,
        floor=mark.floor if mark else None,
        handled=len(final),
        woken=sum(1 for r in final if r.outcome == "wake"),
        wakes_left_hour=max(0, wake.wakes_per_hour - (rate.wakes_in_hour if rate else 0)),
        wakes_left_day=max(0, wake.wakes_per_day - (rate.wakes_in_day if rate else 0)),
        next_wake_at=rate.next_wake_at if rate else None,
        held=len(mark.held) if mark else 0,
        held_until=mark.held_until if mark else None,
        pending_retries=len(mark.pending) if mark else 0,
        next_retry_at=min((p.next_retry for p in mark.pending), default=None) if mark else None,
        last_poll=polled,
    )


def _t(t: datetime | None, now: datetime) -> str:
    if t is None:
        return "-"
    delta = now - t
    stamp = t.strftime("%Y-%m-%d %H:%M:%SZ")
    if delta.total_seconds() >= 0:
        return f"{stamp} ({format_duration(delta)} ago)" if delta.total_seconds() >= 1 else stamp
    return f"{stamp} (in {format_duration(-delta)})"


def render_status(report: StatusReport) -> str:
    """The report for a person at a terminal."""
    now = report.at
    d = report.daemon
    lines = [f"store: {report.store}"]
    if d is None:
        lines.append("daemon: never ran on this store")
    else:
        state = "running" if report.daemon_running else "not running"
        extra = ", dry run" if d.dry_run and report.daemon_running else ""
        lines.append(f"daemon: {state} (pid {d.pid}{extra}), started {_t(d.started_at, now)}")
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
    lines.append("")
    if not report.prs:
        lines.append("no pull request is watched (bind a worker: comment-wake bind --help)")
    for pr in report.prs:
        lines.append(f"{pr.pr} ({pr.host}): worker(s) {', '.join(pr.workers)}")
        lines.append(f"  floor {_t(pr.floor, now)}; last poll {_t(pr.last_poll, now)}")
        lines.append(f"  handled {pr.handled} comment(s), {pr.woken} woke the worker")
        nxt = f", next wake not before {_t(pr.next_wake_at, now)}" if pr.next_wake_at else ""
        lines.append(
            f"  wakes left: {pr.wakes_left_hour} this hour, {pr.wakes_left_day} today{nxt}"
        )
        held = f" until {_t(pr.held_until, now)}" if pr.held_until else ""
        retry = f", next at {_t(pr.next_retry_at, now)}" if pr.next_retry_at else ""
        lines.append(f"  held {pr.held}{held}; permission retries {pr.pending_retries}{retry}")
    lines.append("")
    if not report.queues:
        lines.append("outbox: empty")
    for q in report.queues:
        oldest = f", oldest {_t(q.oldest_pending_at, now)}" if q.oldest_pending_at else ""
        lines.append(f"outbox {q.worker}: {q.pending} pending, {q.parked} parked{oldest}")
    lines.append(f"reactions owed: {report.reactions_pending}")
    return "\n".join(lines) + "\n"
