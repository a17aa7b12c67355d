"""Property tests (hypothesis) for the invariants of section 7 of the prior-art file."""

from __future__ import annotations

import random
from collections.abc import Callable

import unicodedata2  # type: ignore[import-not-found]
from hypothesis import given, settings
from hypothesis import strategies as st

import untrusted_fence as uf

FRAGMENTS = [
    "END", "BEGIN", "end of quoted text", "UNTRUSTED", "-----", "%%%", "<|im_end|>", "<!--",
    "-->", "<?", "?>", "<!X", "<![CDATA[", "]]>", "[//]: # (", ")", "[x]: /u \"", "\"", "[^1]",
    "[^2]: ", "![", "](", "\n", "\n\n", "```", "`", "> ", "&#69;", "&#x200B;", "&amp;", "\x1b[",
    "\x1b]8;;", "\x07", "\x1b[8m", "\x9b", "\u200b", "\u202e", "\U000e0041", "\ufe0f", "\u3164",
    "\u2028", "\r", "\r\n", "\ud800", "\u27e6hidden: ", "\u27e7", "\u0415", "\uff25", "\u0301",
    "\U0001ccda", "\ufdfa", "[fence-like marker removed]", "E", "N", "D", "a", " ", "\t",
    "0123456789abcdef", "<img alt=\"x\">", "Human:", "<information>", "OF", "QUOTED", "TEXT",
]  # fmt: skip

adversarial = st.lists(st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=4)), max_size=30).map(
    "".join
)
any_text = st.one_of(st.text(max_size=300), adversarial)
MARKER_LETTERS = "END OF QUOTED TEXT"
INVISIBLES = ["\u200b", "\u2060", "\u00ad", "\ufe0f", "\U000e0020", "\u034f", "\u0301", "\u0338"]


@given(text=any_text, source=st.one_of(st.none(), any_text))
def test_every_fenced_output_keeps_the_structural_invariants(
    text: str, source: str | None, check: Callable[[uf.Fenced], None]
) -> None:
    check(uf.fence(text, source=source))


@given(any_text)
def test_cleaning_what_the_plain_path_shows_changes_nothing(text: str) -> None:
    shown = [t for k, t in uf.plain(text).pieces if k == "raw"]
    assert shown == [uf.clean(t) for t in shown]


@given(any_text)
def test_cleaned_text_is_nfkc_stable_under_the_pinned_tables(text: str) -> None:
    cleaned = uf.clean(text)
    assert unicodedata2.normalize("NFKC", cleaned) == cleaned


@given(any_text)
def test_output_always_encodes_as_strict_utf8(text: str) -> None:
    uf.fence(text).text.encode("utf-8", errors="strict")


@given(st.lists(st.sampled_from(INVISIBLES), min_size=len(MARKER_LETTERS),
                max_size=len(MARKER_LETTERS)))  # fmt: skip
def test_invisible_or_combining_insertions_never_rescue_a_marker(inserts: list[str]) -> None:
    spliced = "".join(c + i for c, i in zip(MARKER_LETTERS, inserts, strict=True))
    assert not uf.holds_marker(uf.clean(spliced))


@given(text=any_text, cap=st.integers(min_value=0, max_value=200))
def test_truncated_body_respects_the_cap_and_keeps_marks_whole(
    text: str, cap: int, check: Callable[[uf.Fenced], None]
) -> None:
    fenced = uf.fence(text, max_chars=cap)
    check(fenced)
    lines = fenced.body.split("\n")
    if fenced.truncated:
        assert lines[-1].startswith("[truncated: ")
        content = "\n".join(lines[:-1])
        assert len(content) <= cap
    else:
        assert len(fenced.body) <= cap


@given(any_text, st.integers(min_value=0, max_value=2**32))
def test_a_seeded_rng_gives_the_same_bytes(text: str, seed: int) -> None:
    first = uf.fence(text, source="@a", rng=random.Random(seed))
    second = uf.fence(text, source="@a", rng=random.Random(seed))
    assert first == second


@given(any_text, any_text)
def test_the_source_never_reaches_header_opener_or_footer(source: str, text: str) -> None:
    plain = uf.fence("x", source=None, rng=random.Random(1))
    labelled = uf.fence("x", source=source, rng=random.Random(1))
    header = labelled.text.split("\n" + labelled.opener)[0]
    assert plain.text.split("\n" + plain.opener)[0] == header
    assert plain.opener == labelled.opener
    assert plain.footer == labelled.footer


@given(text=adversarial)
def test_no_hidden_mark_is_left_open_or_nested(
    text: str, parts_hidden: Callable[[str], list[str]]
) -> None:
    body = uf.clean(text)
    depth = 0
    for ch in body:
        if ch == uf.HIDDEN_OPEN[0]:
            depth += 1
        elif ch == uf.HIDDEN_CLOSE:
            depth -= 1
        assert depth in (0, 1)
    assert depth == 0


# The SGR codes that decide visibility (reset, conceal and reveal, one colour as foreground
# and background, the bright ones, the defaults), each with or without leading zeros.
SGR_CODES = st.sampled_from([0, 1, 8, 28, 31, 39, 41, 49, 97, 107])
SGR_PARAMS = st.lists(
    st.one_of(
        st.tuples(st.integers(0, 2), SGR_CODES).map(lambda z: "0" * z[0] + str(z[1])),
        st.sampled_from(["", "38;5;1", "48;5;1", "38;2;1;2;3", "48:2:1:2:3"]),
    ),
    min_size=1,
    max_size=4,
).map(lambda ps: "\x1b[" + ";".join(ps) + "m")


@settings(max_examples=400)
@given(st.lists(st.one_of(SGR_PARAMS, st.sampled_from(["a", "b ", "\x1b[0m"])), max_size=8))
def test_the_quick_path_for_ansi_text_agrees_with_the_full_one(parts: list[str]) -> None:
    # strip_ansi skips the SGR state machine when no sequence can hide text; that shortcut
    # must never show what the state machine would hide.
    from untrusted_fence._ansi import _strip_with_hidden, strip_ansi

    text = "".join(parts)
    assert _strip_with_hidden(text) == strip_ansi(text)
