"""From the walk's pieces to the view's: cleaned, escaped, and free of markers.

``written`` cleans each piece (``_clean``) and escapes shown text that would read as
structure (a fence, a heading, a task box, a link), then puts each hidden fragment between
the hidden mark's brackets.

``settle`` then looks for markers in the view as the worker reads it (where inline markup can
make a delimiter run: ``END<s></s>`` reads ``END~~~~``) and in its plain text: what a reader
sees, with the structure (a heading's ``#``, list markers, quote prefixes) and without inline
markup and hidden fragments, so ``E**N**D``, ``E<sup>N</sup>D`` and ``E<!-- -->ND`` read
"END".  Each raw hidden fragment, link target and raw text is searched too, also
entity-decoded and tag-cut.  A marker found is replaced from its first character to its
last, markup included, and the whole is looked at again, to a fixed point.  The brackets of
the hidden and collapsed marks are never replaced, so the marks stay balanced.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Iterable, Sequence
from itertools import accumulate

from ._clean import SPACE_RUN_CAP, Cleaned, clean_text
from ._markers import REPLACEMENT, marker_spans, merge, neutralise

__all__ = ["HIDDEN_CLOSE", "HIDDEN_OPEN", "Piece", "settle", "written"]

Piece = tuple[str, str]
HIDDEN_OPEN = "\u27e6hidden: "
HIDDEN_CLOSE = "\u27e7"
# Kinds: what each contributes to the plain text (the reader's), and whether it is read there
# character for character: shown text and structure (a heading's "#" makes a heading rule
# apply), not inline markup, targets or hidden fragments.
_EXACT = frozenset({"text", "cell", "code", "raw", "marker", "markup"})
_BRACKETS = frozenset({"mark", "open", "close"})
_PASSES = 8
_LONG_SPACE = " " * (SPACE_RUN_CAP + 1)  # a run the cleaning would cap

# Shown text that would read as structure in the view, escaped with a backslash.
_ESCAPED = r"[\\`*~\[\]%s]|<(?=[A-Za-z/!?])|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])"
_ANYWHERE_RE = re.compile(_ESCAPED % "")
_CELL_RE = re.compile(_ESCAPED % "|")  # in a table cell, a pipe too
# Where a backslash goes at a line's start: before a block marker's character (\#, \-, 12\.).
_LINE_START_RE = re.compile(r"[ \t]*+(?:(?=[#>+=|-])|\d{1,9}(?=[.)]))")


def _escape(text: str, kind: str, line_start: bool) -> str:
    text = (_CELL_RE if kind == "cell" else _ANYWHERE_RE).sub(r"\\\g<0>", text)
    if line_start:
        m = _LINE_START_RE.match(text)
        if m is not None:
            text = f"{text[: m.end()]}\\{text[m.end() :]}"
    return text


def _marked(hidden: str) -> list[Piece]:
    """A hidden fragment between the hidden mark's brackets."""
    return [("mark", HIDDEN_OPEN), ("hidden", hidden), ("mark", HIDDEN_CLOSE)]


def written(pieces: Iterable[Piece]) -> list[Piece]:
    """The walk's pieces cleaned, escaped, and with hidden fragments in their marks."""
    out: list[Piece] = []
    line_start = True
    for kind, raw in pieces:
        if kind in ("markup", "inline", "open", "close"):
            out.append((kind, raw))
            line_start = kind != "inline" and raw[-1:] in ("\n", " ")
            continue
        if raw.isascii() and raw.isprintable() and _LONG_SPACE not in raw:
            parts: Cleaned = [("shown", raw)]  # (a shortcut: cleaning changes nothing here)
        else:
            parts = clean_text(raw, code=kind == "code")
        for part_kind, text in parts:
            if kind == "hidden" or part_kind == "hidden":
                out += _marked(text)
                continue
            if kind in ("text", "cell"):
                text = _escape(text, kind, line_start)
            out.append((kind, text))
            line_start = False
    return out


def _part(kind: str, text: str) -> str:
    """What a piece adds to the plain text."""
    return text if kind in _EXACT else "\n" if kind in ("open", "close") else ""


