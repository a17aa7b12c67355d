"""The views' and the step's shortcuts give exactly what their plain definitions give: the
fold's "rn" to "m" taken on the ASCII bytes first, the distinct characters of a text found by
taking them out one after another, tidy whitespace by substring tests, and the step's pieces
cleaned in one call and counted by the split alone."""

from __future__ import annotations

import re

import unicodedata2  # type: ignore[import-not-found]
from _references import fold_by_definition
from hypothesis import given, settings
from hypothesis import strategies as st

from untrusted_fence import _chars, _clean
from untrusted_fence._ucd import normalize

# ASCII pairs and letters, non-ASCII letters whose fold ends in "r" or starts with "n" (or holds
# them), the ASCII characters that expand, a letter the fold replaces with "i", a wide one.
_RN = [
    "r", "n", "rn", "rrn", "rnn", "R", "N", "m", "l", "x", " ", "\n", "\u00f1", "\u0159",
    "\u0155", "\u01ca", "\u0280", "\u0274", "\u00e9", '"', "%", "\u65e5", "\U0001f389", "\ud800",
]  # fmt: skip


@settings(max_examples=1000)
@given(st.lists(st.sampled_from(_RN), max_size=30).map("".join))
def test_fold_with_rn_first_on_the_ascii_bytes_equals_the_plain_fold(text: str) -> None:
    assert fold_by_definition(text) == _chars.fold(text)


@given(st.lists(st.sampled_from(_RN), max_size=40), st.integers(40, 80))
def test_fold_of_many_distinct_characters_equals_the_plain_fold(parts: list[str], n: int) -> None:
    text = "".join(parts) + "".join(chr(0x0100 + i) for i in range(n)) + "".join(parts)
    assert fold_by_definition(text) == _chars.fold(text)


@given(st.text(max_size=60) | st.lists(st.sampled_from(_RN), max_size=200).map("".join))
def test_distinct_characters_taken_out_one_by_one_are_the_set_of_the_text(text: str) -> None:
    assert set(text) == _chars._distinct(text)


def test_distinct_characters_of_a_text_of_many_equal_ones_and_a_few_others() -> None:
    # Each character taken out is at least a sixteenth of the rest, but for the last few.
    text = "a" * 1000 + "b" * 100 + "cdefg"
    assert set("abcdefg") == _chars._distinct(text)


def _plain_tidy(text: str) -> str:
    """tidy_whitespace by its regexes alone."""
    text = re.sub(r"[ \t]{33,}+", lambda m: m.group()[:32], text)
    text = "\n".join(line.rstrip(" \t") for line in text.split("\n"))
    return re.sub(r"\n{4,}+", "\n\n\n", text).strip("\n")


_SPACES = [" ", "  ", " " * 31, " " * 33, "\t", " \t", "\t ", "\n", "\n\n\n\n", "x", "\u00e9"]


@settings(max_examples=500)
@given(st.lists(st.sampled_from(_SPACES), max_size=20).map("".join))
def test_tidy_whitespace_by_substring_tests_equals_its_regexes(text: str) -> None:
    assert _plain_tidy(text) == _chars.tidy_whitespace(text)


_PIECES = ["a", "\u00e9", "e\u0301", "\u0301", "\u200b", _clean._SEPARATOR, "\ufb01", " ", "\n"]


@given(st.lists(st.lists(st.sampled_from(_PIECES), max_size=4).map("".join), max_size=12))
def test_pieces_cleaned_in_one_call_equal_each_piece_cleaned(
    pieces: list[str],
) -> None:
    expected = [_chars.clean_chars(p) for p in pieces]
    assert expected == _clean._clean_pieces(pieces)


def test_no_code_point_but_the_separator_holds_it_after_nfkc_or_in_its_decomposition() -> None:
    # (_clean_pieces counts the pieces by the separator: clean_chars must keep it, make none
    # and compose it with nothing.)
    sep = _clean._SEPARATOR
    cps = [c for c in range(0x110000) if not 0xD800 <= c < 0xE000 and c != ord(sep)]
    holding = [c for c in cps if sep in normalize("NFKC", chr(c))]
    decomposed = [c for c in cps if f"{ord(sep):04X}" in unicodedata2.decomposition(chr(c))]
    assert ([], [], sep) == (holding, decomposed, _chars.clean_chars(sep))
