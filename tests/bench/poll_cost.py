"""Poll cost over a simulated hour against FakeGitHub (a script, not a test).

    .venv/bin/python tests/bench/poll_cost.py [--prs 1000] [--interval 60] [--readers]

1,000 PRs in batches of 100, polled every 60 s for an hour of simulated time by the
assembled ``Monitor``: the real ``Poller`` (with its budget governor and the monitor's own
notices listener), the real store in a temporary directory and the real ``GitHubClient``
on FakeGitHub's in-process transport, all on a ``VirtualClock``.  A second listener reads
the bodies of new comments as the comment wake does.  FakeGitHub prices each query with
GitHub's formula, so the points are what GitHub would charge.  ``--readers`` also runs the
same hour by calling ``read_badges`` and ``read_details`` directly, as a cross-check.

- ``points_per_hour``: quiet polls (nothing new).
- ``busy_points_per_hour``: 1% of the PRs get a new comment before every poll, and every
  poll reads their bodies (one detail query per 30 new comments).
- ``naive_points_per_hour``: one badge query per PR per poll.
- ``quiet_poll_extra_calls``: requests beyond the badge queries on a quiet poll.
- ``cpu_ms_per_poll``: CPU time to decode the answers of one quiet poll of all PRs, parse
  them into ``PrStatus`` and find the new items against the previous poll (the median of
  several runs; FakeGitHub's own work is not counted).

The last line printed is one JSON object with those figures.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

import anyio
import msgspec

from review_monitor import GitHubConfig, Monitor, MonitorConfig, PrRef, PrStatus, Watch
from review_monitor._queries import badge_query
from review_monitor.github import GitHubClient, RetryPolicy, parse_badge, read_badges, read_details
from review_monitor.store import SyncStore
from review_monitor.testing import FakeGitHub, FixedClock, VirtualClock

START = datetime(2030, 1, 2, 3, 0, tzinfo=UTC)
BATCH = MonitorConfig().batch_size  # the default: the largest one-point batch


def new_items(previous: dict[PrRef, PrStatus], current: dict[PrRef, PrStatus]) -> list[str]:
    """The ids of comments and reviews listed now but not at the previous poll."""
    found: list[str] = []
    for pr, status in current.items():
        before = previous.get(pr)
        seen = set() if before is None else {i.id for i in (*before.comments, *before.reviews)}
        found.extend(i.id for i in (*status.comments, *status.reviews) if i.id not in seen)
    return found


def batches(prs: Sequence[PrRef]) -> list[Sequence[PrRef]]:
    return [prs[i : i + BATCH] for i in range(0, len(prs), BATCH)]


def populate(fake: FakeGitHub, clock: FixedClock | VirtualClock, count: int) -> list[PrRef]:
    prs = [fake.add_pr(f"octo-org/repo-{i % 40}", i + 1) for i in range(count)]
    for k, pr in enumerate(prs):
        for j in range(k % 4):
            fake.post_comment(pr, "alice" if j % 2 else "renovate[bot]", f"note {j}")
        if k % 5 == 0:
            fake.post_review(pr, "bob", "APPROVED", "")
    if isinstance(clock, FixedClock):
        clock.advance(timedelta(minutes=1))
    return prs


async def poll(api: GitHubClient, prs: Sequence[PrRef]) -> dict[PrRef, PrStatus]:
    statuses: dict[PrRef, PrStatus] = {}
    for batch in batches(prs):
        statuses.update((await read_badges(api, batch)).statuses)
    return statuses


async def simulate_hour(count: int, interval: int, busy_share: float) -> tuple[int, int, int]:
    """Points spent in an hour, requests beyond badges on the last poll, polls made."""
    clock = FixedClock(START)
    fake = FakeGitHub(clock=clock, graphql_limit=1_000_000)
    prs = populate(fake, clock, count)
    busy = max(1, round(count * busy_share)) if busy_share else 0
    retry = RetryPolicy()
    async with GitHubClient(
        "bench-token", transport=fake.transport(), clock=clock, retry=retry
    ) as api:
        previous = await poll(api, prs)  # the baseline look, outside the measured hour
        first = len(fake.requests)
        polls = 3600 // interval
        extra = 0
        for n in range(polls):
            clock.advance(timedelta(seconds=interval))
            for k in range(busy):
                fake.post_comment(prs[(n * busy + k) % count], "alice", f"poll {n} item {k}")
            before = len(fake.requests)
            current = await poll(api, prs)
            fresh = new_items(previous, current)
            if fresh:
                await read_details(api, fresh)
            extra = sum(1 for r in fake.requests[before:] if r.kind != "badge")
            previous = current
        spent = sum(r.cost for r in fake.requests[first:] if r.path == "/graphql")
        return spent, extra, polls


class BodyReader:
    """A listener that reads the bodies of new comments, as the comment wake does, through
    ``Monitor.read_details`` (served from the bodies the monitor read for the batch)."""

    name = "bench-bodies"

    def __init__(self, monitor: Monitor) -> None:
        self._monitor = monitor

    async def on_poll(
        self, watches: Sequence[Watch], new: PrStatus, old: PrStatus | None, now: datetime
    ) -> None:
        if old is None:
            return
        fresh = new_items({new.pr: old}, {new.pr: new})
        if fresh:
            await self._monitor.read_details(fresh)


async def poller_hour(count: int, interval: int, busy_share: float) -> tuple[int, int, int, int]:
    """Through the assembled Monitor: points spent in an hour, requests beyond badges on
    the last round, rounds, and how many rounds the governor stretched."""
    clock = VirtualClock(START)
    fake = FakeGitHub(clock=clock)
    prs = populate(fake, clock, count)
    busy = max(1, round(count * busy_share)) if busy_share else 0
    config = MonitorConfig(poll_interval=timedelta(seconds=interval), batch_size=BATCH)
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
            monitor.add_listener(BodyReader(monitor))
            async with anyio.create_task_group() as tg:
                tg.start_soon(monitor.run)
                await clock.advance(timedelta(seconds=interval - 1))  # the baseline round
                first = len(fake.requests)
                rounds = 3600 // interval
                extra = 0
                for n in range(rounds):
                    for k in range(busy):
                        pr = prs[(n * busy + k) % count]
                        fake.post_comment(pr, "alice", f"poll {n} item {k}")
                    before = len(fake.requests)
                    await clock.advance(timedelta(seconds=interval))
                    extra = sum(1 for r in fake.requests[before:] if r.kind != "badge")
                tg.cancel_scope.cancel()
            stretched = (
                1 if monitor.poller.governor.plan(count // BATCH, clock.now()).stretched else 0
            )
    spent = sum(r.cost for r in fake.requests[first:] if r.path == "/graphql")
    return spent, extra, rounds, stretched


def naive_points(count: int, interval: int) -> int:
    """One badge query per PR per poll, each priced by FakeGitHub."""
    clock = FixedClock(START)
    fake = FakeGitHub(clock=clock)
    pr = fake.add_pr("octo-org/repo", 1)
    doc, variables = badge_query([pr])
    body = json.dumps({"query": doc, "variables": variables}).encode()
    fake.handle("POST", "/graphql", {}, body)
    return fake.requests[-1].cost * count * (3600 // interval)


def cpu_ms_per_poll(count: int, runs: int = 7) -> float:
    """CPU to decode, parse and diff one quiet poll's answers (FakeGitHub's work excluded)."""
    clock = FixedClock(START)
    fake = FakeGitHub(clock=clock, graphql_limit=1_000_000)
    prs = populate(fake, clock, count)
    answers: list[tuple[Sequence[PrRef], bytes]] = []
    for batch in batches(prs):
        doc, variables = badge_query(batch)
        body = json.dumps({"query": doc, "variables": variables}).encode()
        answers.append((batch, fake.handle("POST", "/graphql", {}, body).body))

    def decode_all() -> dict[PrRef, PrStatus]:
        out: dict[PrRef, PrStatus] = {}
        for batch, raw in answers:
            payload = msgspec.json.decode(raw)
            parsed = parse_badge(
                payload.get("data"),
                batch,
                comments_window=10,
                reviews_window=20,
                errors=payload.get("errors") or (),
            )
            out.update(parsed.statuses)
        return out

    previous = decode_all()
    samples = []
    for _ in range(runs):
        start = time.process_time()
        current = decode_all()
        fresh = new_items(previous, current)
        samples.append((time.process_time() - start) * 1000)
        assert not fresh
    return round(statistics.median(samples), 1)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--prs", type=int, default=1000)
    parser.add_argument("--interval", type=int, default=60)
    parser.add_argument(
        "--readers", action="store_true", help="also run the hour with the readers directly"
    )
    args = parser.parse_args(argv)
    quiet, quiet_extra, polls, q_stretch = anyio.run(poller_hour, args.prs, args.interval, 0.0)
    print(f"poller, quiet hour: {polls} rounds, {quiet} points", file=sys.stderr)
    busy, _, _, b_stretch = anyio.run(poller_hour, args.prs, args.interval, 0.01)
    print(f"poller, busy hour: {busy} points", file=sys.stderr)
    if q_stretch or b_stretch:
        print("the budget governor stretched the interval", file=sys.stderr)
    if args.readers:
        r_quiet, _, _ = anyio.run(simulate_hour, args.prs, args.interval, 0.0)
        r_busy, _, _ = anyio.run(simulate_hour, args.prs, args.interval, 0.01)
        print(f"readers: quiet {r_quiet} points, busy {r_busy} points", file=sys.stderr)
    result = {
        "prs": args.prs,
        "interval_s": args.interval,
        "points_per_hour": quiet,
        "busy_points_per_hour": busy,
        "naive_points_per_hour": naive_points(args.prs, args.interval),
        "quiet_poll_extra_calls": quiet_extra,
        "cpu_ms_per_poll": cpu_ms_per_poll(args.prs),
    }
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
