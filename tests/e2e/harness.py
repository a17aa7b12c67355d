"""The end-to-end kill proof's harness: the daemon as a subprocess, killed and restarted.

``run_proof(settings, workdir)`` builds a FakeGitHub with many PRs (served on loopback from
a thread of this process), binds one inbox worker per PR, then plays a seeded story in
real time: trusted comments, strangers, bots, verdicts, and GitHub faults (5xx, timeouts,
secondary limits with ``retry-after``, partial GraphQL errors), while the daemon
(``python -m comment_wake run``, the real daemon, nothing wrapped) is SIGKILLed at random
moments and restarted on the same state directory each time.  A last run delivers what is
left; then ``Proof`` says what reached the inboxes.  The kills exactly between a side
effect and its record are the crash test's (``tests/delivery/crash``: named kill points in
wrappers its driver gives the app).

With ``Settings.store_url`` (a PostgreSQL URL) the same story runs against a fleet:
``hosts`` daemons, each with its own state directory and host id, sharing that store, each
worker bound on one of them, one of them SIGKILLed at random each time.

Loaded by path (``tests/e2e/conftest.py``, ``tests/fleet/conftest.py`` and
``tests/bench/e2e_faults.py``): test modules cannot import each other.
"""

from __future__ import annotations

import itertools
import os
import random
import re
import signal
import subprocess
import sys
import threading
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import msgspec

from comment_wake.delivery import take
from comment_wake.registry import InboxSpec, Registry
from review_monitor import Notice, PrRef
from review_monitor.testing import FakeGitHub, Fault

TOKEN = "ghp_E2eSentinel0123456789abcdefghijklmnop"
VIEWER = "octo-worker"
REPO = "e2e-org/e2e-repo"
WRITERS = ("alice", "bob", "carol")
STRANGERS = ("mallory", "trudy")
BOTS = ("ci-helper[bot]", "deps-bot[bot]")


@dataclass(frozen=True)
class Settings:
    """One proof run.  Durations in real seconds; the daemon's windows are shortened in
    proportion to the defaults (gap 1m, hour 60m, day 24h) by ``scale``."""

    seed: int = 7
    prs: int = 12
    trusted: int = 110
    untrusted: int = 40
    verdicts: int = 8
    story_seconds: float = 60.0
    kills: int = 30
    poll_s: int = 1
    gap_s: int = 1  # wake_min_gap; the hour window is 60x, the day window 1440x
    wakes_per_hour: int = 6
    wakes_per_day: int = 24
    fault_every_s: float = 1.5
    settle_seconds: float = 75.0  # the final run's deadline to deliver what is left
    # Fleet mode: ``hosts`` daemons sharing the PostgreSQL store at ``store_url``, with
    # leases of ``lease_ttl_s`` renewed every ``lease_renew_s``.
    store_url: str | None = None
    hosts: int = 1
    lease_ttl_s: float = 1.0
    lease_renew_s: float = 0.3

    @property
    def hour_s(self) -> int:
        return 60 * self.gap_s

    @property
    def day_s(self) -> int:
        return 1440 * self.gap_s


@dataclass
class Proof:
    kills: int = 0
    faults: Counter[str] = field(default_factory=Counter)
    trusted: int = 0
    lost: list[str] = field(default_factory=list)
    duplicated: list[str] = field(default_factory=list)
    untrusted_delivered: list[str] = field(default_factory=list)
    rate_limit_violations: list[str] = field(default_factory=list)
    notices: int = 0
    wakes: int = 0
    seconds: float = 0.0
    leaked_token: bool = False
    killed: Counter[str] = field(default_factory=Counter)  # host id -> SIGKILLs
    readers: list[str] = field(default_factory=list)  # the hosts that read for a fleet

    def figures(self) -> dict[str, int]:
        return {
            "kills": self.kills,
            "trusted": self.trusted,
            "lost": len(self.lost),
            "duplicated": len(self.duplicated),
            "untrusted_delivered": len(self.untrusted_delivered),
            "rate_limit_violations": len(self.rate_limit_violations),
        }


