from __future__ import annotations

from datetime import timedelta

import pytest
from pydantic import BaseModel, ValidationError

from review_monitor import Duration, PrRef, format_duration, notice_key, parse_duration


def test_pr_ref_parses_owner_name_number() -> None:
    assert PrRef(owner="octo-org", name="octo.repo", number=12) == PrRef.parse(
        "octo-org/octo.repo#12"
    )


def test_pr_ref_prints_as_owner_name_number() -> None:
    assert "octo-org/octo-repo#12" == str(PrRef(owner="octo-org", name="octo-repo", number=12))


@pytest.mark.parametrize("text", ["octo/repo", "octo#12", "octo/repo#0", "octo/repo#x", "/repo#1"])
def test_pr_ref_refuses_malformed_reference_saying_how_to_write_it(text: str) -> None:
    with pytest.raises(ValueError, match="owner/name#N"):
        PrRef.parse(text)


@pytest.mark.parametrize(
    ("text", "seconds"), [("90s", 90), ("5m", 300), ("2h", 7200), ("1d", 86400), ("0s", 0)]
)
def test_parse_duration_reads_integer_and_unit(text: str, seconds: int) -> None:
    assert timedelta(seconds=seconds) == parse_duration(text)


@pytest.mark.parametrize("text", ["90", "5 m", "1.5h", "-1m", "5w", ""])
def test_parse_duration_refuses_other_spellings(text: str) -> None:
    with pytest.raises(ValueError, match="integer followed by ms, s, m, h or d"):
        parse_duration(text)


def test_parse_duration_reads_milliseconds() -> None:
    assert timedelta(milliseconds=300) == parse_duration("300ms")


def test_format_duration_spells_a_fraction_of_a_second_in_milliseconds() -> None:
    assert "300ms" == format_duration(timedelta(milliseconds=300))


def test_format_duration_picks_the_largest_exact_unit() -> None:
    assert ["90s", "5m", "2h", "1d"] == [
        format_duration(timedelta(seconds=s)) for s in (90, 300, 7200, 86400)
    ]


class _WithDuration(BaseModel):
    gap: Duration


def test_duration_field_validates_and_names_the_fix() -> None:
    assert timedelta(minutes=1) == _WithDuration(gap="1m").gap  # type: ignore[arg-type]
    with pytest.raises(ValidationError, match="integer followed by ms, s, m, h or d"):
        _WithDuration(gap="one minute")  # type: ignore[arg-type]


def test_notice_key_ignores_item_order() -> None:
    pr = PrRef(owner="o", name="r", number=1)
    assert notice_key("w1", pr, "comment-wake", ["b", "a"]) == notice_key(
        "w1", pr, "comment-wake", ["a", "b"]
    )


def test_notice_key_depends_on_host() -> None:
    pr = PrRef(owner="o", name="r", number=1)
    ghe = PrRef(owner="o", name="r", number=1, host="ghe.example.com")
    assert notice_key("w1", pr, "comment-wake", ["a"]) != notice_key(
        "w1", ghe, "comment-wake", ["a"]
    )


def test_notice_key_does_not_collide_by_concatenation() -> None:
    pr = PrRef(owner="o", name="r", number=1)
    assert notice_key("w1", pr, "k", ["ab", "c"]) != notice_key("w1", pr, "k", ["a", "bc"])
