"""The fixed-point proof's shortcuts decide exactly what their plain definitions decide: tidy
whitespace by substring tests, the scans' triggers of two characters by regexes, and the
triggers looked for in the text before it is masked."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from untrusted_fence import _chars, _clean, _hidden, _inline
from untrusted_fence._chars import clean_chars, tidy_whitespace
from untrusted_fence._hidden import MARK_CLOSE, MARK_OPEN, hidden_spans, mark_spans, merge


def _plain_settled(text: str) -> bool:
    """_clean._settled as first written."""
    atoms = mark_spans(text)
    count = len(atoms)
    if text.count(MARK_OPEN[0]) != count or text.count(MARK_CLOSE) != count:
        return False
    inner = len(MARK_OPEN)
    for start, end in atoms:
        if end - start == inner + 1 or text[start + inner].isspace() or text[end - 2].isspace():
            return False
    sep = _clean._SEPARATOR
    pieces = text.replace(MARK_OPEN, sep).replace(MARK_CLOSE, sep)
    if clean_chars(pieces) != pieces or tidy_whitespace(text) != text:
        return False
    masked = _clean._mask(text, atoms) if count else text
    if _plain_surely_nothing_hidden(masked):
        return True
    if not count:
        return not hidden_spans(text)
    return merge(hidden_spans(masked, atoms) + atoms) == merge(atoms)


def _plain_surely_nothing_hidden(text: str) -> bool:
    if any(trigger in text for trigger in _clean._SCAN_TRIGGERS):
        return False
    return not any(r.search(text) for r in _clean._HIDDEN_INFO_RES)


# Marks (stripped, empty, with spaces or a line break inside, holding a trigger or a fence),
# stray brackets and openers, a lone opener's text, the separator itself, whitespace to tidy,
# the scans' triggers, fences with and without hidden info tails, characters clean_chars
# changes.
_FRAGMENTS = [
    MARK_OPEN + "x" + MARK_CLOSE, MARK_OPEN + MARK_CLOSE, MARK_OPEN + " x" + MARK_CLOSE,
    MARK_OPEN + "x\u3000" + MARK_CLOSE, MARK_OPEN + "a\nb" + MARK_CLOSE,
    MARK_OPEN + "<b>" + MARK_CLOSE, MARK_OPEN + "](x" + MARK_CLOSE, MARK_OPEN + "|" + MARK_CLOSE,
    MARK_OPEN + "```py x" + MARK_CLOSE, MARK_OPEN, MARK_OPEN[0], MARK_CLOSE, "hidden: ",
    _clean._SEPARATOR, " ", "  ", " " * 33, "\t", "\n", "\n\n\n\n", "x", "e\u0301", "\u0301",
    "<", "|", "](", "![", "[^", "]:", "[", "]", "(", ":", "!", "^", "```", "```py", "```py x",
    "~~~", "~~~ a b", "`", "~", "\u200b", "\u00a0", "\ufb01",
]  # fmt: skip
texts = st.lists(st.sampled_from(_FRAGMENTS), max_size=24).map("".join)


@settings(max_examples=1000)
@given(texts)
def test_the_fixed_point_proof_decides_what_it_decided_as_first_written(text: str) -> None:
    assert _plain_settled(text) == _clean._settled(text)


@settings(max_examples=500)
@given(texts)
def test_a_text_surely_hiding_nothing_masks_to_one_surely_hiding_nothing(text: str) -> None:
    atoms = mark_spans(text)
    if _clean._surely_nothing_hidden(text):
        assert _clean._surely_nothing_hidden(_clean._mask(text, atoms))


# Mostly no trigger, so that the info strings decide.
_INFO_FRAGMENTS = ["```", "```py", "```py x", "~~~", "~~~ a b", "`", "~", "x", " ", "\n", "]("]


@settings(max_examples=500)
@given(texts | st.lists(st.sampled_from(_INFO_FRAGMENTS), max_size=12).map("".join))
def test_the_trigger_check_by_character_tests_first_equals_the_substring_check(text: str) -> None:
    assert _plain_surely_nothing_hidden(text) == _clean._surely_nothing_hidden(text)


_WHITESPACE = [" ", "  ", " " * 32, " " * 33, "\t", " \t", "\n", "\n\n\n", "\n\n\n\n", "x", "é"]


@given(st.lists(st.sampled_from(_WHITESPACE), max_size=20).map("".join))
def test_the_tidy_test_equals_comparing_with_the_tidied_text(text: str) -> None:
    assert (tidy_whitespace(text) == text) == _chars.is_tidy(text)


def test_a_mark_holding_a_trigger_is_masked_before_the_triggers_are_looked_for() -> None:
    # The text holds "<", but only inside its mark: the masked text hides nothing.
    text = f"a {MARK_OPEN}<b title=x>{MARK_CLOSE} b"
    assert [True, False] == [_clean._settled(text), _clean._surely_nothing_hidden(text)]


def test_mark_spans_of_the_fragments_are_the_marks() -> None:
    # (The fragments' first mark is one the step renders back unchanged.)
    assert [(0, len(_FRAGMENTS[0]))] == _hidden.mark_spans(_FRAGMENTS[0])


@given(
    st.text(alphabet="`~[]()!^:<| x\u00e9", max_size=30),
    st.sampled_from(["```", "~~~", "](", "![", "[^", "]:", "`"]),
)
def test_a_needle_held_by_character_tests_first_is_a_substring(text: str, needle: str) -> None:
    assert (needle in text) == _inline.holds(text, needle)
