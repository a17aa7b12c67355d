"""Replayed webhook deliveries against the assembled app, on virtual time (not collected).

    .venv/bin/python tests/bench/hint_replay.py [--deliveries 1000] [--prs 4]
        [--minutes 60] [--repeat 0.2] [--poll 60]

The app (``open_app``: the real listener on loopback HTTP, the real poller and budget
governor, the real store, the real client on FakeGitHub's in-process transport, all on a
``VirtualClock``) watches ``--prs`` pull requests, each bound to an inbox worker, and
polls every ``--poll`` seconds.  ``--deliveries`` correctly signed ``issue_comment``
deliveries are sent evenly over ``--minutes`` of virtual time, round robin over the PRs;
a ``--repeat`` share of them repeats its PR's previous delivery id (a plain replay), the
rest carry a new id (a replay whose unsigned header was changed: the case dedup cannot
catch).  A delivery is posted at the virtual second it falls in.

Hinted polls are told apart from round polls by watching the poller's hinted path (the
bench wraps its private ``_poll_hinted`` and badge reader; FakeGitHub prices each query
with GitHub's formula).  Figures:

- ``deliveries``, ``answered_202`` / ``answered_204``: what the listener answered;
- ``polls`` and ``points``: hinted badge queries and the points they cost;
- ``round_polls``: badge queries of the regular rounds, for comparison;
- ``polls_per_pr_per_minute``: hinted polls of the busiest PR per minute of the run;
- ``coalesce_window_s``: ``hint_min_gap``; ``min_gap_s`` the least time between two hinted
  polls of one PR (at least the window);
- ``hint_points_per_hour``: the points hinted polls spent in the busiest hour of the run
  (the whole run when shorter), against ``hint_share_points_per_hour``;
- ``ok``: at most one hinted poll per PR per window, and never above the hint share.

The last line printed is one JSON object with those figures.
"""

from __future__ import annotations

import argparse
import functools
import itertools
import json
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
import httpx

from comment_wake.app import open_app
from comment_wake.config import load_config
from comment_wake.hints import github_signature
from comment_wake.registry import InboxSpec, Registry
from review_monitor import PrRef
from review_monitor.poll import BadgeBatch
from review_monitor.testing import FakeGitHub, VirtualClock

START = datetime(2030, 1, 2, 3, 0, tzinfo=UTC)
TOKEN = "ghp_HintBench0123456789abcdefghijklmnopqr"
SECRET = "hint-bench-secret"
REPO = "octo/repo"
HOUR = timedelta(hours=1)


def delivery_body(pr: PrRef, comment_id: int) -> bytes:
    """An ``issue_comment`` delivery in GitHub's shape (the fields the listener reads)."""
    owner, name = pr.repo.split("/")
    payload = {
        "action": "created",
        "issue": {
            "number": pr.number,
            "pull_request": {"url": f"https://api.github.com/repos/{pr.repo}/pulls/{pr.number}"},
        },
        "comment": {"id": comment_id, "body": "replayed"},
        "repository": {
            "full_name": pr.repo,
            "name": name,
            "owner": {"login": owner},
            "html_url": f"https://github.com/{pr.repo}",
        },
        "sender": {"login": "maintainer"},
    }
    return json.dumps(payload).encode()


def post_all(url: str, posts: Sequence[tuple[bytes, str]]) -> list[int]:
    with httpx.Client(timeout=10) as client:
        return [
            client.post(
                url,
                content=body,
                headers={
                    "content-type": "application/json",
                    "x-github-event": "issue_comment",
                    "x-github-delivery": delivery,
                    "x-hub-signature-256": github_signature(SECRET.encode(), body),
                },
            ).status_code
            for body, delivery in posts
        ]


