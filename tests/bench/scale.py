"""What a round costs the app at scale (a script, not a test; issue 26).

    .venv/bin/python tests/bench/scale.py [--prs N] [--progress-tools]

The real app (``open_app``) with N PRs each bound to its own worker (inbox publisher, one
small transcript each, ten workers per orchestrator), on a real SQLite store, on a virtual
clock.  FakeGitHub serves from its own process over loopback HTTP, on the app's virtual
time (a shared value the app's clock writes), so its CPU is not the app's.  After the
baseline round the app runs quiet rounds, then rounds in which 1% of the PRs get a
comment from a writer, then progress rounds (issue 27): 10% of the PRs (the last tenth,
none of them changed by the busy rounds) each get a progress comment of the token's
login, then have it edited every 5 minutes (every fifth round), the PRs spread over the
five rounds as workers' would be (2% of the PRs touched before each round).  The posts'
rows are written to the store as the daemon's post sender records them
(``comment_wake.store.insert_post`` then ``record_posted`` with the ids GitHub gave, so
the ``own-post-id`` rule knows them), then the comments are made on FakeGitHub, and each
edit is made on FakeGitHub directly (``FakeGitHub.edit``), as the post sender's edit
(at most one per ``progress_min_gap``) would be: it moves the PR's ``updatedAt``, so the
sweep sees the PR changed and reads its badge.  The sender's own request and its one
store write per edit are not in the figures.  At 1,000 PRs and more this load is more
than the daemon makes: every post and edit takes a token of the identity's content
bucket (``content_per_hour``, 150 by default, 500 at most), and 10% of 1,000 PRs edited
every 5 minutes is 1,200 edits an hour.  With ``--progress-tools`` the progress rounds
drive the real path instead: each writer calls its ``progress`` tool
(``WorkerTools.progress``) on the same beat and the daemon's post sender makes and edits
the comments over FakeGitHub's REST routes, its requests and store writes in the figures,
as many edits as the content bucket allows (``progress_edits``).  Each figure is the
median over the rounds of its kind:

- ``quiet_round_cpu_ms``: the app's CPU from one round's end to the next, quiet rounds:
  the sweep and the safety net's reads of the PRs whose slot falls in the round, about a
  tenth of them (issue 28 spreads the net over its ten rounds);
- ``safety_net_round_cpu_ms``: quiet rounds in which the safety net read more than twice
  its share: the baseline's PRs read too late in its round for their first slot, read
  together ten rounds later;
- ``busy_round_cpu_ms``: rounds with 1% of the PRs changed (their looks, notices and
  deliveries to the inboxes): a busy round reads the changed PRs, those still settling
  from the round before and the safety net's share; the sweep vouches for the rest;
- ``progress_round_cpu_ms``: progress rounds from the tenth on (steady: every progress
  comment made, 2% of the PRs edited before each round), but not the safety net's rounds
  for the baseline's cohort;
- ``progress_notices``: notices queued for the progress comments' workers in the progress
  rounds and two rounds after (none: an own post never wakes its worker), and
  ``progress_decided``: how the wake decided the progress comments (``skip: own-post``,
  once each, when the comment appears; an edit is not decided again);
- ``quiet_points_per_hour`` and ``progress_points_per_hour``: GitHub's points (FakeGitHub
  prices every GraphQL query) over the quiet rounds and over the last ten progress rounds
  (a whole safety-net cycle each), scaled to an hour; the progress rounds also carry the
  safety net's reads of the PRs the busy rounds changed, spread over their rounds (the
  monitor alone, without that, is ``poll_cost.py``'s ``progress_points_per_hour``);
- ``monitor_only_round_cpu_ms``: the quiet round with the same N PRs watched and no
  worker bound: the poller alone;
- ``looks_per_quiet_round``: looks by the comment wake and the monitor's notices;
- ``store_reads_per_quiet_round``: read transactions on the store made by the round's
  path (``store_reads_by_caller`` names every reader, the background ones too: the
  housekeeping's operator requests every two seconds and the delivery loop's outbox scan,
  whatever N);
- ``errors_logged``: records logged at ERROR (a listener that failed; none expected);
- ``peak_rss_mb``: the peak resident size of the app's process (each N runs in a fresh
  process).

The CPU includes the driver's own work of moving the virtual clock, the same in every
kind of round; compare ratios measured in one run.  Without ``--prs`` it runs N = 100,
1,000 and 5,000 and checks the issue's targets; the last line printed is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import logging
import multiprocessing
import multiprocessing.connection
import multiprocessing.sharedctypes
import resource
import secrets
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import anyio

from comment_wake.app import open_app
from comment_wake.config import AppConfig
from comment_wake.events import CommentDecided, Event, NoticeQueued, PollRound
from comment_wake.registry import InboxSpec, TranscriptPath
from comment_wake.store import insert_post, posts, record_posted
from comment_wake.tools import WorkerTools
from review_monitor import GitHubConfig, PrRef
from review_monitor.github import Posted
from review_monitor.testing import FakeGitHub, InFlightTransport, VirtualClock

START = datetime(2030, 1, 2, 3, 0, tzinfo=UTC)
TOKEN = "ghp_ScaleBenchToken0123456789abcdefghijkl"
ROUND = timedelta(minutes=1)
QUIET_ROUNDS = 20  # two safety-net rounds among them (every badge every 10 minutes)
BUSY_ROUNDS = 20  # the safety net reads the baseline's cohort in two or three: those are apart
BUSY_SHARE = 0.01
# Progress rounds: the first five post the progress comments, then each is edited every
# fifth round (``progress_min_gap``, 5 minutes); the last ten are steady.
PROGRESS_ROUNDS = 20
PROGRESS_SHARE = 0.10
PROGRESS_GAP = 5  # rounds
STEADY = 10  # rounds: the safety net's interval
TEAM = 10  # workers per orchestrator
# Readers that run on their own beat, whatever N: the housekeeping's operator requests
# and the delivery loop's outbox scan.
BACKGROUND = frozenset({"read_records", "due", "next_due_at", "next_reaction_at", "next_post_at"})
SIZES = (100, 1000, 5000)


# -- FakeGitHub in its own process --------------------------------------------------------


class _SharedNow:
    """The app's virtual time, read from the value its clock writes."""

    def __init__(self, value: Any) -> None:
        self._value = value

    def now(self) -> datetime:
        return datetime.fromtimestamp(self._value.value, UTC)


