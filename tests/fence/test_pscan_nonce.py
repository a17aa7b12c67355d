"""The nonce check's shortcuts give exactly what its plain definition gives: the visible variant
viewed only where a needle can run across a cut mark, and the separator removal that looks for
the non-ASCII separators among the text's few non-ASCII characters."""

from __future__ import annotations

import html
import re
from itertools import pairwise

from hypothesis import given, settings
from hypothesis import strategies as st

from untrusted_fence import _chars, _fence
from untrusted_fence._chars import fold
from untrusted_fence._hidden import MARK_CLOSE, MARK_OPEN, cut_marks

_SEPARATORS = re.compile(r"[\s._\-*|/\\'°₀]+")


def _plain_nonce_free(nonce: str, body: str) -> bool:
    """The nonce check as first defined: compacted str views (casefold, fold) of the body, its
    entity-decoded and its visible variants, each built whole."""
    variants = [body]
    if "&" in body:
        variants.append(html.unescape(body))
    if MARK_OPEN in body and cut_marks(body) != body:
        variants.append(cut_marks(body))
    views = [_SEPARATORS.sub("", w) for v in variants for w in (v.casefold(), fold(v))]
    return not any(n in v for v in views for n in {nonce, fold(nonce)})


# What may stand between the pieces of a nonce: marks (empty, holding a digit, touching),
# separators of both kinds, lookalikes and case changes of digits, characters a view drops or
# expands (a combining mark, a ligature whose casefold is two hex letters), the "rn" that the
# fold joins, barriers, a stray bracket of the mark, an entity.
_MARKS = [MARK_OPEN + "x" + MARK_CLOSE, MARK_OPEN + "7" + MARK_CLOSE, MARK_OPEN + MARK_CLOSE]
_BETWEEN = [
    *_MARKS, " ", "\n", ".", "-", "\u00a0", "\u2003", "°", "₀", "'", '"', "%", "O", "l", "I",
    "A", "F", "\u03bf", "\u0301", "\ufb00", "r", "n", "rn", "x", "!", "]", "(", "\u27e6",
    "\u27e7", "&amp;", "&#48;", "\u00e9", "\U0001f389",
]  # fmt: skip


@st.composite
def nonce_and_body(draw: st.DrawFn) -> tuple[str, str]:
    nonce = draw(st.text(alphabet=_fence._HEX, min_size=20, max_size=20))
    cuts = sorted(draw(st.lists(st.integers(0, 20), max_size=4)))
    bounds = [0, *cuts, 20]
    pieces = [nonce[a:b] for a, b in pairwise(bounds)]
    spelling = draw(st.sampled_from(["as drawn", "upper", "lookalikes"]))
    if spelling == "upper":
        pieces = [p.upper() for p in pieces]
    elif spelling == "lookalikes":  # (found by the fold of the nonce only)
        pieces = [p.translate(str.maketrans("01", "Ol")) for p in pieces]
    out = draw(st.lists(st.sampled_from(_BETWEEN), max_size=3))
    for piece in pieces:
        out.append(piece)
        out += draw(st.lists(st.sampled_from(_BETWEEN), max_size=3))
    return nonce, "".join(out)


@settings(max_examples=1500)
@given(nonce_and_body())
def test_nonce_check_across_cut_marks_equals_the_check_on_whole_views(
    case: tuple[str, str],
) -> None:
    nonce, body = case
    expected = _plain_nonce_free(nonce, body)
    assert expected == _fence._nonce_free(nonce, _fence._views(body))


@settings(max_examples=300)
@given(st.lists(nonce_and_body(), min_size=1, max_size=4), st.sampled_from(["", "x", "\n"]))
def test_nonce_check_on_long_bodies_equals_the_check_on_whole_views(
    cases: list[tuple[str, str]], glue: str
) -> None:
    # Long bodies go through the remembered views; each case's nonce is looked for in all.
    body = glue.join(b for _, b in cases) * (4096 // (1 + sum(len(b) for _, b in cases)) + 1)
    for nonce, _ in cases:
        assert _plain_nonce_free(nonce, body) == _fence._nonce_free(nonce, _fence._views(body))


def test_the_junction_barrier_and_the_mark_brackets_are_barriers() -> None:
    expected = [True, True, True]
    actual = [c in _fence._BARRIER_SET for c in (_fence._BARRIER, MARK_OPEN[0], MARK_CLOSE)]
    assert expected == actual


def test_every_ascii_character_is_a_barrier_or_may_be_part_of_a_needle_run() -> None:
    # A barrier's views, compacted, are not empty and hold no character of a nonce or its fold.
    needle = set(_fence._HEX + fold(_fence._HEX))
    wrong = [
        c
        for c in _fence._BARRIERS
        if any(not _SEPARATORS.sub("", v) or set(v) & needle for v in (c.casefold(), fold(c)))
    ]
    assert [] == wrong


# Texts with few or many non-ASCII characters, with and without the non-ASCII separators.
_DELETE_PIECES = [
    "a", "b c", "\n", "\u00a0", "\u2003", "°", "₀", "\u3000", "\u00e9", "\u65e5\u672c",
    "\U0001f389", "\ud800", "-", "'",
]  # fmt: skip


@given(st.lists(st.sampled_from(_DELETE_PIECES), max_size=60), st.integers(0, 400))
def test_separator_removal_in_utf8_equals_the_regex_removal(parts: list[str], ascii_: int) -> None:
    text = "".join(parts) + "x" * ascii_
    expected = _SEPARATORS.sub("", text).encode("utf-8", "surrogatepass")
    assert expected == _chars.delete_chars_utf8(text, _fence._COMPACT_ASCII, _fence._COMPACT_OTHERS)


_ASCII = ["r", "n", "rn", "%", '"', "r%n", 'r"n', "l", "L", "0", "O", "A", " ", ".", "\n", "x"]


@settings(max_examples=500)
@given(st.lists(st.sampled_from(_ASCII), max_size=30).map("".join))
def test_ascii_views_made_in_bytes_equal_the_compacted_views(text: str) -> None:
    expected = [
        _chars.delete_chars_utf8(w, _fence._COMPACT_ASCII, _fence._COMPACT_OTHERS)
        for w in (_chars.casefold(text), fold(text))
    ]
    assert (expected, True) == (_fence._ascii_views(text), bool(_fence._ASCII_FOLD_SEPARATED))