def plan(args: argparse.Namespace, prs: list[PrRef]) -> dict[int, list[tuple[bytes, str]]]:
    """The deliveries by the virtual second they are sent in."""
    span = args.minutes * 60
    by_second: dict[int, list[tuple[bytes, str]]] = defaultdict(list)
    last_id: dict[PrRef, str] = {}
    every = round(1 / args.repeat) if args.repeat > 0 else 0
    for i in range(args.deliveries):
        pr = prs[i % len(prs)]
        repeat = every and pr in last_id and (i // len(prs)) % every == every - 1
        delivery = last_id[pr] if repeat else f"0000beef-0000-4000-8000-{i:012d}"
        last_id[pr] = delivery
        by_second[int(i * span / args.deliveries)].append((delivery_body(pr, 1000 + i), delivery))
    return by_second


def busiest_hour(spends: list[tuple[datetime, float]]) -> float:
    return max((sum(c for u, c in spends if t <= u <= t + HOUR) for t, _ in spends), default=0.0)


async def run(args: argparse.Namespace) -> dict[str, Any]:
    clock = VirtualClock(START)
    fake = FakeGitHub(clock=clock, viewer="octo-worker", token=TOKEN)
    prs = [fake.add_pr(REPO, n, title=f"change {n}") for n in range(1, args.prs + 1)]
    with tempfile.TemporaryDirectory(prefix="cw-hint-bench-") as tmp:
        state = Path(tmp) / "state"
        config_path = Path(tmp) / "config.toml"
        config_path.write_text(
            f'[monitor]\npoll_interval = "{args.poll}s"\n[webhook]\nenabled = true\nport = 0\n',
            encoding="utf-8",
        )
        with Registry.open(state) as registry:
            registry.add_orchestrator("orch", InboxSpec())
            for n, pr in enumerate(prs):
                registry.bind(f"w{n}", pr, orchestrator="orch", publisher=InboxSpec())
        config = load_config(config_path)
        async with open_app(
            config,
            state_dir=state,
            token=TOKEN,
            transport=fake.transport(),
            clock=clock,
            environ={config.webhook.secret_env: SECRET},
        ) as app:
            poller = app.monitor.poller
            hinting = False
            hinted: list[tuple[datetime, tuple[PrRef, ...], float]] = []
            rounds: list[datetime] = []
            read, poll_hinted = poller._read, poller._poll_hinted

            async def reading(batch: Sequence[PrRef]) -> BadgeBatch:
                result = await read(batch)
                cost = float(result.cost if result.cost is not None else 1)
                if hinting:
                    hinted.append((clock.now(), tuple(batch), cost))
                else:
                    rounds.append(clock.now())
                return result

            async def polling_hinted(due: list[PrRef]) -> None:
                nonlocal hinting
                hinting = True
                try:
                    await poll_hinted(due)
                finally:
                    hinting = False

            poller._read = reading  # type: ignore[method-assign]
            poller._poll_hinted = polling_hinted  # type: ignore[method-assign]
            statuses: list[int] = []
            async with anyio.create_task_group() as tg:
                tg.start_soon(app.run)
                await app.ready.wait()
                await clock.settle()
                url = f"http://127.0.0.1:{app.hint_port}{config.webhook.path}"
                by_second = plan(args, prs)
                seconds = sorted(by_second)
                for second, after in itertools.pairwise([*seconds, seconds[-1] + 30]):
                    statuses += await anyio.to_thread.run_sync(
                        functools.partial(post_all, url, by_second[second])
                    )
                    await clock.advance(timedelta(seconds=after - second))
                tg.cancel_scope.cancel()
            governor = poller.governor
            window = app.config.monitor.hint_min_gap.total_seconds()
            allowed = governor.hint_points_per_hour
    per_pr: dict[PrRef, list[datetime]] = defaultdict(list)
    for t, batch, _ in hinted:
        for pr in batch:
            per_pr[pr].append(t)
    gaps = [
        (b - a).total_seconds() for times in per_pr.values() for a, b in itertools.pairwise(times)
    ]
    minutes = args.minutes + 0.5
    busiest = max((len(times) for times in per_pr.values()), default=0)
    spent = busiest_hour([(t, c) for t, _, c in hinted])
    per_hour = spent  # a run shorter than an hour: all it spent fell in one hour
    min_gap = min(gaps, default=float("inf"))
    return {
        "deliveries": len(statuses),
        "answered_202": statuses.count(202),
        "answered_204": statuses.count(204),
        "prs": len(prs),
        "minutes": args.minutes,
        "polls": len(hinted),
        "points": sum(c for _, _, c in hinted),
        "round_polls": len(rounds),
        "polls_per_pr_per_minute": round(busiest / minutes, 3),
        "coalesce_window_s": window,
        "min_gap_s": None if min_gap == float("inf") else min_gap,
        "hint_points_per_hour": per_hour,
        "hint_share_points_per_hour": allowed,
        "ok": min_gap >= window and per_hour <= allowed,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deliveries", type=int, default=1000)
    parser.add_argument("--prs", type=int, default=4)
    parser.add_argument("--minutes", type=int, default=60)
    parser.add_argument("--repeat", type=float, default=0.2)
    parser.add_argument("--poll", type=int, default=60)
    args = parser.parse_args()
    began = time.perf_counter()
    figures = anyio.run(run, args)
    print(f"ran in {time.perf_counter() - began:.1f} s of real time", file=sys.stderr)
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
