"""The generated Unicode tables agree with the pinned unicodedata2, and beat the anchors."""

from __future__ import annotations

import regex  # type: ignore[import-untyped]
import unicodedata2  # type: ignore[import-not-found]

from untrusted_fence import UNICODE_VERSION, _tables, is_forbidden, is_unassigned

MAX = 0x110000
_DI = regex.compile(r"\p{Default_Ignorable_Code_Point}")
_NCHAR = regex.compile(r"\p{Noncharacter_Code_Point}")


def _expand(ranges: tuple[tuple[int, int], ...]) -> set[int]:
    return {cp for lo, hi in ranges for cp in range(lo, hi + 1)}


def test_tables_are_tagged_with_the_pinned_unicode_version() -> None:
    assert unicodedata2.unidata_version == UNICODE_VERSION
    assert "unicodedata2 18.0.0" in _tables.SOURCE


def test_forbidden_set_is_exactly_the_documented_union_under_unicodedata2() -> None:
    di = _expand(_tables.DEFAULT_IGNORABLE)
    nchar = _expand(_tables.NONCHARACTER)
    expected = {
        cp
        for cp in range(MAX)
        if unicodedata2.category(chr(cp)) in {"Cc", "Cf", "Zl", "Zp", "Co", "Cs"}
    }
    expected = (expected - {0x09, 0x0A}) | di | nchar | {0xFFFC}
    assert expected == _expand(_tables.FORBIDDEN)


def test_unassigned_table_is_cn_under_unicodedata2_minus_forbidden() -> None:
    forbidden = _expand(_tables.FORBIDDEN)
    expected = {cp for cp in range(MAX) if unicodedata2.category(chr(cp)) == "Cn"} - forbidden
    assert expected == _expand(_tables.UNASSIGNED)


def test_default_ignorable_table_matches_the_property_and_unicodedata2_categories() -> None:
    di = _expand(_tables.DEFAULT_IGNORABLE)
    # The property's core: every Cf that is not a prepended mark or a visible format control.
    assert {0x00AD, 0x034F, 0x061C, 0x115F, 0x17B4, 0x180E, 0x200B, 0x2065, 0xFFA0} <= di
    assert {cp for cp in range(0xE0000, 0xE1000)} <= di
    # Independent oracle: the regex module's own tables (proved equal in version by categories).
    assert {cp for cp in range(MAX) if _DI.match(chr(cp))} == di


def test_noncharacter_table_is_the_66_noncharacters() -> None:
    expected = set(range(0xFDD0, 0xFDF0)) | {
        plane << 16 | low for plane in range(17) for low in (0xFFFE, 0xFFFF)
    }
    assert expected == _expand(_tables.NONCHARACTER)


def test_confusables_map_lookalikes_of_marker_letters() -> None:
    conf = dict(_tables.CONFUSABLES)
    assert conf[0x0415] == "E"
    assert conf[0x039D] == "N"
    assert conf[0x13A0] == "D"


# I-20: the forbidden set is a superset of what every anchor removes (prior-art file, sec. 2-3).
CLAUDE_CODE_ACTION = [
    *(0x200B, 0x200C, 0x200D, 0xFEFF, 0x00AD, 0x000B, 0x000C),
    *range(0x0000, 0x0009),
    *range(0x000E, 0x0020),
    *range(0x007F, 0x00A0),
    *range(0x202A, 0x202F),
    *range(0x2066, 0x206A),
]
GITHUB_MCP_SERVER = [
    *(0x200B, 0x200C, 0x200E, 0x200F, 0x061C, 0x00AD, 0xFEFF, 0x180E, 0xE0001),
    *range(0xE0020, 0xE0080),
    *range(0x202A, 0x202F),
    *range(0x2066, 0x206A),
    *range(0x2060, 0x2065),
    *range(0xFE00, 0xFE10),  # variation selectors: contextual there, always removed here
    *range(0xE0100, 0xE01F0),
]
FTFY_CONTROL_CHARS = [
    *range(0x0000, 0x0009),
    0x000B,
    *range(0x000E, 0x0020),
    0x007F,
    *range(0x206A, 0x2070),
    0xFEFF,
    *range(0xFFF9, 0xFFFD),
]
PROMPTSHIELD = [0x200B, 0x200C, 0x200D, 0xFEFF, 0x3164, 0xFFA0, *range(0xE0000, 0xE0080)]


def test_forbidden_set_contains_everything_claude_code_action_removes() -> None:
    assert [f"U+{cp:04X}" for cp in CLAUDE_CODE_ACTION if not is_forbidden(cp)] == []


def test_forbidden_set_contains_everything_github_mcp_server_removes() -> None:
    assert [f"U+{cp:04X}" for cp in GITHUB_MCP_SERVER if not is_forbidden(cp)] == []


def test_forbidden_set_contains_everything_ftfy_removes() -> None:
    assert [f"U+{cp:04X}" for cp in FTFY_CONTROL_CHARS if not is_forbidden(cp)] == []


def test_forbidden_set_contains_everything_promptshield_lists() -> None:
    assert [f"U+{cp:04X}" for cp in PROMPTSHIELD if not is_forbidden(cp)] == []


def test_llm_guard_categories_are_removed_or_replaced() -> None:
    # llm-guard removes Cf, Co and Cn; Cf and Co are forbidden here, Cn becomes U+FFFD.
    missed = [
        f"U+{cp:04X}"
        for cp in range(MAX)
        if unicodedata2.category(chr(cp)) in {"Cf", "Co", "Cn"}
        and not (is_forbidden(cp) or is_unassigned(cp))
    ]
    assert missed == []
