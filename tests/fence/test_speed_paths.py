"""The second speed pass: each fast path gives exactly what its plain definition gives."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from untrusted_fence import _ansi, _chars, _clean
from untrusted_fence._ucd import normalize

# Kept and changed characters, in and out of the common blocks: controls, brackets, blanks,
# forbidden and unassigned code points, compositions, emoji, surrogates.
_CHAR_MIX = (
    "a \t\n\r\x00\x7f\x85\u00e9e\u0301\u1100\u1161\u27e6\u27e7\u3010\u2800\u1680\u2028\u200b"
    "\u0378\ue000\ufb01\uff21\u2460\U0001f389\U0001f3fb\U000e0041\ud800\u4e00\u2b1a\u00a0"
)
char_text = st.text(alphabet=st.sampled_from(_CHAR_MIX), max_size=40) | st.text(max_size=40)


def _reference_clean_chars(text: str) -> str:
    """clean_chars as first written: a regex pass over every run outside the common blocks."""
    if text.isascii():
        return _chars._ASCII_CONTROL_RE.sub("", text)
    text = _chars._SUSPECT_RE.sub(_chars._fix_run, text)
    while (again := normalize("NFKC", text)) != text:
        text = _chars._SUSPECT_RE.sub(_chars._fix_run, again)
    return text


@given(char_text)
def test_clean_chars_with_the_byte_prefilter_equals_the_regex_pass(text: str) -> None:
    assert _reference_clean_chars(text) == _chars.clean_chars(text)


@given(st.lists(char_text, min_size=2, max_size=4))
def test_clean_chars_is_unchanged_by_what_earlier_calls_memoised(texts: list[str]) -> None:
    expected = [_reference_clean_chars(t) for t in texts]
    assert expected == [_chars.clean_chars(t) for t in texts + texts][len(texts) :]


@given(
    char_text | st.text(alphabet=st.sampled_from("\x1b\x90\x9b\x9f\u00c2\u00a0a\u0142"), max_size=8)
)
def test_trigger_prefilter_equals_the_trigger_regex(text: str) -> None:
    assert (_ansi._TRIGGER_RE.search(text) is not None) == _ansi._has_trigger(text)


@given(char_text)
def test_surrogate_prefilter_equals_the_surrogate_regex(text: str) -> None:
    assert (_clean._SURROGATE_RE.search(text) is not None) == _clean._has_surrogate(text)


@given(st.lists(st.sampled_from(["a", "b\u0415", "rn\u00df", "x\n"]), min_size=1, max_size=8))
def test_remembered_views_of_long_texts_equal_fresh_ones(seeds: list[str]) -> None:
    # Long texts (the memo only keeps those), asked for in an order that revisits old ones.
    texts = [seed * 3000 for seed in seeds + seeds[::-1] + seeds]
    for view in (_chars.fold, _chars.casefold):
        fresh = view.__wrapped__  # type: ignore[attr-defined]
        assert [fresh(t) for t in texts] == [view(t) for t in texts]
