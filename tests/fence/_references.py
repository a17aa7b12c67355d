"""Plain definitions that the fence's fast paths are held to: the block walk line by line, the
marker rules as first written, marker detection on every whole view, and the fold character by
character."""

from __future__ import annotations

from untrusted_fence import _blocks, _chars, _markers
from untrusted_fence._hidden import cut_marks

__all__ = [
    "RULES_AS_WRITTEN",
    "any_marker_on_whole_views",
    "fold_by_definition",
    "line_by_line",
    "rule_spans",
]

# The rules of each view as first written (a lookbehind before a word, not after its first
# letter; alternations led by lookbehinds), in the order of ``_markers._RULES``.
RULES_AS_WRITTEN = (
    _markers._Rules(_chars.casefold, casefold_view=True, fast=False),
    _markers._Rules(_chars.fold, casefold_view=False, fast=False),
)


def line_by_line(text: str) -> _blocks.Blocks:
    """The block walk with only the plain runs, fenced code and HTML blocks skipped at the top
    level (every other line walked on its own)."""
    walk = _blocks._Walk()
    walk.runs = False
    start, size = 0, len(text)
    while start <= size:
        if not walk.stack:
            start = walk.skip(text, start)
            if start > size:
                break
        end = text.find("\n", start)
        end = size if end < 0 else end
        walk.line(text, start, end)
        start = end + 1
    walk.truncate(0, size)
    return walk.out


def rule_spans(rules: _markers._Rules, text: str) -> list[tuple[int, int]]:
    """Every match of ``rules``' combined regex in their view of ``text``."""
    return [m.span() for m in rules.rx.finditer(rules.view(text))]


def any_marker_on_whole_views(text: str) -> bool:
    """Every rule, as one regex, and the rules that span lines, on every whole view of every
    variant (entities decoded, hidden marks cut out, tags cut out): no probe, no key
    prefilter, no changed-lines shortcut."""
    tagless = _markers._TAG_RE.sub("", text)
    variants = [text, _markers._decode(text), cut_marks(text), _markers._decode(cut_marks(text))]
    variants += [tagless, _markers._decode(tagless), cut_marks(tagless)]
    for rules in _markers._RULES:
        for variant in variants:
            view = rules.view(variant)
            if rules.rx.search(view) is not None or rules.cross_search(view):
                return True
    return False


def fold_by_definition(text: str) -> str:
    """The fold as first defined: each character folded, then "rn" to "m" on the whole text."""
    folded = "".join(_chars._fold_char(ord(c)) if ord(c) > 127 else c for c in text)
    raw = folded.encode("utf-8", "surrogatepass").translate(_chars.ASCII_FOLD_BYTES)
    out = raw.decode("utf-8", "surrogatepass")
    for char, expanded in _chars.ASCII_EXPANDING:
        out = out.replace(char, expanded)
    return out.replace("rn", "m")
