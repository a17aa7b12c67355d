"""Marker neutralisation: every shape of a fence marker becomes a neutral replacement.

Detection runs on several views of the text: casefold, the lookalike fold (UTS #39 skeleton,
case, combining marks), each of them HTML-entity decoded, and the visible projection (hidden
marks cut out).  Separators between the letters of a marker word are allowed by the patterns
themselves, which is the "separators removed" view with word starts still known.  Matches are
mapped back to the text and replaced; the whole loop repeats until no view matches.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from itertools import pairwise

from ._chars import casefold, delete_chars, fold
from ._hidden import mark_spans, merge

__all__ = ["REPLACEMENT", "find_markers", "neutralise"]

REPLACEMENT = "[fence-like marker removed]"

_BOUNDS = ("begin", "end", "start")
_NOUNS = (
    "untrusted", "quoted", "fence", "fenced", "external", "injected", "passphrase",
    "ambiguity", "trusted", "user input", "tool output", "quote", "instructions",
)  # fmt: skip
_CHAT = (
    "im_start", "im_end", "im_sep", "endoftext", "eot_id", "eom_id", "start_header_id",
    "end_header_id", "begin_of_text", "end_of_text", "start_of_turn", "end_of_turn",
)  # fmt: skip
_TAG_WORDS = (
    "untrusted", "quoted", "trigger_comment", "pr_body", "issue_body", "comments",
    "review_comments", "system", "instructions", "instruction", "information", "context",
    "external", "fence", "user_input", "tool_output", "document", "prompt", "data", "input",
)  # fmt: skip
_SEPS = " \t._-*|/\\"
_DELIMS = "-=%#*~_<>{}|+:^\u2010\u2011\u2012\u2013\u2014\u2015\u2212\u2500\u2501\u2550"

View = Callable[[str], str]
# Every chat-token, tag and role-line rule needs one of these substrings in the casefold view.
_HINTS = ("<", "[inst]", "[/inst]", "human", "assistant", "system", "##")


def _casefold(text: str) -> str:
    return casefold(text)


def _sep_class(view: View) -> str:
    chars = {view(c) for c in _SEPS}
    chars = {c for c in chars if len(c) == 1 and not c.isalnum()}
    return "[" + "".join(re.escape(c) for c in sorted(chars)) + "]*+"


def _word(word: str, view: View, sep: str) -> str:
    folded = view(word)
    return sep.join(re.escape(c) for c in folded if c not in _SEPS or c == "_")


def _rules(view: View, full: bool) -> list[str]:
    sep = _sep_class(view)
    start = r"(?<![^\W_])"  # a marker word starts a word in the view
    bounds = "|".join(_word(b, view, sep) for b in _BOUNDS)
    nouns = "|".join(_word(n, view, sep) for n in _NOUNS)
    of = _word("of", view, sep)
    the = _word("the", view, sep)
    rules = [
        rf"{start}(?:{bounds}){sep}(?:{of}{sep})?(?:{the}{sep})?(?:{nouns})",
        rf"{_word('untrusted', view, sep)}{sep}{_word('fence', view, sep)}",
    ]
    if full:
        delim = "[" + "".join(re.escape(c) for c in _DELIMS) + "]"
        chat = "|".join(re.escape(view(c)) for c in _CHAT)
        tags = "|".join(re.escape(view(t)) for t in _TAG_WORDS)
        rules += [
            rf"{delim}{{3,}}+[ \t]*+{start}(?:{bounds})(?![^\W_])",
            rf"{start}(?:{bounds})[ \t]*+{delim}{{3,}}+",
            r"<\|[^|\n<>]{0,40}+\|>",
            rf"<\|?(?:{chat})\|?>?",
            r"\[/?inst\]|<</?sys>>|</?s>",
            rf"</?[ \t]*+(?:{tags})(?![^\W_])[^<>\n]{{0,80}}+>",
            r"(?m:^[ \t]*+(?:human|assistant|system)[ \t]*+:)",
            r"(?m:^[ \t]*+#{2,}+[ \t]*+(?:system|instructions?|response)(?![^\W_]))",
        ]
    return rules


def _build(view: View, full: bool) -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{r})" for r in _rules(view, full)))


_SEP_BYTES = _SEPS.encode("ascii")


def _compact(text: str) -> str:
    return delete_chars(text, _SEP_BYTES)


class _Detector:
    """Cheap exact-substring tests on the compacted view decide which rules can match at all;
    only those run.  Each test is implied by its rule, so nothing is missed."""

    def __init__(self, view: View, full: bool) -> None:
        rules = [re.compile(r) for r in _rules(view, full)]
        compact = [_compact(view(w)) for w in _NOUNS]
        bounds = [_compact(view(b)) for b in _BOUNDS]
        self.view = view
        self.keyword = rules[0]
        # One regex per bound word, each starting with that literal word, so the engine skips
        # ahead to its occurrences (an alternation of literals is tried at every position).
        tail = (
            f"(?:{re.escape(view('of'))})?(?:{re.escape(view('the'))})?"
            + "(?:" + "|".join(map(re.escape, compact)) + ")"
        )  # fmt: skip
        self.combos = [re.compile(re.escape(b) + tail) for b in bounds]
        self.own = _compact(view("untrusted")) + _compact(view("fence"))
        self.bounds = bounds
        self.full = full
        if full:
            self.delim = rules[2:4]
            self.other = [_line_rule(r) for r in _rules(view, True)[4:]]

    def search(self, text: str) -> bool:
        view = self.view(text)
        compact = _compact(view)
        if self.own in compact:
            return True
        combo = any(rx.search(compact) for rx in self.combos)
        if combo and self.keyword.search(view):
            return True
        if not self.full:
            return False
        delimited = any(b in compact for b in self.bounds) and _has_delim_run(view)
        if delimited and any(rx.search(view) for rx in self.delim):
            return True
        if not any(h in view for h in _HINTS):
            return False
        return any(at_start.match(view) or rx.search(view) for at_start, rx in self.other)


_NEVER = re.compile(r"(?!)")


def _line_rule(rule: str) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """A rule as (match at 0, search): a line-start rule becomes a search for a newline, which
    the regex engine finds with a fast literal scan instead of trying every position."""
    if rule.startswith("(?m:^") and rule.endswith(")"):
        inner = rule[len("(?m:^") : -1]
        return re.compile(inner), re.compile("\n" + inner)
    return _NEVER, re.compile(rule)


_DELIM_ASCII = "".join(c for c in _DELIMS if c.isascii())
_DELIM_OTHERS = "".join(c for c in _DELIMS if not c.isascii())
# ASCII delimiters become NUL, every other ASCII byte "a"; non-ASCII bytes stay.
_DELIM_BYTES = bytes(0 if chr(b) in _DELIM_ASCII else 0x61 for b in range(128)) + bytes(
    range(128, 256)
)
_DELIM_RUN_RE = re.compile("[" + "".join(re.escape(c) for c in _DELIMS) + "]{3}")


def _has_delim_run(view: str) -> bool:
    """Whether three delimiters follow each other in ``view``."""
    if any(c in view for c in _DELIM_OTHERS):
        return _DELIM_RUN_RE.search(view) is not None
    return b"\0\0\0" in view.encode("utf-8", "surrogatepass").translate(_DELIM_BYTES)


_CASEFOLD_RE = _build(_casefold, full=True)
_FOLD_RE = _build(fold, full=False)
_ENTITY_RE = re.compile(
    r"&(?:#[0-9]{1,8}+;?|#[xX][0-9a-fA-F]{1,8}+;?|[A-Za-z][A-Za-z0-9]{1,31}+;?)"
)
_VIEWS: tuple[tuple[View, re.Pattern[str]], ...] = ((_casefold, _CASEFOLD_RE), (fold, _FOLD_RE))
_DETECTORS = (_Detector(_casefold, full=True), _Detector(fold, full=False))


def _line_bounds(text: str, start: int, end: int) -> tuple[int, int]:
    line_end = text.find("\n", end)
    return text.rfind("\n", 0, start) + 1, len(text) if line_end < 0 else line_end


def _visible_lines(text: str, marks: list[tuple[int, int]]) -> str:
    """The visible projection of the lines that hold a hidden mark, one chunk per group."""
    chunks: list[str] = []
    i = 0
    while i < len(marks):
        start, end = _line_bounds(text, marks[i][0], marks[i][1])
        parts, pos = [], start
        while i < len(marks) and marks[i][0] < end:
            parts.append(text[pos : marks[i][0]])
            pos = marks[i][1]
            end = max(end, _line_bounds(text, pos, pos)[1])
            i += 1
        parts.append(text[pos:end])
        chunks.append("".join(parts))
    return "\n".join(chunks)


def _entity_lines(text: str) -> str:
    """The lines of ``text`` that hold an ``&``."""
    lines: list[str] = []
    pos = text.find("&")
    while pos >= 0:
        start, end = _line_bounds(text, pos, pos)
        lines.append(text[start:end])
        pos = text.find("&", end)
    return "\n".join(lines)


def _any_match(text: str) -> bool:
    # Every rule matches within one line of a view, and every view maps a line of the text to
    # a line of the view (entities and hidden marks never span a newline boundary in a way that
    # matters: a mark's lines are kept together).  So the entity-decoded and visible variants
    # only need the lines where they differ from the text itself.
    if any(d.search(text) for d in _DETECTORS):
        return True
    variants = []
    if "&" in text:
        variants.append(html.unescape(_entity_lines(text)))
    marks = mark_spans(text)
    if marks:
        visible = _visible_lines(text, marks)
        variants.append(visible)
        if "&" in visible:
            variants.append(html.unescape(visible))
    return any(d.search(v) for v in variants for d in _DETECTORS)


def find_markers(text: str) -> bool:
    """Whether any view of ``text`` holds a marker shape."""
    return _any_match(text)


# -- slow path: map view matches back to text positions ------------------------------------


def _units(text: str, skip: list[tuple[int, int]], decode: bool) -> list[tuple[str, int, int]]:
    units: list[tuple[str, int, int]] = []
    pos = 0
    bounds = [*skip, (len(text), len(text))]
    for start, end in bounds:
        seg = text[pos:start]
        if decode and "&" in seg:
            last = 0
            for m in _ENTITY_RE.finditer(seg):
                units += [
                    (c, pos + last + i, pos + last + i + 1)
                    for i, c in enumerate(seg[last : m.start()])
                ]
                units.append((html.unescape(m.group()), pos + m.start(), pos + m.end()))
                last = m.end()
            units += [(c, pos + last + i, pos + last + i + 1) for i, c in enumerate(seg[last:])]
        else:
            units += [(c, pos + i, pos + i + 1) for i, c in enumerate(seg)]
        pos = end
    return units


def _mapped(units: list[tuple[str, int, int]], view: View) -> tuple[str, list[int], list[int]]:
    chars: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    for unit, s, e in units:
        for piece in view(unit):
            chars.append(piece)
            starts.append(s)
            ends.append(e)
    out = "".join(chars)
    if view is fold and "rn" in out:
        # fold() turns "rn" into "m" over the whole text; do the same here, keeping positions.
        i = 0
        c2: list[str] = []
        s2: list[int] = []
        e2: list[int] = []
        while i < len(chars):
            if chars[i] == "r" and i + 1 < len(chars) and chars[i + 1] == "n":
                c2.append("m")
                s2.append(starts[i])
                e2.append(ends[i + 1])
                i += 2
            else:
                c2.append(chars[i])
                s2.append(starts[i])
                e2.append(ends[i])
                i += 1
        out, starts, ends = "".join(c2), s2, e2
    return out, starts, ends


def _chunk_spans(chunk: str, marks: list[tuple[int, int]]) -> list[tuple[int, int]] | None:
    found: list[tuple[int, int]] = []
    for skip in ([], marks) if marks else ([],):
        for decode in (False, True) if "&" in chunk else (False,):
            units = _units(chunk, skip, decode)
            for view, rx in _VIEWS:
                out, starts, ends = _mapped(units, view)
                found += [
                    (starts[m.start()], ends[m.end() - 1])
                    for m in rx.finditer(out)
                    if m.end() > m.start()
                ]
    return found or None


def _expand(spans: list[tuple[int, int]], marks: list[tuple[int, int]]) -> list[tuple[int, int]]:
    # A replacement never cuts a hidden mark: it swallows any mark it overlaps.
    out = []
    for s, e in merge(spans):
        for ms, me in marks:
            if ms < e and s < me and not (s <= ms and me <= e) and not (ms < s and e < me):
                s, e = min(s, ms), max(e, me)
        out.append((s, e))
    return merge(out)


def _pass(text: str) -> str:
    marks = mark_spans(text)
    # Chunks: lines, except that a hidden mark holding newlines keeps its lines together.
    cuts = [0]
    mi = 0
    for m in re.finditer("\n", text):
        while mi < len(marks) and marks[mi][1] <= m.start():
            mi += 1
        if mi < len(marks) and marks[mi][0] <= m.start() < marks[mi][1]:
            continue
        cuts.append(m.end())
    cuts.append(len(text) + 1)
    out: list[str] = []
    for a, b in pairwise(cuts):
        chunk = text[a : b - 1] if b <= len(text) else text[a:]
        nl = "\n" if b <= len(text) else ""
        if not _any_match(chunk):
            out.append(chunk + nl)
            continue
        local = [(s - a, e - a) for s, e in marks if a <= s and e <= a + len(chunk)]
        spans = _chunk_spans(chunk, local)
        if spans is None:
            out.append(REPLACEMENT + nl)
            continue
        pieces, pos = [], 0
        for s, e in _expand(spans, local):
            pieces += [chunk[pos:s], REPLACEMENT]
            pos = e
        pieces.append(chunk[pos:])
        out.append("".join(pieces) + nl)
    return "".join(out)


_MAX_PASSES = 8


def neutralise(text: str) -> str:
    """Rewrite every marker shape (in any view) to :data:`REPLACEMENT`, to a fixed point."""
    for _ in range(_MAX_PASSES):
        if not _any_match(text):
            return text
        text = _pass(text)
    # Could not reach a fixed point: nothing of the text is worth the risk.
    return REPLACEMENT if _any_match(text) else text
