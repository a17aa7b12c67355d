"""The fast paths of the detection views give exactly what the plain definitions give."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from untrusted_fence import _chars, _markers

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


def _plain_solid(line: str) -> int:
    """_markers._solid as first defined, on the line itself."""
    if "&" in line or "\u27e6" in line or "\u27e7" in line:
        return 0
    raw = line.encode("utf-8", "surrogatepass")
    if any(c in _markers._stop_bytes() for c in raw):
        return _markers._REACH
    return sum(1 for c in line if c.isascii() and c.isalnum())


_LINE_PARTS = ["a", "Z", "7", " ", "-", "!", "&", "\u27e6", "\u27e7", "\u00e9", "\n", ":", "<"]


@given(
    st.lists(st.sampled_from(_LINE_PARTS), max_size=30).map("".join),
    st.integers(0, 30),
    st.integers(0, 30),
)
def test_solid_searched_in_place_equals_the_definition_on_the_line(
    text: str, start: int, end: int
) -> None:
    start, end = sorted((min(start, len(text)), min(end, len(text))))
    assert _plain_solid(text[start:end]) == _markers._solid(text, start, end)


def _plain_hit_lines(scan: _markers._Scan, group: _markers._Group) -> list[int] | None:
    """_Scan._hit_lines as first written: the gates' lines first, then the probes' lines."""

    def lines(probes: list[_markers._Probe]) -> set[int] | None:
        counted = scan._probe_counts(probes)
        return None if counted is None else scan._lines_of(counted)

    if not group.probes:
        return None
    gated = None
    if group.gates:
        gated = lines(group.gates)
        if gated is not None and not gated:
            return []
    hits = lines(group.probes)
    if hits is None:
        if gated is None:
            return None
        hits = gated
    elif gated is not None:
        hits &= gated
    return sorted(hits)


_GATE_PARTS = ["end", "END", "backend", "untrusted", "comment", "begin", "Human:", "<|", "|>"]


@given(st.lists(st.sampled_from([*_GATE_PARTS, "\n", " ", "x", "="]), max_size=40).map("".join))
def test_hit_lines_counting_first_equals_the_gates_first_definition(text: str) -> None:
    for rules in _markers._RULES:
        scan = rules.scan(text)
        expected = [_plain_hit_lines(scan, g) for g in rules.groups]
        assert expected == [rules.scan(text).hit_lines(g) for g in rules.groups]
