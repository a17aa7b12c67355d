"""What each shortcut of the fence buys (a script, not a test): prints one JSON line last.

    .venv/bin/python tests/bench/fence_shortcuts.py [--calls N]

Each shortcut is a necessary-condition test or a fast path that leaves the output unchanged
(checked here: the fenced body with the shortcut off equals the body with it on).  For each,
the plain 64 KiB comment (and the text the shortcut is about) is fenced with the shortcut on
and off in turns (A B A B ...), and the fastest call of each is kept: the figure is off / on.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import untrusted_fence as uf
from untrusted_fence import _chars, _fence, _render, _settle

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fence_speed import COMMENT  # type: ignore[import-not-found]

_ALWAYS = re.compile("")


@contextmanager
def _patched(module: object, name: str, value: object) -> Iterator[None]:
    old = getattr(module, name)
    setattr(module, name, value)
    try:
        yield
    finally:
        setattr(module, name, old)


# Each shortcut: what it is, and how to turn it off.
SHORTCUTS: dict[str, tuple[str, Callable[[], object]]] = {
    "second_render_prefilter": (
        "the positioned render runs only when the text may hold info words, a table or `]:`",
        lambda: _patched(_render, "_INFO_WORDS_RE", _ALWAYS),
    ),
    "printable_ascii_needs_no_cleaning": (
        "a piece of printable ASCII without a run of 33 spaces is not cleaned (it is clean)",
        lambda: _patched(_settle, "_LONG_SPACE", ""),
    ),
    "kept_and_nfkc_needs_no_translation": (
        "a non-ASCII piece whose characters are all kept, already NFKC, is not translated",
        lambda: _patched(_chars, "_all_kept", lambda chars: False),
    ),
    "source_line_reach": (
        "the source line is settled with the view's first 100 words, not the whole view",
        lambda: _patched(_fence, "_joins_a_marker", lambda pieces: True),
    ),
}


def _fastest(text: str, calls: int, off: Callable[[], object] | None) -> tuple[float, str]:
    best, body = float("inf"), ""
    for _ in range(calls):
        start = time.process_time()
        if off is None:
            body = uf.fence(text, source="@alice", rng=random.Random(1)).body
        else:
            with off():  # type: ignore[attr-defined]
                body = uf.fence(text, source="@alice", rng=random.Random(1)).body
        best = min(best, time.process_time() - start)
    return best * 1000, body


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=7)
    args = parser.parse_args()
    plain = (COMMENT * (64 * 1024 // len(COMMENT) + 1))[: 64 * 1024]
    result: dict[str, object] = {}
    for name, (what, off) in SHORTCUTS.items():
        on_ms, off_ms = [], []
        for _ in range(3):
            ms_on, body_on = _fastest(plain, args.calls, None)
            ms_off, body_off = _fastest(plain, args.calls, off)
            if body_on != body_off:
                raise SystemExit(f"{name}: the output differs with the shortcut off")
            on_ms.append(ms_on)
            off_ms.append(ms_off)
        on, off_best = min(on_ms), min(off_ms)
        result[name] = {"what": what, "on_ms": round(on, 2), "off_ms": round(off_best, 2),
                        "off_over_on": round(off_best / on, 2)}  # fmt: skip
        print(f"{name}: on {on:.1f} ms, off {off_best:.1f} ms ({what})")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
