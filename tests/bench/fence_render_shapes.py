"""What GitHub's renderer costs on pathological comment shapes (a script, not a test).

    PYTHONPATH=fence/src .venv/bin/python tests/bench/fence_render_shapes.py [FAMILY ...]

For each shape family, texts of 16, 32 and 64 KiB (code points; whole repetitions of the
family's fragment, the shape kept whole) go through what the new fence does to render a comment:
cmark-gfm (GitHub's options, as ``tests/fence/_oracle.py`` and the fence call it), a lexbor
fragment parse of its HTML, and a bare iterative walk over every node.  Each figure is CPU time
(``time.process_time``), best of 3 (one run only when a run takes over 2 s, to keep the script
short on a shared host).  Each line prints a family's milliseconds at the three sizes, the HTML's
size over the input's at 64 KiB, the factor over the plain comment at 64 KiB, and the guard
(``untrusted_fence._guards.guard``) that the 64 KiB text trips, if any.  The last line is one
JSON object: ``plain_ms_64k`` (the COMMENT of ``fence_speed.py`` repeated to 64 KiB) and, per
family, ``ms_64k``, ``html_ratio``, ``x_plain`` and ``guard``.  A family over the bounds
(50 x the plain time, 20 x the input's size in HTML) must be guarded; ``unguarded_over`` lists
those that are not.  On a shared host the plain comment's best of 3 has moved from 2.0 to
5.1 ms between runs, and every ``x_plain`` with it: read a family near the bound over a few runs.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable

import cmarkgfm  # type: ignore[import-untyped]
from cmarkgfm.cmark import Options  # type: ignore[import-untyped]
from fence_speed import COMMENT, FAMILIES
from selectolax.lexbor import LexborHTMLParser

from untrusted_fence._guards import guard

KIB = 1024
SIZES = (16 * KIB, 32 * KIB, 64 * KIB)
OPTIONS = (
    Options.CMARK_OPT_UNSAFE
    | Options.CMARK_OPT_FOOTNOTES
    | Options.CMARK_OPT_SOURCEPOS
    | Options.CMARK_OPT_HARDBREAKS
)
TIME_BOUND = 50  # x the plain comment's time at 64 KiB
SIZE_BOUND = 20  # x the input's size, in HTML
REPEATS = 3
ONE_RUN_S = 2.0


def _repeat(fragment: str, head: str = "", tail: str = "") -> Callable[[int], str]:
    def build(size: int) -> str:
        return head + fragment * ((size - len(head) - len(tail)) // len(fragment)) + tail

    return build


def _lines(line: Callable[[int], str]) -> Callable[[int], str]:
    """Lines ``line(0)``, ``line(1)``, ... while they fit."""

    def build(size: int) -> str:
        out, used, i = [], 0, 0
        while used + len(line(i)) <= size:
            out.append(line(i))
            used += len(out[-1])
            i += 1
        return "".join(out)

    return build


def _table(columns: int, row: str) -> Callable[[int], str]:
    head = "|a" * columns + "|\n" + "|-" * columns + "|\n"
    return _repeat(row, head)


def _footnotes(size: int) -> str:
    # References to many footnotes, then their definitions.
    n = size // 24
    refs = "".join(f"x[^{i}]" for i in range(n))
    defs = "".join(f"\n\n[^{i}]: d" for i in range(n))
    return (refs + defs)[:size]


def _references(size: int) -> str:
    n = size // 26
    defs = "".join(f"[r{i}]: /u{i}\n" for i in range(n))
    refs = "".join(f"[x][r{i}] " for i in range(n))
    return (defs + "\n" + refs)[:size]


def _one_long_reference(size: int) -> str:
    # One definition with a long destination, referenced as often as the rest allows.
    half = size // 2
    return "[a]: /" + "x" * (half - 7) + "\n" + _repeat("[a]")(size - half)


def _formatting_clones(size: int) -> str:
    # 64 open formatting elements (distinct attributes defeat the Noah's Ark clause), then
    # paragraphs: the HTML parser reconstructs all of them in each paragraph.
    head = "".join(f"<b a={i}>" for i in range(64)) + "\n\n"
    return _repeat("x\n\n", head)(size)


def _filled(head: str) -> Callable[[int], str]:
    """``head`` (a shape just under a guard), then the plain comment."""
    return _repeat(COMMENT, head)


SHAPES: dict[str, Callable[[int], str]] = {
    "](": _repeat("]("),
    "[a](": _repeat("[a]("),
    "![a](": _repeat("![a]("),
    "](\\": _repeat("](\\"),
    "~a": _repeat("~a"),
    "*a": _repeat("*a"),
    "_a": _repeat("_a"),
    "`": _repeat("`"),
    "nested >": lambda size: ">" * (size - 2) + " x",
    "> repeated": _repeat("> ", tail="x"),
    "nested - lists": _repeat("- ", tail="x"),
    "indented lists": _lines(lambda i: "  " * i + "- x\n"),
    "nested <div>": _repeat("<div>"),
    "nested <details>": _repeat("<details>"),
    "<s><!--> lines": _repeat("<s><!-->\n"),
    "table 2000 columns": _table(2000, "x\n"),
    "table 200 columns": _table(200, "|x" * 200 + "|\n"),
    "footnotes": _footnotes,
    "link references": _references,
    "one long reference": _one_long_reference,
    "&#x41;": _repeat("&#x41;"),
    "<a href=x>": _repeat("<a href=x>"),
    "**a": _repeat("**a"),
    "a**": _repeat("a**"),
    "**a a**": _repeat("**a a** a**"),
    "| line": _repeat("|"),
    "<ul><li>": _repeat("<ul><li>"),
    "formatting clones": _formatting_clones,
    # Shapes at the guards' thresholds, and floods of one-character constructs.
    "quotes 64 deep, reopened": _repeat(">" * 64 + " x\n\n"),
    "containers just under": _filled((">" * 64 + " x\n\n") * 65),
    "table just under": _filled("|a" * 2000 + "|\n" + "|-" * 2000 + "|\n" + "x\n" * 24 + "\n"),
    "escaped end tags": _repeat("<ul><li>`</li></ul>`", "x "),
    ">>": _repeat(">>\n\n"),
    "-": _repeat("-\n"),
    "|x rows": _repeat("|x\n", "|a\n|-\n"),
}
SHAPES.update({f"fence_speed {name}": _repeat(fragment) for name, fragment in FAMILIES.items()})


def render_parse_walk(text: str) -> tuple[int, int]:
    """The HTML's size and the number of nodes walked."""
    html: str = cmarkgfm.github_flavored_markdown_to_html(text, options=OPTIONS)
    root = LexborHTMLParser(html, is_fragment=True).root
    nodes = 0
    if root is not None:
        for _ in root.traverse(include_text=True):
            nodes += 1
    return len(html), nodes


