"""Poll cost over a simulated hour against FakeGitHub (a script, not a test).

    .venv/bin/python tests/bench/poll_cost.py [--prs 1000] [--interval 60]

1,000 PRs, polled every 60 s for an hour of simulated time by the assembled ``Monitor``:
the real ``Poller`` (the sweep, its book and the budget governor, with the monitor's own
notices listener), the real store in a temporary directory and the real ``GitHubClient``
on FakeGitHub's in-process transport, all on a ``VirtualClock``.  The PRs were opened an
hour before the monitor starts; its first round (the baseline, every badge) is outside the
measured hour.  FakeGitHub prices each query with GitHub's formula, so the points are what
GitHub would charge.

- ``points_per_hour``: a quiet hour (nothing changes).
- ``busy_points_per_hour``: 1% of the PRs change before every round.  A change is, in
  turn: a new comment, a new comment GitHub lists 20 s late, a review, a check that fails,
  a merge or a close.  A listener reads the bodies of new comments, as the comment wake
  does.
- ``progress_points_per_hour``: the quiet hour, but 10% of the PRs each carry a progress
  comment of the token's login (issue 27) edited every 5 minutes, the PRs' edits
  staggered across the 5 minutes as workers' would be (2% of the PRs edited before each
  round at 60 s).  The edits are made on FakeGitHub directly (``FakeGitHub.edit``): an
  edit is what the daemon's post sender makes of a worker's ``progress`` calls (at most
  one per ``progress_min_gap``, 5 minutes by default), and each moves the PR's
  ``updatedAt``, so the sweep sees the PR changed and its badge is read.  The monitor
  alone runs here (no wake), so this is points only; ``scale.py``'s progress rounds show
  that no worker is woken by them.  ``progress_extra_points_per_hour`` is what the edits
  add to the quiet hour.
- ``badge_only_points_per_hour``: the quiet hour with ``sweep = false`` (every badge every
  round), the first stage's figure.
- ``naive_points_per_hour``: one badge query per PR per round.
- ``quiet_poll_extra_calls``: requests in the quiet hour beyond the sweeps and the
  safety net's scheduled badges (``ceil(prs / batch_size)`` per ``full_badge_interval``).
- ``cpu_ms_per_poll``: CPU to decode one quiet round's sweep answer, parse it and decide
  which badges are due (the median of several runs; FakeGitHub's own work not counted).
- ``missed_changes``: changes of the busy hour that no listener heard by two rounds after
  the hour.
- ``max_notice_delay_s``: the longest time from a change to the first telling of a
  listener that shows it.

The last line printed is one JSON object with those figures.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import anyio
import msgspec

from review_monitor import (
    GitHubConfig,
    InMemoryObservations,
    Monitor,
    MonitorConfig,
    Observation,
    Observed,
    PrRef,
    PrStatus,
)
from review_monitor._queries import MAX_SWEEP_PRS, badge_query, sweep_query
from review_monitor.github import GitHubClient, RetryPolicy, read_badges
from review_monitor.poll import SweepBook, parse_sweep
from review_monitor.store import SyncStore
from review_monitor.testing import FakeGitHub, FixedClock, VirtualClock

START = datetime(2030, 1, 2, 3, 0, tzinfo=UTC)
HOUR = timedelta(hours=1)
CONFIG = MonitorConfig()
LATE = timedelta(seconds=20)
KINDS = ("comment", "late-comment", "review", "failing-check", "merge", "close")
PROGRESS_SHARE = 0.10  # the PRs whose worker keeps a progress comment
PROGRESS_GAP = timedelta(minutes=5)  # ``progress_min_gap``'s default: one edit per gap


def populate(fake: FakeGitHub, count: int) -> list[PrRef]:
    prs = [fake.add_pr(f"octo-org/repo-{i % 40}", i + 1) for i in range(count)]
    for k, pr in enumerate(prs):
        for j in range(k % 4):
            fake.post_comment(pr, "alice" if j % 2 else "renovate[bot]", f"note {j}")
        if k % 5 == 0:
            fake.post_review(pr, "bob", "APPROVED", "")
    return prs


@dataclass
class Change:
    pr: PrRef
    kind: str
    at: datetime
    item: str | None = None  # the comment or review id
    seen_at: datetime | None = None

    def shown_by(self, status: PrStatus) -> bool:
        if self.kind in ("comment", "late-comment"):
            return any(c.id == self.item for c in status.comments)
        if self.kind == "review":
            return any(r.id == self.item for r in status.reviews)
        if self.kind == "failing-check":
            return status.check_state == "FAILURE"
        return status.state == ("MERGED" if self.kind == "merge" else "CLOSED")


class Witness:
    """A listener that notes when each change is first shown to listeners, and reads the
    bodies of new comments through ``Monitor.read_details`` as the comment wake does."""

    name = "bench-witness"

    def __init__(self, monitor: Monitor) -> None:
        self._monitor = monitor
        self.waiting: dict[PrRef, list[Change]] = {}
        self._listed: dict[PrRef, set[str]] = {}  # the items each PR listed before

    async def observe(self, item: Observed, now: datetime) -> None:
        if not isinstance(item, Observation):
            return
        new = item.badge
        for change in self.waiting.get(new.pr, ()):
            if change.seen_at is None and change.shown_by(new):
                change.seen_at = now
        items = {i.id for i in (*new.comments, *new.reviews)}
        before = self._listed.get(new.pr)
        self._listed[new.pr] = items
        fresh = sorted(items - before) if before is not None else []
        if fresh:
            await self._monitor.read_details(fresh)


def make_change(fake: FakeGitHub, pr: PrRef, kind: str, at: datetime) -> Change:
    change = Change(pr=pr, kind=kind, at=at)
    if kind == "comment":
        change.item = fake.post_comment(pr, "alice", "please rename this")
    elif kind == "late-comment":
        change.item = fake.post_comment(pr, "alice", "and this", listed_late=LATE)
    elif kind == "review":
        change.item = fake.post_review(pr, "carol", "COMMENTED", "a question")
    elif kind == "failing-check":
        fake.add_check_run(pr, "ci", conclusion="FAILURE")
    elif kind == "merge":
        fake.merge(pr)
    else:
        fake.close(pr)
    return change


@dataclass
class Hour:
    points: int
    requests: dict[str, int]
    changes: list[Change]
    edits: int = 0  # progress comments edited in the hour


def add_progress(fake: FakeGitHub, prs: Sequence[PrRef], share: float) -> list[str]:
    """A progress comment by the token's login on the last ``share`` of ``prs``, as the
    post sender made them; their ids."""
    wanted = round(len(prs) * share) if share else 0
    return [
        fake.post_comment(pr, fake.viewer, "Progress: starting") for pr in prs[len(prs) - wanted :]
    ]


async def monitor_hour(
    count: int, interval: int, busy_share: float, *, sweep: bool, progress_share: float = 0.0
) -> Hour:
    clock = VirtualClock(START)
    fake = FakeGitHub(clock=clock)
    prs = populate(fake, count)
    progress = add_progress(fake, prs, progress_share)
    # One edit per PR per gap, the PRs spread over the gap's rounds.
    gap_rounds = max(1, PROGRESS_GAP // timedelta(seconds=interval))
    await clock.advance_to(START + HOUR)  # the PRs were opened a while ago
    busy = max(1, round(count * busy_share)) if busy_share else 0
    config = MonitorConfig(poll_interval=timedelta(seconds=interval), sweep=sweep)
    changes: list[Change] = []
    edits = 0
    with tempfile.TemporaryDirectory() as tmp:
        monitor = Monitor(
            store_path=Path(tmp) / "state.db",
            github=GitHubConfig(api_url="http://fake.invalid"),
            config=config,
            clock=clock,
            token="bench-token",
            transport=fake.transport(),
        )
        async with monitor:
            for k, pr in enumerate(prs):
                await monitor.store.call(SyncStore.add_watch, f"worker-{k}", pr, at=clock.now())
            witness = Witness(monitor)
            monitor.add_listener(witness)
            async with anyio.create_task_group() as tg:
                tg.start_soon(monitor.run)
                # The baseline round, then the measured hour: rounds at interval, 2 x
                # interval... 3600 s after the baseline.
                await clock.advance(timedelta(seconds=interval - 1))
                first = len(fake.requests)
                rounds = 3600 // interval
                for n in range(rounds):
                    for k in range(busy):
                        pr = prs[(n * busy + k) % count]
                        change = make_change(
                            fake, pr, KINDS[(n * busy + k) % len(KINDS)], clock.now()
                        )
                        changes.append(change)
                        witness.waiting.setdefault(pr, []).append(change)
                    for j, item in enumerate(progress):
                        if j % gap_rounds == n % gap_rounds:
                            fake.edit(item, f"Progress: step {n // gap_rounds + 1}")
                            edits += 1
                    await clock.advance(timedelta(seconds=interval))
                last = len(fake.requests)
                await clock.advance(timedelta(seconds=2 * interval))  # let the last ones show
                tg.cancel_scope.cancel()
    measured = [r for r in fake.requests[first:last] if r.path == "/graphql"]
    kinds: dict[str, int] = {}
    for r in measured:
        kinds[r.kind] = kinds.get(r.kind, 0) + 1
    return Hour(points=sum(r.cost for r in measured), requests=kinds, changes=changes, edits=edits)


def naive_points(count: int, interval: int) -> int:
    """One badge query per PR per round, each priced by FakeGitHub."""
    fake = FakeGitHub(clock=FixedClock(START))
    pr = fake.add_pr("octo-org/repo", 1)
    doc, variables = badge_query([pr])
    body = json.dumps({"query": doc, "variables": variables}).encode()
    fake.handle("POST", "/graphql", {}, body)
    return fake.requests[-1].cost * count * (3600 // interval)


async def _badges(fake: FakeGitHub, prs: Sequence[PrRef]) -> dict[PrRef, PrStatus]:
    found: dict[PrRef, PrStatus] = {}
    async with GitHubClient(
        "bench-token", transport=fake.transport(), clock=FixedClock(START), retry=RetryPolicy()
    ) as api:
        for k in range(0, len(prs), CONFIG.batch_size):
            found.update((await read_badges(api, prs[k : k + CONFIG.batch_size])).statuses)
    return found


def cpu_ms_per_poll(count: int, interval: int, runs: int = 7) -> float:
    """CPU to decode, parse and judge one quiet round's sweep answer."""
    clock = FixedClock(START)
    fake = FakeGitHub(clock=clock, graphql_limit=1_000_000)
    prs = populate(fake, count)
    clock.advance(HOUR)
    statuses = anyio.run(_badges, fake, prs)
    seen = InMemoryObservations()
    book = SweepBook(
        grace=CONFIG.sweep_grace, full_interval=CONFIG.full_badge_interval, latest=seen.latest
    )
    for status in statuses.values():
        seen.publish(
            Observation(
                pr=status.pr,
                read_at=clock.now(),
                badge=status,
                watches=(),
                interval=step_of(interval),
            )
        )
    ids = book.node_ids(prs)
    # One sweep document reads at most MAX_SWEEP_PRS PRs: a round of more is several, as
    # the poller sends them.
    nodes = list(ids)
    chunks = [nodes[k : k + MAX_SWEEP_PRS] for k in range(0, len(nodes), MAX_SWEEP_PRS)]
    answers = []
    for chunk in chunks:
        doc, variables = sweep_query(chunk)
        body = json.dumps({"query": doc, "variables": variables}).encode()
        answers.append((chunk, fake.handle("POST", "/graphql", {}, body).body))
    now, step = clock.now() + timedelta(seconds=interval), timedelta(seconds=interval)
    samples = []
    for _ in range(runs):
        start = time.process_time()
        found = {}
        for chunk, raw in answers:
            payload = msgspec.json.decode(raw)
            batch = parse_sweep(payload.get("data"), chunk, errors=payload.get("errors") or ())
            found.update({ids[node]: entry for node, entry in batch.entries.items()})
        book.swept(found)
        due = [pr for pr in prs if book.due(pr, now, step) is not None]
        samples.append((time.process_time() - start) * 1000)
        assert not due
        assert len(found) == count
    return round(statistics.median(samples), 1)