def config_text(s: Settings, base_url: str, host_id: str | None = None) -> str:
    fleet = (
        ""
        if s.store_url is None
        else f"""\
[store]
url = "{s.store_url}"
[fleet]
host_id = "{host_id}"
lease_ttl = "{round(s.lease_ttl_s * 1000)}ms"
lease_renew = "{round(s.lease_renew_s * 1000)}ms"
"""
    )
    return (
        f"""\
log_level = "info"
log_format = "json"
[github]
api_url = "{base_url}"
timeout = "2s"
[monitor]
poll_interval = "{s.poll_s}s"
budget_share = 1.0
permission_retries = ["1s", "2s", "4s"]
[wake]
wake_min_gap = "{s.gap_s}s"
wakes_per_hour = {s.wakes_per_hour}
wake_hour_window = "{s.hour_s}s"
wakes_per_day = {s.wakes_per_day}
wake_day_window = "{s.day_s}s"
floor_lag = "60s"
[delivery]
scan_interval = "1s"
backoff_base = "1s"
backoff_cap = "2s"
reaction_backoff_base = "1s"
reaction_backoff_cap = "2s"
"""
        + fleet
    )


@dataclass(frozen=True)
class _Event:
    at: float
    kind: str  # trusted, stranger, bot, stranger-review, verdict
    pr: int
    author: str


