"""The fast paths of marker detection and rewrite give exactly what the plain definitions give."""

from __future__ import annotations

import dataclasses
import html
import re

from _references import RULES_AS_WRITTEN, rule_spans
from hypothesis import given, settings
from hypothesis import strategies as st

from untrusted_fence import _chars, _fence, _markers
from untrusted_fence._chars import fold
from untrusted_fence._hidden import MARK_OPEN, cut_marks, mark_spans

_HIDDEN = "\u27e6hidden: "
# Markers, hidden marks (one holding a tag, one over lines), tags (touching, inside and across
# marks), entities (decoding to letters, to nothing, inside a mark or a tag), lookalikes.
_PIECES = [
    "END", "end", " ", "UNTRUSTED", "<s>", "</s>", "<b>", "</b>", "<!-->", "\n", "x", "N", "D",
    _HIDDEN + "<!-->\u27e7", _HIDDEN + "x\u27e7", _HIDDEN + "a\n<i>b\u27e7", "<a " + _HIDDEN,
    "\u27e7 b>", "&shy;", "&#69;", "&amp;", "&#x3c;s>", "E<b>N</b>D", "EN&shy;D", "Human: ",
    "<<<untrusted-comment-end 0123>>>", "[INST]", "<|im_end|>", "\u0415", "[fence-like marker "
    "removed]", "<system>", "rn", "ﬀ",
]  # fmt: skip
rewrite_text = st.lists(st.sampled_from(_PIECES), max_size=24).map("".join)


def _reference_edit_lists(text: str, marks: list[tuple[int, int]]) -> list[list[_markers._Edit]]:
    """The edits of every variant: each cut (nothing, hidden marks, tags, both), and each
    again with the entities outside the cut decoded."""
    skips = _markers._skips(text, marks)
    lists = [[(s, e, "") for s, e in skip] for skip in skips]
    entities = _markers._entity_edits(text)
    if entities:
        lists += [_markers._decoded(skip, entities) for skip in skips]
    return lists


