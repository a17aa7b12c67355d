"""Marker detection that searches a variant's changed lines only (the visible variant built
line by line) gives exactly what searching every rule on every whole view gives, and the facts
that shortcut rests on hold (hypothesis)."""

from __future__ import annotations

import unicodedata2
from _references import any_marker_on_whole_views
from hypothesis import given, settings
from hypothesis import strategies as st

from untrusted_fence import _chars, _markers
from untrusted_fence._hidden import mark_spans

_HIDDEN = "\u27e6hidden: "
# Pieces of a line: markers split by a hidden mark, role and heading words, the fence's own
# syntax, separators, entities and tags (other variants beside the visible one), lookalikes.
_LINE_PIECES = [
    "E" + _HIDDEN + "x\u27e7ND UNTRUSTED", "Hu" + _HIDDEN + "x\u27e7man:", "Human", ":",
    "System", "# ", "> ", "- ", "end", "of", "quoted", "text", " ", "x", "1", ",", "!",
    _HIDDEN + "x\u27e7", _HIDDEN + "a\nb\u27e7", _HIDDEN + "\n===\u27e7",
    "untr" + _HIDDEN + "x\u27e7",
    "usted-comment-end", "<<<", "===", "---", "&shy;", "&amp;", "<b>", "</b>", "\u0415", "rn",
    "rn" + _HIDDEN + "x\u27e7", "r" + _HIDDEN + "x\u27e7n", "abcdefghijklmnopqrstuvwxyz",
    "[the docs]" + _HIDDEN + "(https://x.y/d)\u27e7.", "]" + _HIDDEN + "x\u27e7",
    _HIDDEN + "x\u27e7.",
    "trus" + _HIDDEN + "x\u27e7ted", "t" + _HIDDEN + "x\u27e7", _HIDDEN + "x\u27e7rusted",
    "<<<un" + _HIDDEN + "x\u27e7trusted", "-comment-", "end", "begin", "\u00ab\u00ab", "]",
    _HIDDEN + "x\u27e7" + _HIDDEN + "y\u27e7", "System" + _HIDDEN + "x\u27e7",
    "-" + _HIDDEN + "x\u27e7",
    "=" + _HIDDEN + "x\u27e7", _HIDDEN + "x\u27e7===", "\u0443",
]  # fmt: skip
# Lines without marks, so that the marks are on fewer than half of the lines (the visible
# variant is then built line by line, not from the whole text).
_FILLER = [
    "", "ok", "looks good", "---", "===", "System", "<<<", "abcdefghij" * 6, "a, b", "\u00e9",
]  # fmt: skip


@st.composite
def sparse_mark_text(draw: st.DrawFn) -> str:
    lines: list[str] = []
    for _ in range(draw(st.integers(1, 8))):
        lines.append("".join(draw(st.lists(st.sampled_from(_LINE_PIECES), max_size=6))))
        lines += draw(st.lists(st.sampled_from(_FILLER), min_size=2, max_size=6))
    return "\n".join(lines)


@settings(max_examples=600)
@given(sparse_mark_text())
def test_detection_on_the_changed_lines_of_the_visible_variant_equals_every_whole_view(
    text: str,
) -> None:
    assert any_marker_on_whole_views(text) == _markers.find_markers(text)


@settings(max_examples=400)
@given(sparse_mark_text())
def test_every_line_of_the_visible_variant_is_a_text_line_a_changed_line_or_the_barrier(
    text: str,
) -> None:
    marks = mark_spans(text)
    lines = _markers._VisibleLines(text, marks)
    visible, changed = lines.variant, lines.changed
    allowed = set(text.split("\n")) | set(changed.split("\n")) | {_markers._BARRIER.strip("\n")}
    assert [] == [line for line in visible.split("\n") if line not in allowed]


@settings(max_examples=300)
@given(sparse_mark_text())
def test_the_changed_lines_are_the_lines_that_hold_a_mark_with_the_marks_cut_out(
    text: str,
) -> None:
    marks = mark_spans(text)
    expected = []
    for start, end in marks:
        line_start = text.rfind("\n", 0, start) + 1
        line_end = text.find("\n", end)
        expected.append((line_start, len(text) if line_end < 0 else line_end))
    runs: list[tuple[int, int]] = []
    for start, end in expected:
        if runs and start <= runs[-1][1]:
            runs[-1] = (runs[-1][0], max(runs[-1][1], end))
        else:
            runs.append((start, end))
    pieces = []
    for start, end in runs:
        parts, pos = [], start
        for s, e in marks:
            if start <= s and e <= end:
                parts.append(text[pos:s])
                pos = e
        parts.append(text[pos:end])
        pieces.append("".join(parts))
    assert _markers._BARRIER.join(pieces) == _markers._VisibleLines(text, marks).changed


_VIEW_TEXT = st.text(
    alphabet=st.one_of(
        st.sampled_from('rnmlI1|"%`\n \t\u0131\u0130\u00df\u1e9e\u2028\u0085\u27e6\u27e7\ufb00'),
        st.characters(codec="utf-8"),
    ),
    max_size=30,
)


@settings(max_examples=500)
@given(_VIEW_TEXT, _VIEW_TEXT)
def test_each_view_maps_a_text_line_by_line(first: str, second: str) -> None:
    for rules in _markers._RULES:
        expected = rules.view(first) + "\n" + rules.view(second)
        assert expected == rules.view(first + "\n" + second)


