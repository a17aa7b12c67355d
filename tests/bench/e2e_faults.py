"""The long kill proof: the end-to-end harness with at least 100 SIGKILLs (not collected).

    .venv/bin/python tests/bench/e2e_faults.py [--kills 100] [--seed 7] [--keep DIR]

Plays a longer story than the test (``tests/e2e/harness.py``) against the daemon as a
subprocess, FakeGitHub on loopback and injected faults, killing and restarting the daemon
``--kills`` times, and prints as its last line one JSON object:
``{"kills", "trusted", "lost", "duplicated", "untrusted_delivered", "rate_limit_violations"}``.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import tempfile
from pathlib import Path
from types import ModuleType

_HARNESS = Path(__file__).resolve().parent.parent / "e2e" / "harness.py"


def _harness() -> ModuleType:
    spec = importlib.util.spec_from_file_location("comment_wake_e2e_harness", _HARNESS)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=100)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--prs", type=int, default=20)
    parser.add_argument("--keep", type=Path, default=None, help="keep the run's files here")
    args = parser.parse_args()
    h = _harness()
    # The story spans the kills (about 2 s each), so comments keep arriving throughout.
    settings = h.Settings(
        seed=args.seed,
        prs=args.prs,
        trusted=max(110, 3 * args.kills),
        untrusted=max(40, args.kills),
        verdicts=max(8, args.kills // 10),
        story_seconds=1.6 * args.kills,
        kills=args.kills,
    )
    workdir = args.keep or Path(tempfile.mkdtemp(prefix="comment-wake-e2e-"))
    workdir.mkdir(parents=True, exist_ok=True)
    proof = h.run_proof(settings, workdir, log=lambda m: print(m, file=sys.stderr))
    print(
        f"{proof.seconds}s, {proof.notices} notices ({proof.wakes} wakes), faults "
        f"{dict(proof.faults)}, files {workdir}"
    )
    for what in ("lost", "duplicated", "untrusted_delivered", "rate_limit_violations"):
        for line in getattr(proof, what)[:5]:
            print(f"{what}: {line}")
    print(json.dumps(proof.figures()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
