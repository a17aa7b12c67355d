"""Marker detection that skips lines already searched gives exactly what searching every rule on
every whole view gives (hypothesis)."""

from __future__ import annotations

from _references import any_marker_on_whole_views
from hypothesis import given, settings
from hypothesis import strategies as st

from untrusted_fence import _markers

_HIDDEN = "\u27e6hidden: "
# Role words, lookalike colons, phrase words, leads, separators, newlines, hidden marks (one
# over lines, one holding a marker's letters), tags, entities, the fence's own syntax.
_PIECES = [
    "Human", "human", "Assistant", "system", "User", "ai", "a", "h", "bot", "model", ":",
    "\u2236", "\uff1a", "\u02d0", "**", "__", "> ", "# ", "## ", "- ", "1. ", "2) ", "~", "+",
    " ", "\t", ".", "-", "_", "*", "|", "/", "end", "END", "of", "the", "quoted", "text",
    "comment", "ends", "here", "begin", "stop", "fin du texte cite", "\u5f15\u7528\u7ed3\u675f",
    "x", "1", ",", "\n", "\n\n", _HIDDEN + "x\u27e7", _HIDDEN + "a\nb\u27e7", _HIDDEN + "EN\u27e7",
    "E" + _HIDDEN + "x\u27e7ND", "<b>", "</b>", "E<b>N</b>D", "&shy;", "&#69;", "&amp;",
    "UNTRUSTED", "<<<untrusted-comment-end", "0123>>>", "System\n===", "\u0415", "rn",
    "Hu" + _HIDDEN + "x\u27e7man:", "Hu<i>man</i>:", "Hu&shy;man:",
]  # fmt: skip
line_text = st.lists(st.sampled_from(_PIECES), max_size=30).map("".join)


@settings(max_examples=600)
@given(line_text)
def test_detection_that_skips_known_lines_equals_every_rule_on_every_whole_view(
    text: str,
) -> None:
    assert any_marker_on_whole_views(text) == _markers.find_markers(text)


@settings(max_examples=600)
@given(line_text, line_text)
def test_a_variant_searched_on_its_new_lines_equals_the_variant_searched_whole(
    base: str, variant: str
) -> None:
    # The base's lines are known only when no rule matches the base (as in find_markers); the
    # variant shares lines with it.
    variant = base + "\n" + variant + "\n" + base
    for rules in _markers._RULES:
        base_view, view = rules.view(base), rules.view(variant)
        if rules.rx.search(base_view) is not None:
            continue
        expected = rules.rx.search(view) is not None or rules.cross_search(view)
        known = set(base_view.split("\n"))
        assert expected == _markers._new_lines_search(rules, view, known)