def test_no_step_of_a_view_makes_a_line_break() -> None:
    # The views are casefold and fold: per character maps built from case folding, canonical
    # decomposition, the confusables prototypes and the letter lookalikes, then "rn" to "m" and
    # "l" to "i" (neither holds a line break).  A view maps a text line by line when none of
    # those maps a character other than a line feed to a string holding one.
    tables = [*_chars._CONFUSABLES.values(), *_chars.LETTER_LOOKALIKES.values()]
    assert [] == [t for t in tables if "\n" in t]
    made = []
    for cp in range(0x110000):
        if cp == 0x0A:
            continue
        char = chr(cp)
        if "\n" in char.casefold() or "000A" in unicodedata2.decomposition(char).split():
            made.append(cp)
    assert [] == made


# Short lines, empty ones among them: the whole-line rules after a line break need a character
# on the line, and the shortest role lines ("a:", "H:") have two.
_SHORT_PIECES = ["", "a", "h", "H", ":", "\u2236", "ai", "x", " ", "\t", "end", "#", "-", "**"]
short_lines = st.lists(
    st.lists(st.sampled_from(_SHORT_PIECES), max_size=3).map("".join), max_size=12
).map("\n".join)


@settings(max_examples=500)
@given(short_lines)
def test_detection_on_short_and_empty_lines_equals_every_whole_view(text: str) -> None:
    assert any_marker_on_whole_views(text) == _markers.find_markers(text)


_COMPACT_TEXT = st.text(
    alphabet=st.one_of(
        st.sampled_from(" \t._-*|/\\\n\u00a0\u2028\u27e6\ud800\u00e9trusted<>"),
        st.characters(codec="utf-8"),
    ),
    max_size=30,
)


@settings(max_examples=400)
@given(_COMPACT_TEXT)
def test_the_compacted_view_made_from_its_utf8_equals_the_compacted_view_encoded(
    text: str,
) -> None:
    for rules in _markers._RULES:
        view = rules.view(text)
        raw = view.encode("utf-8", "surrogatepass")
        expected = rules.compact(view).encode("utf-8", "surrogatepass")
        assert expected == rules.compact_utf8(view, raw)


_CROSS_PIECES = [
    "un", "trus", "ted", "trusted", "-", " ", "\n", "\n\n", "comment", "check", "output", "end",
    "begin", "<<<", "\u00ab\u00ab", "\u00e9", "x", "System", "===", "\u0443",
]  # fmt: skip


@settings(max_examples=400)
@given(st.lists(st.sampled_from(_CROSS_PIECES), max_size=14).map("".join))
def test_the_rules_across_lines_on_utf8_bytes_equal_the_rules_on_the_compacted_text(
    text: str,
) -> None:
    for rules in _markers._RULES:
        view = rules.view(text)
        full = rules.compact(view).replace("\n", "")
        expected = (
            rules.cross_exists.search(full) is not None
            or _markers._setext_lines(view, rules.setext_rx) != []
        )
        scan = _markers._Scan(rules, view)
        assert (expected, expected) == (
            rules.cross_search(view),
            rules.cross_search(view, scan.compact_utf8),
        )


# Shapes of the rules across lines, a hidden mark cut into them at any point with a character
# right before and after it that may or may not block the key across the cut, among lines
# without marks (so the visible variant is built line by line).
_ACROSS = [
    "<<<untrusted-comment-end", "untrusted-check-output-begin", "\u00ab\u00abtrusted",
    "trusted-comment-start", "<<<untr\u0443sted", "System\n===", "Human:\n---", "instructions\n===",
    "# System\n---", "<<<\n\nuntrusted-comment\nend", "<<<\nuntrusted", "\u00ab\u00ab\ntrusted x",
    "<<<untr\nusted",
]  # fmt: skip


@st.composite
def cut_across_text(draw: st.DrawFn) -> str:
    shape = draw(st.sampled_from(_ACROSS))
    k = draw(st.integers(0, len(shape)))
    mark = draw(st.sampled_from([_HIDDEN + "x\u27e7", _HIDDEN + "a\nb\u27e7", _HIDDEN + "\u27e7"]))
    before = draw(st.sampled_from(["", "]", "x", " ", "\n", ".", "\u00e9"]))
    after = draw(st.sampled_from(["", ".", "]", "x", " ", "\n", "\u00e9"]))
    line = shape[:k] + before + mark + after + shape[k:]
    above = draw(st.lists(st.sampled_from(_FILLER), min_size=2, max_size=5))
    below = draw(st.lists(st.sampled_from(_FILLER), min_size=3, max_size=6))
    # Another mark, after a "]" (blocking), far above: the cut above must still be looked at.
    link = ["[the docs]" + _HIDDEN + "(https://x.y/d)\u27e7.", "", "ok", "ok", "ok"]
    return "\n".join([*(link if draw(st.booleans()) else []), *above, line, *below])


@settings(max_examples=800)
@given(cut_across_text())
def test_detection_of_rules_across_lines_cut_by_a_hidden_mark_equals_every_whole_view(
    text: str,
) -> None:
    assert any_marker_on_whole_views(text) == _markers.find_markers(text)
