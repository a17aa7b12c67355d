"""The long crash run (a script, not a test): prints one JSON line last.

    .venv/bin/python tests/bench/delivery_crash.py [--notices 400] [--per-point 10]
        [--random-kills 40] [--seed 11]

The same machinery as ``tests/delivery/crash``: delivery runs in a subprocess on one store,
SIGKILLed at random moments and at each named kill point (the driver's wrappers), restarted
each time; a loopback webhook receiver that keeps repeats counts every POST by
``Idempotency-Key``.  The last
line is ``{"kills", "kill_points", "min_hits_per_point", "notices", "lost", "duplicated",
"redeliveries"}``: ``lost`` counts notices that never took effect, ``duplicated`` notices
that took effect more than once after de-duplication by key, ``redeliveries`` the raw
repeats the receiver dropped.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType

from review_monitor.testing import FakeGitHub

HARNESS = Path(__file__).resolve().parent.parent / "delivery" / "crash" / "harness.py"


def load_harness() -> ModuleType:
    spec = importlib.util.spec_from_file_location("comment_wake_crash_harness", HARNESS)
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot load {HARNESS}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notices", type=int, default=400)
    parser.add_argument("--per-point", type=int, default=10)
    parser.add_argument("--random-kills", type=int, default=40)
    parser.add_argument("--workers", type=int, default=6)
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args()
    harness = load_harness()
    points = harness.KILL_POINTS
    started = time.monotonic()
    fake = FakeGitHub()
    batches, planned = harness.build_plan(
        fake, notices=args.notices, workers=args.workers, seed=args.seed
    )
    receiver = harness.Receiver(busy_rate=0.35, seed=args.seed)
    with (
        tempfile.TemporaryDirectory() as tmp,
        fake.serve_in_thread() as github_url,
        harness.serve(receiver),
    ):
        runner = harness.Runner(Path(tmp), receiver, github_url, batches, seed=args.seed)
        runner.crash_many(
            per_point=args.per_point,
            random_kills=args.random_kills,
            max_runs=4 * (args.per_point * len(points) + args.random_kills),
        )
        runner.finish()
    figures = harness.verdict(receiver, planned)
    tally = runner.tally
    print(
        f"{runner.runs} runs, {tally.random_kills} random kills, per point "
        f"{dict(tally.point_kills)}, {time.monotonic() - started:.1f}s",
        file=sys.stderr,
    )
    print(
        json.dumps(
            {
                "kills": tally.kills,
                "kill_points": len(points),
                "min_hits_per_point": min(tally.point_kills[p] for p in points),
                "notices": len(planned),
                "lost": figures["lost"],
                "duplicated": figures["duplicated"],
                "redeliveries": figures["redeliveries"],
            }
        )
    )


if __name__ == "__main__":
    main()