def _serve(count: int, value: Any, conn: multiprocessing.connection.Connection) -> None:
    fake = FakeGitHub(clock=_SharedNow(value), viewer="octo-worker", token=TOKEN)
    prs = [fake.add_pr(f"octo-org/repo-{i % 40}", i + 1, title=f"PR {i + 1}") for i in range(count)]
    for repo in sorted({pr.repo for pr in prs}):
        fake.set_permission(repo, "alice", "write")
        # The token's login (the user the workers post as) may write too: only the
        # ``own-post-id`` rule keeps its progress comments from waking their workers.
        fake.set_permission(repo, fake.viewer, "write")
    with fake.serve_in_thread() as url:
        conn.send((url, [(pr.owner, pr.name, pr.number) for pr in prs]))
        while True:
            command = conn.recv()
            if command[0] == "stop":
                break
            if command[0] == "points":  # GraphQL points charged so far
                conn.send(sum(r.cost for r in fake.requests if r.path == "/graphql"))
                continue
            if command[0] == "edits":  # comments edited over REST (the post sender's)
                conn.send(sum(1 for r in fake.requests if r.method == "PATCH"))
                continue
            if command[0] == "progress":
                for k, node_id, database_id, body in command[1]:
                    fake.post_comment(
                        prs[k], fake.viewer, body, node_id=node_id, database_id=database_id
                    )
                for node_id, body in command[2]:
                    fake.edit(node_id, body)
                conn.send("ok")
                continue
            for k in command[1]:
                fake.post_comment(prs[k], "alice", f"please look at case {k}")
            conn.send("ok")


