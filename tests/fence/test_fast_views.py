"""The fast paths of the detection views give exactly what the plain definitions give."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from untrusted_fence import _chars

# Characters casefold changes (one to one, one to many, final sigma, title case), characters it
# keeps, and ASCII letters of both cases.
_CASES = "AbZß\u0130\u03a3\u03c3\u03c2\u01c5\u1e9e\ufb03\u0390\u212a\u017f\u00e9\u6587\U0001f389"
case_text = st.text(alphabet=st.sampled_from(_CASES + " \n"), max_size=80) | st.text(max_size=80)


@given(case_text)
def test_casefold_equals_str_casefold(text: str) -> None:
    assert text.casefold() == _chars.casefold.__wrapped__(text)  # type: ignore[attr-defined]


@given(st.lists(st.sampled_from(_CASES), max_size=40), st.integers(0, 80))
def test_casefold_of_many_distinct_characters_equals_str_casefold(
    parts: list[str], extra: int
) -> None:
    text = "".join(parts) + "".join(chr(0x0400 + i) for i in range(extra))
    assert text.casefold() == _chars.casefold.__wrapped__(text)  # type: ignore[attr-defined]


def test_casefold_keeps_lone_surrogates() -> None:
    text = "A\ud800\u00c9\udfff"
    assert text.casefold() == _chars.casefold(text)
