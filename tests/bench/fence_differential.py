"""Differential run (a script, not a test): N generated documents through the oracle's
independent walk of GitHub's rendering (cmark-gfm, an HTML5 parser and GitHub's sanitizer
allowlist: tests/fence/_oracle.py) and through the fence's view; prints JSON figures:
documents, tokens GitHub hides, documents with a token placed wrongly (shown more or fewer
times than GitHub shows it, or missing from a target GitHub keeps), seconds, those tokens by
the piece that made them, and the first such documents minimised.

    .venv/bin/python tests/bench/fence_differential.py [N] [SEED]

N defaults to 100,000 and SEED to 12; the pieces are the suite's (tests/fence/_oracle.py).
"""

from __future__ import annotations

import json
import random
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "fence"))

from _oracle import PIECES, generate, leaks, minimise  # type: ignore[import-not-found]


def main() -> None:
    args = sys.argv[1:]
    n = int(args[0]) if args else 100_000
    seed = int(args[1]) if len(args) > 1 else 12
    rng = random.Random(seed)
    found: list[tuple[str, list[str]]] = []
    by_piece: Counter[str] = Counter()
    hidden_tokens = 0
    start = time.perf_counter()
    for _ in range(n):
        doc = generate(rng, PIECES)
        hidden, wrong = leaks(doc.text, doc.tokens)
        hidden_tokens += len(hidden)
        if wrong:
            found.append((doc.text, wrong))
            by_piece.update(doc.origin[doc.tokens.index(t)] for t in wrong)
    seconds = time.perf_counter() - start
    first = [
        {"doc": text, "misplaced": wrong, "minimal": minimise(text, wrong)}
        for text, wrong in found[:8]
    ]
    result = {
        "documents": n,
        "seed": seed,
        "pieces": len(PIECES),
        "tokens_github_hides": hidden_tokens,
        "documents_with_a_misplaced_token": len(found),
        "seconds": round(seconds, 1),
        "misplaced_tokens_by_piece": dict(by_piece.most_common()),
        "first_misplaced": first,
    }
    print(json.dumps(result, ensure_ascii=False, indent=1))


if __name__ == "__main__":
    main()