class _SharedClock(VirtualClock):
    """A virtual clock that writes its time where the FakeGitHub process reads it."""

    def __init__(self, start: datetime, value: Any) -> None:
        self._value = value
        super().__init__(start)

    @property
    def _now(self) -> datetime:
        return datetime.fromtimestamp(self._value.value, UTC)

    @_now.setter
    def _now(self, t: datetime) -> None:
        self._value.value = t.timestamp()


# -- one size -----------------------------------------------------------------------------


class _ErrorCount(logging.Handler):
    """Counts the records logged at ERROR or above (a listener that failed, a fault)."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        self.count += 1


class _Rig:
    def __init__(self, clock: _SharedClock, transport: InFlightTransport) -> None:
        self.clock = clock
        self.transport = transport
        self.rounds: list[tuple[PollRound, float, Counter[str], int]] = []
        self.reads: Counter[str] = Counter()
        self.looks = 0
        self.notices: list[NoticeQueued] = []
        self.decided: list[CommentDecided] = []
        self._cpu = time.process_time()

    def on_event(self, event: Event) -> None:
        if isinstance(event, NoticeQueued):
            self.notices.append(event)
        elif isinstance(event, CommentDecided):
            self.decided.append(event)
        elif isinstance(event, PollRound):
            now = time.process_time()
            self.rounds.append((event, (now - self._cpu) * 1000, self.reads.copy(), self.looks))
            self._cpu = now
            self.reads.clear()
            self.looks = 0

    async def settle(self) -> None:
        while True:
            await self.clock.settle()
            if self.transport.in_flight == 0:
                return
            await anyio.sleep(0.0005)

    async def until(self, pred: Callable[[], bool]) -> None:
        await self.settle()
        while not pred():
            deadline = self.clock.next_deadline()
            assert deadline is not None, "nothing waits on the clock"
            await self.clock.advance_to(deadline)
            await self.settle()

    async def next_round(self) -> None:
        done = len(self.rounds)
        await self.until(lambda: len(self.rounds) > done)


def _count(app: Any, rig: _Rig) -> None:
    sync = app.monitor.store.sync
    read = sync.read

    def counted() -> Any:
        rig.reads[sys._getframe(1).f_code.co_name] += 1
        return read()

    sync.read = counted
    for owner, name in ((app.wake, "_look"), (app.monitor.notices, "look")):
        real = getattr(owner, name)

        def looked(
            *args: Any, _real: Callable[..., Awaitable[Any]] = real, **kwargs: Any
        ) -> Awaitable[Any]:
            rig.looks += 1
            return _real(*args, **kwargs)

        setattr(owner, name, looked)


async def _run(count: int, *, bound: bool, tmp: Path, tools: bool = False) -> dict[str, Any]:
    value = multiprocessing.Value("d", START.timestamp(), lock=False)
    parent, child = multiprocessing.Pipe()
    server = multiprocessing.get_context("fork").Process(
        target=_serve, args=(count, value, child), daemon=True
    )
    server.start()
    url, refs = parent.recv()
    prs = [PrRef(owner, name, number) for owner, name, number in refs]
    clock = _SharedClock(START, value)
    transport = InFlightTransport()
    rig = _Rig(clock, transport)
    writers = range(count - round(count * PROGRESS_SHARE), count)  # the progress comments'
    points: dict[str, int] = {}
    edits = 0
    progress_items: set[str | None] = set()

    def charged(mark: str) -> None:
        parent.send(("points",))
        points[mark] = parent.recv()

    state = tmp / ("bound" if bound else "watched")
    config = AppConfig(github=GitHubConfig(api_url=url))
    try:
        async with open_app(
            config, state_dir=state, token=TOKEN, transport=transport, clock=clock
        ) as app:
            registry = app.registry
            assert registry is not None
            for k, pr in enumerate(prs):
                if not bound:
                    app.monitor.store.sync.add_watch(f"watcher-{k}", pr, at=clock.now())
                    continue
                boss = f"lead-{k // TEAM}"
                if k % TEAM == 0:
                    registry.add_orchestrator(boss, InboxSpec())
                transcript = tmp / "transcripts" / f"w-{k}.jsonl"
                transcript.parent.mkdir(parents=True, exist_ok=True)
                transcript.write_text('{"type":"user"}\n', encoding="utf-8")
                registry.bind(
                    f"w-{k}",
                    pr,
                    orchestrator=boss,
                    publisher=InboxSpec(),
                    transcripts=TranscriptPath(str(transcript)),
                    post_tools=k in writers,
                )
            app.subscribe(rig.on_event)
            _count(app, rig)
            async with anyio.create_task_group() as tg:
                tg.start_soon(app.run)
                await rig.next_round()  # the baseline: every badge
                await rig.next_round()
                quiet_from = len(rig.rounds)
                charged("quiet")
                for _ in range(QUIET_ROUNDS):
                    await rig.next_round()
                busy_from = len(rig.rounds)
                charged("busy")
                if bound:
                    changed = max(1, round(count * BUSY_SHARE))
                    for n in range(BUSY_ROUNDS):
                        parent.send(
                            ("comment", [(n * changed + k) % count for k in range(changed)])
                        )
                        parent.recv()
                        await rig.next_round()
                progress_from = len(rig.rounds)
                notices_from = len(rig.notices)
                if bound and tools:
                    await _tool_rounds(app, rig, writers, charged)
                    parent.send(("edits",))
                    edits = parent.recv()
                elif bound:
                    edits = await _progress_rounds(app, rig, parent, prs, writers, charged)
                if bound:
                    progress_items = {
                        p.node_id
                        for p in posts(app.monitor.store.sync)
                        if p.tool == "progress" and p.node_id is not None
                    }
                tg.cancel_scope.cancel()
    finally:
        parent.send(("stop",))
        server.join(timeout=10)
    # The safety net reads each PR at its own slot, a tenth of the PRs a round (twice as
    # many at most, the hash being uneven); the PRs of the baseline read too late in its
    # round for their first slot are read together ten rounds later: those rounds, reading
    # more, are the net's rounds, reported apart.
    net_share = 2 * -(-count // STEADY)
    quiet = rig.rounds[quiet_from:busy_from]
    calm = [r for r in quiet if r[0].swept >= count - net_share]
    net = [r for r in quiet if r[0].swept < count - net_share]
    changed = max(1, round(count * BUSY_SHARE))
    # A busy round reads the changed PRs and those settling from the round before (each
    # twice as many at most) and the net's share.
    busy = [
        r
        for r in rig.rounds[busy_from:progress_from]
        if r[0].swept >= count - 4 * changed - net_share
    ]
    reads = Counter[str]()
    for r in calm:
        reads.update(r[2])
    steady = [
        r
        for r in rig.rounds[progress_from + STEADY : progress_from + PROGRESS_ROUNDS]
        if r[0].swept >= count - 6 * len(writers) // PROGRESS_GAP - net_share
    ]
    progress_workers = {f"w-{k}" for k in writers}
    decided = Counter(
        f"{d.outcome}: {d.reason}" for d in rig.decided if d.comment in progress_items
    )
    progress: dict[str, Any] = {}
    if bound:
        progress = {
            "progress_round_cpu_ms": _median([r[1] for r in steady]),
            "progress_rounds": len(steady),
            "progress_prs": len(writers),
            "progress_via_tools": tools,
            "progress_comments": len(progress_items),
            "progress_edits": edits,
            "progress_notices": sum(
                1 for n in rig.notices[notices_from:] if n.worker in progress_workers
            ),
            "progress_decided": dict(decided),
            "quiet_points_per_hour": round((points["busy"] - points["quiet"]) * 60 / QUIET_ROUNDS),
            "progress_points_per_hour": round(
                (points["end"] - points["steady"]) * 60 / (PROGRESS_ROUNDS - STEADY)
            ),
        }
    return {
        "quiet_round_cpu_ms": _median([r[1] for r in calm]),
        "safety_net_round_cpu_ms": _median([r[1] for r in net]),
        "busy_round_cpu_ms": _median([r[1] for r in busy]),
        "looks_per_quiet_round": _median([float(r[3]) for r in calm]),
        "store_reads_per_quiet_round": _median(
            [float(sum(n for k, n in r[2].items() if k not in BACKGROUND)) for r in calm]
        ),
        "store_reads_by_caller": {k: round(n / max(1, len(calm)), 1) for k, n in reads.items()},
        "quiet_rounds": len(calm),
        "safety_net_rounds": len(net),
        "busy_rounds": len(busy),
        **progress,
    }


def _progress_id(k: int) -> str:
    """The node id of PR ``k``'s progress comment (the bench chooses it)."""
    return f"IC_progress{k}"


