"""A literal probe skipped where the compacted view lacks a part of its literal, and a needed
literal looked for only until its first occurrence, choose exactly the lines the probes
themselves choose (hypothesis)."""

from __future__ import annotations

import dataclasses

from hypothesis import given, settings
from hypothesis import strategies as st

from untrusted_fence import _markers


def _literal_probes_with_needs() -> list[tuple[_markers._Rules, _markers._Probe]]:
    return [
        (rules, p)
        for rules in _markers._RULES
        for g in rules.groups
        for p in [*g.probes, *(g.gates or [])]
        if p.literal is not None and p.needs is not None
    ]


def test_some_literal_probe_needs_a_literal() -> None:
    # (So that the shortcut below is taken at all.)
    assert [] != _literal_probes_with_needs()


def _sole_members(rules: _markers._Rules, probe: _markers._Probe) -> set[str]:
    """The characters that are alone in a class of a shape probe's literal: each occurrence of
    the literal in the shape stands for an occurrence of each of them in the view."""
    assert isinstance(probe.literal, bytes)
    table = rules.shape_tables[probe.on]
    sole = set()
    for code in set(probe.literal):
        members = [b for b in range(256) if table[b] == code]
        if len(members) == 1 and members[0] < 0x80:
            sole.add(chr(members[0]))
    return sole


def test_a_literal_probe_needs_a_part_of_its_literal_that_compaction_keeps() -> None:
    # An occurrence of the literal in the view holds the part (a shape's literal: a character
    # alone in one of its classes), and no character of the part is a separator, so the
    # compacted view holds the part too.
    wrong = []
    for rules, p in _literal_probes_with_needs():
        assert p.needs is not None
        if isinstance(p.literal, bytes):
            holds = p.needs in _sole_members(rules, p)
        else:
            holds = p.needs in (p.literal or "")
        if not holds or any(c in rules.seps or c == "\n" for c in p.needs):
            wrong.append(p.literal)
    assert [] == wrong


_PIECES = [
    "<", "s", ">", "/", "<s>", "</s>", "<<", "sys", "<<sys", "< <sys", "<-", "-<", " ", "\n",
    "x", "[", "INST", "]", "<|", "|>", "im_end", "<system>", "S", "\u0455", "\uff1c", "|",
    "\u2502", "\t", "| >", "|>", "< | im_end |", "end", "begin", "#", "# System",
]  # fmt: skip
probe_text = st.lists(st.sampled_from(_PIECES), max_size=30).map("".join)


def _without_needs(group: _markers._Group) -> _markers._Group:
    plain = [dataclasses.replace(p, needs=None) for p in group.probes]
    gates = [dataclasses.replace(p, needs=None) for p in group.gates or []] or None
    return dataclasses.replace(group, probes=plain, gates=gates)


@settings(max_examples=500)
@given(probe_text)
def test_hit_lines_with_literal_probes_skipped_where_their_part_is_absent_equal_probing(
    text: str,
) -> None:
    for rules in _markers._RULES:
        plain = [_without_needs(g) for g in rules.groups]  # (kept alive: hits cached by id)
        view = rules.view(text)
        expected = [_markers._Scan(rules, view).hit_lines(g) for g in plain]
        scan = _markers._Scan(rules, view)
        assert expected == [scan.hit_lines(g) for g in rules.groups]