def story(s: Settings) -> list[_Event]:
    """The seeded schedule: every kind spread at random over ``story_seconds``."""
    rng = random.Random(s.seed)
    events: list[_Event] = []

    def add(kind: str, count: int, authors: tuple[str, ...]) -> None:
        for _ in range(count):
            at = rng.uniform(0.5, s.story_seconds)
            events.append(_Event(at, kind, rng.randint(1, s.prs), rng.choice(authors)))

    add("trusted", s.trusted, WRITERS)
    add("stranger", s.untrusted // 2, STRANGERS)
    add("bot", s.untrusted - s.untrusted // 2 - s.untrusted // 4, BOTS)
    add("stranger-review", s.untrusted // 4, STRANGERS)
    add("verdict", s.verdicts, WRITERS)
    events.sort(key=lambda e: e.at)
    return events


def faults(rng: random.Random, prs: int) -> tuple[str, Fault]:
    """One fault, drawn from the kinds GitHub throws at a long-running daemon."""
    choice = rng.randrange(6)
    if choice == 0:
        return "5xx", Fault.server_error(rng.choice((500, 502, 503)), kind="badge")
    if choice == 1:
        return "5xx", Fault.server_error(502, kind=rng.choice(("detail", "permission")))
    if choice == 2:
        return "timeout", Fault.time_out(kind=rng.choice(("badge", "detail", "reaction")))
    if choice == 3:
        return "secondary-limit", Fault.secondary_limit(retry_after=1, kind="badge")
    if choice == 4:
        pr = rng.randint(1, prs)
        error = {"type": "INTERNAL", "message": "partial", "path": ["r0", f"p{pr}"]}
        return "partial-graphql", Fault.graphql_errors(error, kind="badge")
    return "5xx", Fault.server_error(503, kind="other")


@dataclass(frozen=True)
class Host:
    """One daemon's files: its state directory, configuration and log."""

    host_id: str
    state_dir: Path
    config: Path
    log: Path


class World:
    def __init__(self, s: Settings, workdir: Path) -> None:
        self.s = s
        self.workdir = workdir
        if s.store_url is None:
            self.hosts = [
                Host("", workdir / "state", workdir / "config.toml", workdir / "daemon.log")
            ]
        else:
            self.hosts = [
                Host(
                    f"h{k}", workdir / f"state-h{k}", workdir / f"h{k}.toml", workdir / f"h{k}.log"
                )
                for k in range(1, s.hosts + 1)
            ]
        self.fake = FakeGitHub(viewer=VIEWER, token=TOKEN, hang_seconds=2.5, graphql_limit=100_000)
        self.prs: list[PrRef] = []
        for n in range(1, s.prs + 1):
            self.prs.append(self.fake.add_pr(REPO, n, title=f"Change {n}"))
        for login in WRITERS:
            self.fake.set_permission(REPO, login, "write")
        for login in STRANGERS:
            self.fake.set_permission(REPO, login, "read")
        self.fake.set_permission(REPO, VIEWER, "write")
        self.ids: dict[str, set[str]] = defaultdict(set)  # kind -> node ids
        self.taken: list[Notice] = []
        self._stop = threading.Event()

    def worker(self, pr: int) -> str:
        return f"w{pr}"

    def host_of(self, pr: PrRef) -> Host:
        """The host ``pr``'s worker is bound on: the PRs dealt out in turn."""
        return self.hosts[(pr.number - 1) % len(self.hosts)]

    def write_configs(self, base_url: str) -> None:
        for host in self.hosts:
            host.config.write_text(config_text(self.s, base_url, host.host_id), encoding="utf-8")

    def bind(self) -> None:
        fleet = self.s.store_url is not None
        for host in self.hosts:
            with Registry.open(
                host.state_dir, store=self.s.store_url, host_id=host.host_id if fleet else None
            ) as registry:
                lead = f"lead-{host.host_id}" if fleet else "lead"
                registry.add_orchestrator(lead, InboxSpec())
                for pr in self.prs:
                    if self.host_of(pr) == host:
                        registry.bind(
                            self.worker(pr.number), pr, orchestrator=lead, publisher=InboxSpec()
                        )

    def env(self) -> dict[str, str]:
        dropped = ("GH_TOKEN", "GITHUB_TOKEN", "COMMENT_WAKE_STATE_DIR", "COMMENT_WAKE_CONFIG")
        env = {k: v for k, v in os.environ.items() if k not in dropped}
        env.update(
            GH_TOKEN=TOKEN,
            HOME=str(self.workdir / "home"),
            XDG_STATE_HOME=str(self.workdir / "xdg-state"),
            XDG_CONFIG_HOME=str(self.workdir / "xdg-config"),
            PYTHONUNBUFFERED="1",
        )
        return env

    def start(self, host: Host) -> subprocess.Popen[bytes]:
        with host.log.open("ab") as log:
            return subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "comment_wake",
                    "run",
                    "--config",
                    str(host.config),
                    "--state-dir",
                    str(host.state_dir),
                ],
                env=self.env(),
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=log,
            )

    def logs(self) -> str:
        return "".join(
            h.log.read_text(encoding="utf-8", errors="replace")
            for h in self.hosts
            if h.log.exists()
        )

    # -- the worker side: a hook draining every inbox, as a live session would --------

    def drain(self) -> None:
        for pr in self.prs:
            root = self.host_of(pr).state_dir / "inbox"
            self.taken.extend(take(root, self.worker(pr.number)))

    def drainer(self) -> None:
        while not self._stop.is_set():
            self.drain()
            self._stop.wait(0.3)

    # -- GitHub's side -----------------------------------------------------------------

    def post(self, e: _Event) -> None:
        pr = self.prs[e.pr - 1]
        n = len(self.ids[e.kind]) + 1
        if e.kind in ("trusted", "stranger", "bot"):
            node = self.fake.post_comment(pr, e.author, f"{e.kind} comment {n} on #{e.pr}")
        elif e.kind == "stranger-review":
            node = self.fake.post_review(pr, e.author, "APPROVED", f"lgtm {n}")
        else:
            node = self.fake.post_review(pr, e.author, "CHANGES_REQUESTED", f"please fix {n}")
        self.ids[e.kind].add(node)

    def poster(self, events: list[_Event], t0: float, proof: Proof) -> None:
        rng = random.Random(self.s.seed + 1)
        next_fault = t0 + self.s.fault_every_s
        for e in events:
            while True:
                now = time.monotonic()
                if now >= next_fault:
                    name, fault = faults(rng, self.s.prs)
                    self.fake.inject(fault)
                    proof.faults[name] += 1
                    next_fault = now + rng.uniform(0.5, 2 * self.s.fault_every_s)
                if now >= t0 + e.at or self._stop.is_set():
                    break
                time.sleep(min(0.05, max(0.0, t0 + e.at - now)))
            if self._stop.is_set():
                return
            self.post(e)


def run_proof(s: Settings, workdir: Path, *, log: Any = None) -> Proof:
    proof = Proof()
    started = time.monotonic()
    world = World(s, workdir)
    world.bind()
    events = story(s)
    rng = random.Random(s.seed + 2)
    with world.fake.serve_in_thread() as base_url:
        world.write_configs(base_url)
        # The first run takes each PR's baseline before the story starts.
        procs = {host: world.start(host) for host in world.hosts}
        try:
            _play(world, procs, events, rng, proof, log)
        finally:
            world._stop.set()
            for proc in procs.values():
                if proc.poll() is None:
                    proc.kill()
                    proc.wait(timeout=30)
    _judge(world, proof)
    proof.leaked_token = TOKEN in world.logs()
    proof.readers = [h.host_id for h in world.hosts if _reader_terms(h)]
    proof.seconds = round(time.monotonic() - started, 1)
    return proof


def _play(
    world: World,
    procs: dict[Host, subprocess.Popen[bytes]],
    events: list[_Event],
    rng: random.Random,
    proof: Proof,
    log: Any,
) -> None:
    """The story, the kills, then the last runs' delivery and a clean stop."""
    s = world.s
    _wait_for_round(world, procs, timeout=30.0)
    t0 = time.monotonic()
    poster = threading.Thread(target=world.poster, args=(events, t0, proof), daemon=True)
    drainer = threading.Thread(target=world.drainer, daemon=True)
    poster.start()
    drainer.start()
    kill_every = min(1.4, s.story_seconds / s.kills)
    handed_over = len(world.hosts) == 1
    while proof.kills < s.kills:
        # Past the interpreter's start (~0.7 s), then anywhere in a few polls.
        pause = rng.uniform(0.7, 0.7 + 2 * kill_every)
        victim = world.hosts[0] if len(world.hosts) == 1 else rng.choice(world.hosts)
        _kill(procs, victim, pause)
        proof.kills += 1
        proof.killed[victim.host_id] += 1
        if not handed_over and _reader(world) is victim:
            # A restarted reader campaigns within ~1 s of its kill, about when its lease
            # lapses, and often takes it back before the other host's next campaign.
            # Once, the restart waits until another host reads, so every run fails over.
            _wait_for_reader(world, procs, other_than=victim, timeout=10 * s.lease_ttl_s + 5)
            handed_over = True
        procs[victim] = world.start(victim)
        if log is not None and proof.kills % 10 == 0:
            log(f"{proof.kills} kills, {time.monotonic() - t0:.0f}s")
    poster.join()  # the story is over; the last runs deliver what is left
    deadline = time.monotonic() + s.settle_seconds
    trusted = world.ids["trusted"]
    while time.monotonic() < deadline:
        if trusted <= _woken(world):
            break
        time.sleep(0.5)
    time.sleep(2 * s.poll_s + 1)  # a late duplicate would show up now
    for proc in procs.values():
        proc.send_signal(signal.SIGTERM)
    codes = [proc.wait(timeout=60) for proc in procs.values()]
    world._stop.set()
    drainer.join()
    world.drain()
    if any(codes):
        raise AssertionError(f"the final runs exited {codes}; see the logs in {world.workdir}")


def _kill(procs: dict[Host, subprocess.Popen[bytes]], victim: Host, pause: float) -> None:
    """SIGKILL ``victim``'s daemon after ``pause`` seconds.  A daemon that exits on its own
    meanwhile fails the proof."""
    deadline = time.monotonic() + pause
    while (left := deadline - time.monotonic()) > 0:
        time.sleep(min(left, 0.1))
        for host, proc in procs.items():
            if proc.poll() is not None:
                raise AssertionError(f"the daemon exited {proc.returncode}; see {host.log}")
    procs[victim].send_signal(signal.SIGKILL)
    procs[victim].wait(timeout=30)


_READS_FOR = re.compile(r"this host reads for \S+ \(term (\d+)\)")


def _reader_terms(host: Host) -> list[int]:
    """The reader terms ``host`` took, from its log."""
    text = host.log.read_text(encoding="utf-8", errors="replace") if host.log.exists() else ""
    return [int(m.group(1)) for m in _READS_FOR.finditer(text)]


def _reader(world: World) -> Host | None:
    """The host that took the reader lease last (the highest term), if any did."""
    best: tuple[int, Host] | None = None
    for host in world.hosts:
        for term in _reader_terms(host):
            if best is None or term > best[0]:
                best = (term, host)
    return None if best is None else best[1]


def _wait_for_reader(
    world: World, procs: dict[Host, subprocess.Popen[bytes]], *, other_than: Host, timeout: float
) -> None:
    """Until a host other than ``other_than`` takes the reader lease."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        reader = _reader(world)
        if reader is not None and reader is not other_than:
            return
        for host, proc in procs.items():
            if host is not other_than and proc.poll() is not None:
                raise AssertionError(f"the daemon exited {proc.returncode}; see {host.log}")
        time.sleep(0.1)
    raise AssertionError(f"no other host took the reader lease; see the logs in {world.workdir}")


def _wait_for_round(
    world: World, procs: dict[Host, subprocess.Popen[bytes]], timeout: float
) -> None:
    """Until a daemon (in a fleet, the reader) logs its first poll round."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if "poll round:" in world.logs():
            return
        if any(proc.poll() is not None for proc in procs.values()):
            break
        time.sleep(0.1)
    raise AssertionError(f"no first poll round; see the logs in {world.workdir}")


def _inbox_notices(world: World) -> list[Notice]:
    """Everything the workers took, and whatever is still pending."""
    found = list(world.taken)
    for host in world.hosts:
        for path in (host.state_dir / "inbox").glob("*/new/*.json"):
            found.append(msgspec.json.decode(path.read_bytes(), type=Notice))
    return found


def _woken(world: World) -> set[str]:
    world.drain()
    return {i.id for n in world.taken if n.kind == "comment-wake" for i in n.items}


def _judge(world: World, proof: Proof) -> None:
    s = world.s
    notices = _inbox_notices(world)
    proof.notices = len(notices)
    wakes = [n for n in notices if n.kind == "comment-wake"]
    proof.wakes = len(wakes)
    counts = Counter(i.id for n in wakes for i in n.items)
    trusted = world.ids["trusted"]
    proof.trusted = len(trusted)
    proof.lost = sorted(trusted - set(counts))
    proof.duplicated = sorted(i for i, c in counts.items() if c > 1)
    untrusted = world.ids["stranger"] | world.ids["bot"] | world.ids["stranger-review"]
    everywhere = {i.id for n in notices for i in n.items}
    proof.untrusted_delivered = sorted(
        (untrusted & everywhere) | (world.ids["verdict"] & set(counts)) | (set(counts) - trusted)
    )
    by_pr: dict[tuple[str, int], list[datetime]] = defaultdict(list)
    for n in wakes:
        by_pr[(n.pr.repo, n.pr.number)].append(n.created_at)
    gap = timedelta(seconds=s.gap_s)
    windows = (
        (timedelta(seconds=s.hour_s), s.wakes_per_hour),
        (timedelta(seconds=s.day_s), s.wakes_per_day),
    )
    for pr, times in sorted(by_pr.items()):
        times.sort()
        for a, b in itertools.pairwise(times):
            if b - a < gap:
                proof.rate_limit_violations.append(f"{pr}: wakes {a} and {b} closer than {gap}")
        for window, most in windows:
            for k, t in enumerate(times):
                inside = [u for u in times[k:] if u - t < window]
                if len(inside) > most:
                    proof.rate_limit_violations.append(
                        f"{pr}: {len(inside)} wakes within {window} from {t}"
                    )