async def _progress_rounds(
    app: Any,
    rig: _Rig,
    parent: multiprocessing.connection.Connection,
    prs: list[PrRef],
    writers: range,
    charged: Callable[[str], None],
) -> int:
    """The progress rounds: each writer's comment posted in one of the first
    ``PROGRESS_GAP`` rounds, then edited every ``PROGRESS_GAP`` rounds; the edits made."""
    sync = app.monitor.store.sync
    made_edits = 0
    for n in range(PROGRESS_ROUNDS):
        if n == STEADY:
            charged("steady")
        now = rig.clock.now()
        made: list[tuple[int, str, int, str]] = []
        edits: list[tuple[str, str]] = []
        for j, k in enumerate(writers):
            if j % PROGRESS_GAP != n % PROGRESS_GAP:
                continue
            if n >= PROGRESS_GAP:
                edits.append((_progress_id(k), f"Progress: step {n // PROGRESS_GAP}"))
                continue
            database_id = 900_000_000 + k
            made.append((k, _progress_id(k), database_id, "Progress: starting"))
        if made:
            # The rows as the post sender leaves them: the intent, then the ids GitHub
            # gave, recorded before the next round can see the comment.
            with sync.write(at=now) as tx:
                for k, node_id, database_id, body in made:
                    key = secrets.token_hex(16)
                    pr = prs[k]
                    insert_post(tx, key=key, worker=f"w-{k}", pr=pr, tool="progress", body=body)
                    posted = Posted(
                        database_id=database_id,
                        node_id=node_id,
                        html_url=f"https://github.com/{pr.repo}/pull/{pr.number}"
                        f"#issuecomment-{database_id}",
                        created_at=now,
                    )
                    record_posted(tx, key, posted, next_at=now + PROGRESS_GAP * ROUND)
        parent.send(("progress", made, edits))
        parent.recv()
        made_edits += len(edits)
        await rig.next_round()
    charged("end")
    for _ in range(2):  # a late notice would show here
        await rig.next_round()
    return made_edits


