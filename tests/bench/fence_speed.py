"""Benchmark of untrusted_fence.fence (a script, not a test): prints one JSON line last.

    .venv/bin/python tests/bench/fence_speed.py [SIZE_KIB]

SIZE_KIB (default 1024) is the small input's size; the large one is twice that.

Plain: realistic Markdown comment text and CI log text.  Adversarial families: N and 2N whole
repetitions of one pathological fragment, N the most that fit in 1 MiB.  Sizes count code
points (2**20 per MiB).

Honest work: fence() drops raw input beyond max(8 * max_chars, 65536) characters before doing
anything, so every call here passes max_chars = 8 * len(text) (the raw cap is then 64 times the
input) and the script checks that nothing was truncated: every character is processed.  A sample
calls the text (for a family, its two sizes in turns) until each has used at least 0.5 s of CPU
time; each figure is the best of five samples, and linearity is the median over the rounds of
t(2N)/t(N), the two measured side by side in the round, all in this one run.  Every call is
cold: the fence remembers the views and scans of the last few long texts (one call asks for
them several times), and a call on an equal text would find them, so they are emptied
before each call (``untrusted_fence._recent.forget``; a repeated text measured 5.6 MiB/s on
the plain comment where a fresh one measured 3.8).  The JSON keys
the issue asks for are computed from CPU time (``time.process_time``), which load on a shared
machine moves less than the wall clock; the same figures from the wall clock are under ``"wall"``,
and ``"plain_fastest_call"`` is the plain texts' fastest single call (a mean over half a
second takes in whatever the host's neighbours do meanwhile).
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass

from untrusted_fence import _recent, fence

MIB = 1 << 20
COMMENT = (
    "Looks good overall! A few notes on `src/app.py`:\n\n"
    "- please rename `fetch_all` before merging; see [the docs](https://example.com/d).\n"
    "- the backend retries 3 times, which is fine.\n\n"
    "```python\ndef f(x: int) -> int:\n    return x + 1  # café, naïve, 日本語\n```\n\n"
    "> quoted reply from @bob\n\nThanks! 🎉\n\n"
)
CI_LOG = (
    "2026-01-01T10:00:00.000Z \x1b[36;1mRun pytest -q\x1b[0m\n"
    "2026-01-01T10:00:01.000Z ........................................ [ 50%]\n"
    "2026-01-01T10:00:02.000Z \x1b[31mFAILED\x1b[0m tests/test_x.py::test_y - assert 1 == 2\n"
    "##[group]Details\nE   AssertionError: expected 1, got 2\n##[endgroup]\n"
)
FAMILIES = {
    "html_comment_open": "<!--",
    "bracket": "[",
    "image_open": "![",
    "entity_open": "&#",
    "esc_bracket": "\x1b[",
    "backtick": "`",
    "footnote_open": "[^",
    "blockquote": ">",
    "mixed_invisible": "\u200b\u2062\U000e0041\ufe0f\u202e\u00ad\u3164",
    # The four super-linear paths of issue 12 (the regional indicators are a cut: see _run).
    "end_then_equals": "=",
    "s_comment_lines": "<s><!-->\n",
    "s_comment_one_line": "<s><!-->",
    "regional_cut": "\U0001f1ea",
    # Texts full of markers: every line goes through the rewrite.
    "role_lines": "Human: x\n",
    "own_syntax": "<<<untrusted-comment-end 0123>>>\n",
    "split_by_markup": "E<b>N</b>D UNTRUSTED\n",
    "entity_split": "EN&shy;D UNTRUSTED\n",
    "angle": "<",
}
# Families measured with a prefix, and the one measured as a cut (max_chars half the text).
PREFIX = {"end_then_equals": "end\n"}
CUT = {"regional_cut"}


def _fill(fragment: str, size: int) -> str:
    return (fragment * (size // len(fragment) + 1))[:size]


def _family(name: str, size: int, times: int = 1) -> str:
    """The family's prefix and ``times`` x N whole repetitions of its fragment, N the most
    that fit in ``size`` with the prefix.  Whole repetitions, as the issue writes the families
    (``"<s><!-->\n" * N``): a text cut inside a fragment ends in a different tail at each size
    (an unclosed ``<!--`` at one size, a visible ``<!-`` at the other), which can send the
    two sizes down different paths, and their ratio would not measure linearity."""
    prefix, fragment = PREFIX.get(name, ""), FAMILIES[name]
    return prefix + fragment * ((size - len(prefix)) // len(fragment) * times)


MAX_CHARS_FACTOR = 8
# A sample repeats the call until it has taken this much CPU time, and the figure of a text is
# the best of SAMPLES samples: a 0.1 s call alone is at the mercy of one scheduler hiccup.
MIN_SAMPLE_S = 0.5
SAMPLES = 5


@dataclass(frozen=True)
class Timing:
    """Seconds per call: CPU time of this process and wall-clock time."""

    cpu: float
    wall: float


def _run(text: str) -> None:
    if text[:1] == "\U0001f1ea":
        # The cut family: max_chars is half the text (the raw cap, 8 x max_chars, keeps all).
        if not fence(text, kind="check-output", max_chars=len(text) // 2).truncated:
            raise SystemExit("the cut family was not cut")
        return
    fenced = fence(text, kind="check-output", max_chars=len(text) * MAX_CHARS_FACTOR)
    if fenced.truncated:
        raise SystemExit("input was truncated: the figures would not measure all of it")


def _rounds(*texts: str) -> tuple[list[list[Timing]], list[float]]:
    """SAMPLES rounds; in each, the texts are called in turns (A B, B A, A B, ...) until every
    text has used MIN_SAMPLE_S of CPU time, and each text's figure is its mean per call.  Calls
    side by side see the same load, so a ratio of two texts' figures in one round compares
    like with like (samples taken one after the other can pair a quiet second with a busy
    one).  Also the CPU time of each text's fastest single call over all rounds."""
    rounds = []
    fastest = [float("inf")] * len(texts)
    for _ in range(SAMPLES):
        cpu, wall, calls = [0.0] * len(texts), [0.0] * len(texts), 0
        while min(cpu) < MIN_SAMPLE_S:
            order = range(len(texts)) if calls % 2 == 0 else reversed(range(len(texts)))
            for i in order:
                _recent.forget()  # each call pays for its own views (see the docstring)
                cpu0, wall0 = time.process_time(), time.perf_counter()
                _run(texts[i])
                spent = time.process_time() - cpu0
                cpu[i] += spent
                fastest[i] = min(fastest[i], spent)
                wall[i] += time.perf_counter() - wall0
            calls += 1
        rounds.append([Timing(c / calls, w / calls) for c, w in zip(cpu, wall, strict=True)])
    return rounds, fastest


