"""The truncation's cut point (``_fence._cut_point``) walks grapheme clusters in a slice near the
cut; it must find the boundary a walk over the whole text finds."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from untrusted_fence import _fence
from untrusted_fence._ucd import grapheme_ends

_PIECES = [
    "\U0001f1eb",  # regional indicators: they pair from the start of their run
    "\U0001f1f7",
    "a",
    "\u0301",  # a combining mark (Extend)
    "\u200d",  # ZWJ
    "\U0001f468",  # an Extended_Pictographic emoji
    "\u0600",  # Prepend
    "\u1100\u1161",  # Hangul L and V
    "\u0915\u094d",  # a consonant and virama (an Indic conjunct)
    "\n",
    "\r",
    " ",
]
texts = st.lists(st.tuples(st.sampled_from(_PIECES), st.integers(1, 300)), max_size=8).map(
    lambda runs: "".join(piece * count for piece, count in runs)
)


def _reference(text: str, limit: int) -> int:
    return max(end for end in [0, *grapheme_ends(text, 0, len(text))] if end <= limit)


@settings(max_examples=300, deadline=None)
@given(texts, st.data())
def test_the_cut_point_is_the_last_cluster_boundary_before_the_limit(
    text: str, data: st.DataObject
) -> None:
    limit = data.draw(st.integers(0, len(text)))
    assert _reference(text, limit) == _fence._cut_point(text, limit)


def test_a_cut_inside_a_letter_with_thousands_of_combining_marks_keeps_the_cluster_whole() -> None:
    text = "x\n" + "a" + "\u0301" * 10_000
    assert 2 == _fence._cut_point(text, 5_000)


def test_a_cut_in_a_long_run_of_flags_falls_between_two_flags() -> None:
    text = "a" + "\U0001f1eb\U0001f1f7" * 20_000
    assert 30_001 == _fence._cut_point(text, 30_002)


def test_a_flag_after_a_prepend_character_is_not_cut_from_it() -> None:
    # "\u0600" (Prepend) joins the flag and its combining marks into one cluster after "a".
    text = "a\u0600\U0001f1eb\U0001f1f7" + "\u0301" * 100
    assert 1 == _fence._cut_point(text, len(text) - 1)