async def _tool_rounds(app: Any, rig: _Rig, writers: range, charged: Callable[[str], None]) -> None:
    """The progress rounds through the real path: each writer calls its ``progress`` tool
    on the same beat, and the daemon's post sender makes and edits the comments."""
    tools = {
        k: WorkerTools(
            f"w-{k}",
            store=app.monitor.store.sync,
            registry=app.registry,
            clock=rig.clock,
            wake=app.config.wake,
        )
        for k in writers
    }
    for n in range(PROGRESS_ROUNDS):
        if n == STEADY:
            charged("steady")
        for j, k in enumerate(writers):
            if j % PROGRESS_GAP == n % PROGRESS_GAP:
                tools[k].progress(f"Progress: step {n // PROGRESS_GAP}")
        await rig.next_round()
    charged("end")
    for _ in range(2):  # a late notice would show here
        await rig.next_round()


def _median(values: list[float]) -> float | None:
    return round(statistics.median(values), 2) if values else None


def one_size(count: int, *, tools: bool = False) -> dict[str, Any]:
    """Both runs of one N in this process: the app with its workers, then the poller's
    round alone."""
    errors = _ErrorCount()
    logging.getLogger().addHandler(errors)
    with tempfile.TemporaryDirectory(prefix="cw-scale-") as tmp:
        started = time.monotonic()
        figures = anyio.run(lambda: _run(count, bound=True, tmp=Path(tmp), tools=tools))
        alone = anyio.run(lambda: _run(count, bound=False, tmp=Path(tmp)))
    logging.getLogger().removeHandler(errors)
    figures["errors_logged"] = errors.count
    figures["monitor_only_round_cpu_ms"] = alone["quiet_round_cpu_ms"]
    figures["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    figures["prs"] = count
    figures["seconds"] = round(time.monotonic() - started, 1)
    return figures


def _in_child(count: int, *, tools: bool) -> dict[str, Any]:
    """``one_size`` in a fresh process, so each N has its own peak RSS."""
    done = subprocess.run(
        [sys.executable, __file__, "--prs", str(count), *(["--progress-tools"] if tools else [])],
        capture_output=True,
        text=True,
        check=True,
    )
    sys.stderr.write(done.stderr)
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def _ratio(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None or b == 0 else round(a / b, 2)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--prs", type=int, help="run one size only")
    parser.add_argument(
        "--progress-tools",
        action="store_true",
        help="progress rounds through the progress tool and the post sender",
    )
    args = parser.parse_args(argv)
    if args.prs is not None:
        print(json.dumps(one_size(args.prs, tools=args.progress_tools)))
        return 0
    started = time.monotonic()
    by_size = {}
    for n in SIZES:
        by_size[n] = _in_child(n, tools=args.progress_tools)
        print(f"{n} PRs: {json.dumps(by_size[n])}", file=sys.stderr, flush=True)
    k, big = by_size[1000], by_size[5000]
    whole = time.monotonic() - started
    targets = {
        "quiet_1000_at_most_1_5x_monitor_only": (
            (_ratio(k["quiet_round_cpu_ms"], k["monitor_only_round_cpu_ms"]) or 99) <= 1.5
        ),
        "no_look_in_a_quiet_round": all(f["looks_per_quiet_round"] == 0 for f in by_size.values()),
        "at_most_2_store_reads_per_quiet_round": all(
            (f["store_reads_per_quiet_round"] or 0) <= 2 for f in by_size.values()
        ),
        "quiet_5000_at_most_6x_1000": (
            (_ratio(big["quiet_round_cpu_ms"], k["quiet_round_cpu_ms"]) or 99) <= 6
        ),
        "busy_5000_at_most_6x_1000": (
            (_ratio(big["busy_round_cpu_ms"], k["busy_round_cpu_ms"]) or 99) <= 6
        ),
        "rss_5000_at_most_250_mb": big["peak_rss_mb"] <= 250,
        # Each median is over at least ten rounds of its kind (issue 26).
        "medians_of_at_least_10_rounds": all(
            f[kind] >= 10 for f in by_size.values() for kind in ("quiet_rounds", "busy_rounds")
        ),
        "no_error_logged": all(f["errors_logged"] == 0 for f in by_size.values()),
        "no_notice_from_progress_comments": all(
            f["progress_notices"] == 0 for f in by_size.values()
        ),
        "whole_run_within_20_minutes": whole <= 20 * 60,
    }
    print(
        json.dumps(
            {
                "sizes": by_size,
                "quiet_1000_over_monitor_only": _ratio(
                    k["quiet_round_cpu_ms"], k["monitor_only_round_cpu_ms"]
                ),
                "quiet_5000_over_1000": _ratio(big["quiet_round_cpu_ms"], k["quiet_round_cpu_ms"]),
                "busy_5000_over_1000": _ratio(big["busy_round_cpu_ms"], k["busy_round_cpu_ms"]),
                "progress_1000_over_quiet": _ratio(
                    k["progress_round_cpu_ms"], k["quiet_round_cpu_ms"]
                ),
                "whole_run_s": round(whole),
                "targets": targets,
            }
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