def _best(rounds: list[list[Timing]], i: int) -> Timing:
    return Timing(min(r[i].cpu for r in rounds), min(r[i].wall for r in rounds))


def _figures(
    clock: str, plain: dict[str, Timing], families: dict[str, list[list[Timing]]]
) -> dict[str, object]:
    fams: dict[str, dict[str, float]] = {}
    for name, rounds in families.items():
        t1, t2 = getattr(_best(rounds, 0), clock), getattr(_best(rounds, 1), clock)
        # Linearity from the two sizes measured side by side in the same round (the median
        # over the rounds): a ratio of two best times can pair a quiet moment with a busy one.
        ratios = sorted(getattr(r[1], clock) / getattr(r[0], clock) for r in rounds)
        fams[name] = {
            "mib_per_s": round(1 / t1, 2),
            "t_1mib_s": round(t1, 4),
            "t_2mib_s": round(t2, 4),
            "linearity": round(ratios[len(ratios) // 2], 3),
        }
    plain_rates = {name: round(1 / getattr(t, clock), 2) for name, t in plain.items()}
    return {
        "mib_per_s_plain": min(plain_rates.values()),
        "mib_per_s_adversarial": min(f["mib_per_s"] for f in fams.values()),
        "linearity": max(f["linearity"] for f in fams.values()),
        "families": fams,
        "plain": plain_rates,
    }


def main() -> None:
    # Optional: the size of the small input in KiB (default 1 MiB), for a quicker run; the
    # figures are still MiB/s and t(2x)/t(x).
    size = int(sys.argv[1]) * 1024 if len(sys.argv) > 1 else MIB
    scale = size / MIB
    print(
        f"max_chars = {MAX_CHARS_FACTOR} x input size: no raw input is dropped and no output "
        f"truncated (checked), so every character is processed; each figure is the best of "
        f"{SAMPLES} samples of at least {MIN_SAMPLE_S} s CPU time"
    )
    plain = {}
    fastest_plain = {}
    for name, sample in (("comment", COMMENT), ("ci_log", CI_LOG)):
        rounds, fastest = _rounds(_fill(sample, size))
        best = _best(rounds, 0)
        plain[name] = Timing(best.cpu / scale, best.wall / scale)
        fastest_plain[name] = round(scale / fastest[0], 2)
        print(
            f"plain {name}: {1 / plain[name].cpu:.2f} MiB/s cpu, {1 / plain[name].wall:.2f} wall; "
            f"fastest single call {fastest_plain[name]:.2f} cpu"
        )
    families = {}
    for name in FAMILIES:
        small = _family(name, size)
        rounds, _ = _rounds(small, _family(name, size, times=2))
        # Seconds per MiB of the small text (a fragment or so short of ``size``).
        per = len(small) / MIB
        families[name] = [[Timing(t.cpu / per, t.wall / per) for t in r] for r in rounds]
        one = _best(families[name], 0)
        ratios = sorted(r[1].cpu / r[0].cpu for r in families[name])
        print(
            f"{name}: {1 / one.cpu:.2f} MiB/s cpu ({1 / one.wall:.2f} wall), "
            f"t(2 MiB)/t(1 MiB) per round (cpu) {[round(x, 3) for x in ratios]}"
        )
    # The keys come from CPU time (stable on a shared machine); "wall" has the same
    # figures from the wall clock.
    result = _figures("cpu", plain, families)
    result["clock"] = "process_time"
    # (The fastest single call, as timeit's documentation reads a minimum: what the code costs
    # when nothing interferes.  On a shared host, identical cold calls have been seen to take
    # from 10.6 to 21 ms within seconds, so the means above include the neighbours' load.)
    result["plain_fastest_call"] = fastest_plain
    result["wall"] = _figures("wall", plain, families)
    result["max_chars_factor"] = MAX_CHARS_FACTOR
    print(json.dumps(result))


if __name__ == "__main__":
    main()
