"""Differential run (a script, not a test): N generated documents through cmark-gfm plus an
HTML parser (the oracle of tests/fence/test_differential.py) and through the fence; prints
how many documents left a token that GitHub hides visible, and the first few of them.

    .venv/bin/python tests/bench/fence_differential.py [N] [SEED]
"""

from __future__ import annotations

import json
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "fence"))

from test_differential import PIECES, SEPARATORS, build, shown  # type: ignore[import-not-found]

import untrusted_fence as uf


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 12)
    leaks: list[dict[str, object]] = []
    hidden_tokens = 0
    start = time.perf_counter()
    for _ in range(n):
        choices = [
            (rng.randrange(len(PIECES)), rng.randrange(len(SEPARATORS)))
            for _ in range(rng.randint(1, 8))
        ]
        doc, tokens = build(choices)
        seen = shown(doc)
        visible = uf.visible_text(doc)
        hidden = [t for t in tokens if t not in seen]
        hidden_tokens += len(hidden)
        leaked = [t for t in hidden if t in visible]
        if leaked:
            leaks.append({"doc": doc, "leaked": leaked})
    result = {
        "documents": n,
        "tokens_github_hides": hidden_tokens,
        "documents_with_a_leak": len(leaks),
        "seconds": round(time.perf_counter() - start, 1),
        "first_leaks": leaks[:5],
    }
    print(json.dumps(result, ensure_ascii=False))


if __name__ == "__main__":
    main()