def step_of(interval: int) -> timedelta:
    return timedelta(seconds=interval)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--prs", type=int, default=1000)
    parser.add_argument("--interval", type=int, default=60)
    args = parser.parse_args(argv)
    quiet = anyio.run(lambda: monitor_hour(args.prs, args.interval, 0.0, sweep=True))
    print(f"quiet hour: {quiet.points} points, requests {quiet.requests}", file=sys.stderr)
    busy = anyio.run(lambda: monitor_hour(args.prs, args.interval, 0.01, sweep=True))
    print(f"busy hour: {busy.points} points, requests {busy.requests}", file=sys.stderr)
    progress = anyio.run(
        lambda: monitor_hour(
            args.prs, args.interval, 0.0, sweep=True, progress_share=PROGRESS_SHARE
        )
    )
    print(f"progress hour: {progress.points} points, requests {progress.requests}", file=sys.stderr)
    badge_only = anyio.run(lambda: monitor_hour(args.prs, args.interval, 0.0, sweep=False))
    print(f"badge-only quiet hour: {badge_only.points} points", file=sys.stderr)
    net = (HOUR // CONFIG.full_badge_interval) * math.ceil(args.prs / CONFIG.batch_size)
    extra = sum(quiet.requests.values()) - quiet.requests.get("sweep", 0) - net
    missed = [c for c in busy.changes if c.seen_at is None]
    delays = [(c.seen_at - c.at).total_seconds() for c in busy.changes if c.seen_at is not None]
    worst = max(busy.changes, key=lambda c: (c.seen_at or c.at) - c.at, default=None)
    if worst is not None:
        print(f"slowest change: {worst.kind} on {worst.pr}", file=sys.stderr)
    result = {
        "prs": args.prs,
        "interval_s": args.interval,
        "points_per_hour": quiet.points,
        "busy_points_per_hour": busy.points,
        "progress_points_per_hour": progress.points,
        "progress_extra_points_per_hour": progress.points - quiet.points,
        "progress_edits_per_hour": progress.edits,
        "badge_only_points_per_hour": badge_only.points,
        "naive_points_per_hour": naive_points(args.prs, args.interval),
        "quiet_poll_extra_calls": extra,
        "cpu_ms_per_poll": cpu_ms_per_poll(args.prs, args.interval),
        "changes": len(busy.changes),
        "missed_changes": len(missed),
        "max_notice_delay_s": max(delays, default=0.0),
    }
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