def _to_view(pieces: Sequence[Piece]) -> Callable[[int, bool], int]:
    """A map from an offset of the plain text to the view's: the start (or, for an ``end``, the
    end) of that character of shown text or structure, or of the whole piece it is in."""
    # Each piece that adds to the plain text: its start there, its start in the view, its index.
    plain_starts, view_starts, index = [], [], []
    p = v = 0
    for i, (kind, text) in enumerate(pieces):
        part = _part(kind, text)
        if part:
            plain_starts.append(p)
            view_starts.append(v)
            index.append(i)
            p += len(part)
        v += len(text)

    def to_view(at: int, end: bool) -> int:
        k = bisect_right(plain_starts, at) - 1
        kind, text = pieces[index[k]]
        if kind in _EXACT:
            return view_starts[k] + (at - plain_starts[k]) + end
        return view_starts[k] + (len(text) if end else 0)

    return to_view


def _spans(pieces: Sequence[Piece]) -> list[tuple[int, int]]:
    """Every marker's span in the view, merged and sorted."""
    spans = marker_spans("".join([t for _, t in pieces]))
    found = marker_spans("".join([_part(k, t) for k, t in pieces]))
    if found:
        to_view = _to_view(pieces)
        spans += [(to_view(s, False), to_view(e - 1, True)) for s, e in found]
    spans += _raw_spans(pieces)
    return merge(spans)


# Raw fragments are searched together, joined by a line no marker runs across (cleaning
# removed every NUL from them): one search, not one per fragment.
_JOIN = "\n\0\n"


def _raw_spans(pieces: Sequence[Piece]) -> list[tuple[int, int]]:
    """The markers in raw hidden fragments, raw text and link targets, each also
    entity-decoded and tag-cut, as spans of the view."""
    starts, texts = [], []
    v = 0
    for kind, text in pieces:
        if kind in ("hidden", "raw", "target"):
            starts.append(v)
            texts.append(text)
        v += len(text)
    if not texts:
        return []
    offsets = list(accumulate((len(text) + len(_JOIN) for text in texts[:-1]), initial=0))
    spans = []
    for s, e in marker_spans(_JOIN.join(texts), decode=True):
        i = bisect_right(offsets, s) - 1
        while i < len(texts) and offsets[i] < e:
            lo = max(s, offsets[i]) - offsets[i]
            hi = min(e, offsets[i] + len(texts[i])) - offsets[i]
            if lo < hi:
                spans.append((starts[i] + lo, starts[i] + hi))
            i += 1
    return spans


def _replace(pieces: Sequence[Piece], spans: list[tuple[int, int]]) -> list[Piece]:
    out: list[Piece] = []
    v = k = 0
    for kind, text in pieces:
        start, end = v, v + len(text)
        v = end
        if kind in _BRACKETS:
            while k < len(spans) and spans[k][1] <= start:
                k += 1
            out.append((kind, text))
            continue
        pos = start
        while k < len(spans) and spans[k][0] < end:
            s, e = spans[k]
            if s >= pos:
                out.append((kind, text[pos - start : s - start]))
                out.append(("hidden" if kind == "hidden" else "marker", REPLACEMENT))
            pos = max(pos, min(e, end))
            if e > end:
                break
            k += 1
        out.append((kind, text[pos - start :]))
    return [(kind, text) for kind, text in out if text]  # (empty slices left out)


def settle(pieces: Iterable[Piece]) -> tuple[Piece, ...]:
    """``pieces`` (raw ones cleaned here) with every marker replaced, to a fixed point."""
    current: list[Piece] = []
    for kind, text in pieces:
        if kind == "raw":
            for part_kind, part in clean_text(text):
                if part_kind == "hidden":
                    current += _marked(part)
                else:
                    current.append(("raw", part))
        else:
            current.append((kind, text))
    for _ in range(_PASSES):
        spans = _spans(current)
        if not spans:
            return tuple(current)
        current = _replace(current, spans)
    # Not settled after the passes (an adversary's nesting): each piece on its own; if the
    # pieces still make a marker together, the shown text alone, settled by construction
    # (the hidden fragments are left out rather than shown unmarked).
    current = [(k, t if k in _BRACKETS else neutralise(t)) for k, t in current]
    if _spans(current):
        shown = "".join(t for k, t in current if k not in _BRACKETS and k != "hidden")
        return (("raw", neutralise(shown)),)
    return tuple(current)