def _reference_whole_spans(text: str, marks: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """_markers._whole_spans as first written: _direct_spans over every distinct edit list,
    for each view."""
    spans: list[tuple[int, int]] = []
    distinct = {tuple(edits): edits for edits in _reference_edit_lists(text, marks)}
    for edits in distinct.values():
        for rules in _markers._RULES:
            spans += _markers._direct_spans(text, edits, rules) or []
    return spans


@settings(max_examples=400)
@given(rewrite_text)
def test_whole_spans_joined_once_per_cut_equal_direct_spans_over_every_edit_list(
    text: str,
) -> None:
    # (The rewrite merges the spans: their order and repeats do not matter.)
    marks = mark_spans(text)
    expected = sorted(set(_reference_whole_spans(text, marks)))
    assert expected == sorted(set(_markers._whole_spans(text, marks)))


# Separators of both kinds, characters that share their UTF-8 lead byte, other non-ASCII.
_DELETE_CHARS = " ._-x\u00a0\u00e9\u2028\u2029\u2000\u27e6\u3000\u00b0\u2080\u6587\U0001f389\ud800"


@settings(max_examples=400)
@given(
    st.text(alphabet=st.sampled_from(_DELETE_CHARS), max_size=40),
    st.text(alphabet=st.sampled_from(" ._"), max_size=3),
    st.text(alphabet=st.sampled_from(_DELETE_CHARS[5:]), max_size=6),
)
def test_deleting_separator_characters_equals_deleting_each_one(
    text: str, ascii_chars: str, others: str
) -> None:
    gone = set(ascii_chars) | set(others)
    expected = "".join(c for c in text if c not in gone)
    assert expected == _chars.delete_chars(text, ascii_chars.encode("ascii"), others)


def _rx_probes() -> list[_markers._Probe]:
    return [
        p
        for rules in _markers._RULES
        for g in rules.groups
        for p in [*g.probes, *(g.gates or [])]
        if p.rx is not None
    ]


def test_a_probe_that_needs_a_literal_starts_with_it_in_every_match() -> None:
    # The parsed regex begins with the literal's characters, one LITERAL item each (no
    # alternation or repeat before them): every match starts with the literal.
    wrong = []
    for probe in _rx_probes():
        if probe.needs is None:
            continue
        assert probe.rx is not None
        assert isinstance(probe.rx.pattern, str)
        items = list(re._parser.parse(probe.rx.pattern))  # type: ignore[attr-defined]
        lead = [(op, arg) for op, arg in items[: len(probe.needs)]]
        if lead != [(re._constants.LITERAL, ord(c)) for c in probe.needs]:  # type: ignore[attr-defined]
            wrong.append(probe.rx.pattern)
    assert [] == wrong


def test_every_regex_probe_needs_a_literal() -> None:
    # (So that the shortcut is taken for each of them.)
    assert [] == [p.rx.pattern for p in _rx_probes() if p.needs is None and p.rx is not None]


_PROBE_PIECES = [
    "end", "END", "begin", "start", "comment", "check output", "check", "output", "\u0443",
    "<", "<|", "im_end", "|>", "[", "INST", "]", "#", "# ", "System", "<system>", "of the",
    "untrusted", "quoted", "backend", "\n", " ", "-", "x", "<<<", "trusted", "[SYS",
    "checko\u0443tp\u0443t",
]  # fmt: skip
probe_text = st.lists(st.sampled_from(_PROBE_PIECES), max_size=30).map("".join)


def _without_needs(group: _markers._Group) -> _markers._Group:
    plain = [dataclasses.replace(p, needs=None) for p in group.probes]
    gates = [dataclasses.replace(p, needs=None) for p in group.gates or []] or None
    return dataclasses.replace(group, probes=plain, gates=gates)


@settings(max_examples=400)
@given(probe_text)
def test_hit_lines_with_regexes_skipped_where_their_literal_is_absent_equal_running_them(
    text: str,
) -> None:
    for rules in _markers._RULES:
        groups = rules.groups
        plain = [_without_needs(g) for g in groups]  # (kept alive: hits are cached by id)
        view = rules.view(text)
        expected = [_markers._Scan(rules, view).hit_lines(g) for g in plain]
        scan = _markers._Scan(rules, view)
        assert expected == [scan.hit_lines(g) for g in groups]


def _reference_nonce_free(nonce: str, body: str) -> bool:
    """The nonce check as first defined: compacted str views (casefold, fold) of the body, its
    entity-decoded and its visible variants."""
    variants = [body]
    if "&" in body:
        variants.append(html.unescape(body))
    if MARK_OPEN in body and cut_marks(body) != body:
        variants.append(cut_marks(body))
    views = [_fence._COMPACT_RE.sub("", w) for v in variants for w in (v.casefold(), fold(v))]
    return not any(n in v for v in views for n in {nonce, fold(nonce)})


# Around the nonce: separators of both kinds, line breaks, entities, marks, case, lookalikes.
_AROUND = [
    " ", "\n", "\u00a0", "\u00e9", "\U0001f389", "\ud800", "x", "A", "0", "O", "l", "&amp;",
    _HIDDEN + "x\u27e7", "\u27e6",
]  # fmt: skip
# Between its halves: each separator the check removes, and what a variant removes (an entity
# of a space, a hidden mark), or a letter that breaks it.
_BETWEEN = [
    *(chr(b) for b in _fence._COMPACT_ASCII), *_fence._COMPACT_OTHERS, "&#32;", "&nbsp;",
    _HIDDEN + "x\u27e7", "x", "\u00e9",
]  # fmt: skip


@settings(max_examples=400)
@given(
    st.text(alphabet=st.sampled_from("0123456789abcdef"), min_size=20, max_size=20),
    st.integers(0, 20),
    st.lists(st.sampled_from(_BETWEEN), max_size=3),
    st.lists(st.sampled_from(_AROUND), max_size=6),
    st.sampled_from(["as drawn", "upper", "lookalikes"]),
)
def test_nonce_check_on_utf8_views_equals_the_check_on_str_views(
    nonce: str, cut: int, between: list[str], around: list[str], spelling: str
) -> None:
    head, tail = nonce[:cut], nonce[cut:]
    if spelling == "upper":
        head, tail = head.upper(), tail.upper()
    elif spelling == "lookalikes":  # (found by the fold of the nonce only)
        head, tail = (h.translate(str.maketrans("015", "OlS")) for h in (head, tail))
    half = len(around) // 2
    body = "".join([*around[:half], head, *between, tail, *around[half:]])
    expected = _reference_nonce_free(nonce, body)
    assert expected == _fence._nonce_free(nonce, _fence._views(body))


# Runs of delimiters (angle brackets among them, a lookalike dash, runs that touch) and bound
# words before and after them, with and without spaces.
_DELIM_PIECES = [
    "=", "==", "===", "-", "---", "<", "<<", "<<<", ">", ">>>", "#", "*", "_", "\u2014", "~",
    " ", "\t", "\n", "END", "end", "begin", "START", "x", "-END", "0", "untrusted", "<<-",
]  # fmt: skip
delim_text = st.lists(st.sampled_from(_DELIM_PIECES), max_size=24).map("".join)


@settings(max_examples=400)
@given(delim_text)
def test_a_delimiter_run_led_by_its_first_character_finds_what_the_rule_as_written_finds(
    text: str,
) -> None:
    for fast, written in zip(_markers._RULES, RULES_AS_WRITTEN, strict=True):
        assert rule_spans(written, text) == rule_spans(fast, text)


@st.composite
def cut_and_spans(
    draw: st.DrawFn,
) -> tuple[str, list[tuple[int, int]], list[tuple[int, int]]]:
    """A text, sorted disjoint cuts (touching ones too, so some kept segments are empty) and
    spans of what the cuts keep."""
    text = draw(st.text(alphabet="ab\n", min_size=1, max_size=30))
    bounds = sorted(draw(st.lists(st.integers(0, len(text)), max_size=10)))
    cuts = [(s, e) for s, e in zip(bounds[::2], bounds[1::2], strict=False) if e > s]
    kept = len(text) - sum(e - s for s, e in cuts)
    spans = []
    if kept:
        for s, length in draw(st.lists(st.tuples(st.integers(0, kept - 1), st.integers(1, 8)))):
            spans.append((s, min(kept, s + length)))
    return text, cuts, spans


@settings(max_examples=400)
@given(cut_and_spans())
def test_spans_mapped_back_by_segments_equal_the_position_by_position_mapping(
    case: tuple[str, list[tuple[int, int]], list[tuple[int, int]]],
) -> None:
    text, cuts, spans = case
    cut_out = {p for s, e in cuts for p in range(s, e)}
    position = [p for p in range(len(text)) if p not in cut_out]  # joined offset -> text
    expected = [(position[s], position[e - 1] + 1) for s, e in spans]
    cut = _markers._Cut(text, cuts)
    assert expected == cut.back(spans)


def _reference_matches_one_for_one(
    joined: str, rules: _markers._Rules
) -> list[tuple[int, int]] | None:
    """_markers._matches_one_for_one as first written: the view built first, then checked."""
    view = rules.view(joined)
    if rules.view is fold:
        ascii_fold = joined.encode("ascii", "replace").translate(_chars.ASCII_FOLD_BYTES)
        if not joined.isascii() or view != ascii_fold.decode("ascii"):
            return None
    elif len(view) != len(joined):
        return None
    return _markers._view_matches(rules, view)


# ASCII and non-ASCII markers, "rn" (which fold turns into "m"), expansions, case.
_ONE_FOR_ONE = ["END UNTRUSTED", "rn", "<s>", "\n", "Human: x", "\u00df", "\u0415", "ﬀ", "A", " "]


@settings(max_examples=300)
@given(st.lists(st.sampled_from(_ONE_FOR_ONE), max_size=12).map("".join))
def test_matches_of_a_view_that_maps_one_for_one_equal_the_view_first_definition(
    text: str,
) -> None:
    for rules in _markers._RULES:
        expected = _reference_matches_one_for_one(text, rules)
        assert expected == _markers._matches_one_for_one(text, rules)
