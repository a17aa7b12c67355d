"""CPU-time ratios for the fence's linear-time tests on a shared machine."""

from __future__ import annotations

import time
from collections.abc import Callable

__all__ = ["cpu_ratio"]


def cpu_ratio(large: Callable[[], object], small: Callable[[], object], rounds: int = 5) -> float:
    """Best CPU time of ``large`` over the best of ``small``, the two timed in turns (so a
    change of load on the shared machine hits both alike)."""
    best = {large: float("inf"), small: float("inf")}
    for _ in range(rounds):
        for function in (small, large):
            start = time.process_time()
            function()
            best[function] = min(best[function], time.process_time() - start)
    return best[large] / max(best[small], 1e-9)