def measure(text: str) -> tuple[float, int, int]:
    """Best CPU milliseconds, HTML size, nodes."""
    best = float("inf")
    for _ in range(REPEATS):
        start = time.process_time()
        size, nodes = render_parse_walk(text)
        spent = time.process_time() - start
        best = min(best, spent)
        if spent > ONE_RUN_S:
            break
    return best * 1000, size, nodes


def main() -> None:
    names = sys.argv[1:] or list(SHAPES)
    plain = (COMMENT * (SIZES[-1] // len(COMMENT) + 1))[: SIZES[-1]]
    plain_ms, plain_html, plain_nodes = measure(plain)
    print(f"plain comment 64 KiB: {plain_ms:.1f} ms, html {plain_html / len(plain):.2f} x")
    families: dict[str, dict[str, object]] = {}
    over: list[str] = []
    for name in names:
        ms = []
        for size in SIZES:
            text = SHAPES[name](size)
            assert len(text) <= size, (name, size, len(text))
            spent, html, nodes = measure(text)
            ms.append(spent)
        tripped = guard(text)
        ratio = html / len(text)
        if tripped is None and (ms[2] / plain_ms > TIME_BOUND or ratio > SIZE_BOUND):
            over.append(name)
        families[name] = {
            "ms_16k": round(ms[0], 1),
            "ms_32k": round(ms[1], 1),
            "ms_64k": round(ms[2], 1),
            "html_ratio": round(ratio, 2),
            "nodes_64k": nodes,
            "x_plain": round(ms[2] / plain_ms, 1),
            "guard": tripped,
        }
        print(
            f"{name!r:32} {ms[0]:9.1f} {ms[1]:9.1f} {ms[2]:9.1f} ms  html {ratio:7.2f} x  "
            f"{nodes:9d} nodes  {ms[2] / plain_ms:7.1f} x plain  guard {tripped}",
            flush=True,
        )
    result = {
        "plain_ms_64k": round(plain_ms, 2),
        "plain_html_ratio": round(plain_html / len(plain), 2),
        "plain_nodes_64k": plain_nodes,
        "bounds": {"x_plain": TIME_BOUND, "html_ratio": SIZE_BOUND},
        "families": families,
        "unguarded_over": over,
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
