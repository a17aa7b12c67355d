"""``PrRef``: the forms a pull request is named in, GitHub's limits, and its case fold."""

from __future__ import annotations

import pytest

from review_monitor import MAX_PR_NUMBER, PrRef


@pytest.mark.parametrize(
    "text",
    [
        "octo-org/octo.repo#12",
        "octo-org/octo.repo/pull/12",
        "https://github.com/octo-org/octo.repo/pull/12",
        "https://github.com/octo-org/octo.repo/pull/12/",
        "https://github.com/octo-org/octo.repo/pull/12/files",
        "https://github.com/octo-org/octo.repo/pull/12/commits",
        "https://github.com/octo-org/octo.repo/pull/12#issuecomment-77",
        "https://github.com/octo-org/octo.repo/pull/12/files#diff-abc",
        "  https://GitHub.com/octo-org/octo.repo/pull/12  ",
    ],
)
def test_a_pull_request_is_named_by_ref_path_or_url(text: str) -> None:
    assert ("octo-org/octo.repo#12", "github.com") == (
        str(PrRef.parse(text)),
        PrRef.parse(text).host,
    )


def test_an_enterprise_url_takes_its_host_from_the_url() -> None:
    ref = PrRef.parse("https://ghe.example.com/team/app/pull/3", host="GHE.example.com")
    assert ("team/app#3", "ghe.example.com") == (str(ref), ref.host)


def test_a_url_is_read_for_any_host_when_none_is_given() -> None:
    assert "ghe.example.com" == PrRef.parse("https://ghe.example.com/o/r/pull/3", host=None).host


def test_a_url_on_another_host_than_the_watched_one_is_refused_naming_both() -> None:
    with pytest.raises(ValueError, match=r"on ghe\.example\.com, but the host is github\.com"):
        PrRef.parse("https://ghe.example.com/o/r/pull/3")


def test_the_largest_number_github_can_hold_is_accepted() -> None:
    assert MAX_PR_NUMBER == PrRef.parse(f"o/r#{MAX_PR_NUMBER}").number


@pytest.mark.parametrize("number", [2**31, 3000000000, 10**30])
def test_a_number_github_cannot_hold_is_refused_with_the_range(number: int) -> None:
    with pytest.raises(ValueError, match="from 1 to 2147483647"):
        PrRef.parse(f"octo/repo#{number}")


@pytest.mark.parametrize(
    "text",
    [
        "octo/repo#012",  # a leading zero
        "-octo/repo#1",  # an owner starts with a letter or digit
        "octo.org/repo#1",  # no dot in an owner
        f"{'o' * 40}/repo#1",  # an owner is at most 39
        f"octo/{'r' * 101}#1",  # a name is at most 100
        "octo/..#1",
        "octo/re po#1",
        "octo/repo/issues/1",
        "https://github.com/octo/repo/pull/1/checks",
        "ftp://github.com/octo/repo/pull/1",
    ],
)
def test_other_forms_are_refused_saying_which_are_accepted(text: str) -> None:
    with pytest.raises(ValueError, match="owner/name#N, owner/name/pull/N or https://HOST"):
        PrRef.parse(text)


def test_refs_differing_only_in_letter_case_are_one_pull_request() -> None:
    upper = PrRef("Octo", "Repo", 1, host="GitHub.com")
    lower = PrRef("octo", "repo", 1)
    assert (True, False, 1, "Octo/Repo#1") == (
        upper == lower,
        upper != lower,
        len({upper, lower}),
        str(upper),
    )


def test_the_fold_is_ascii_only() -> None:
    # GitHub's names are ASCII; a fold beyond it (the Kelvin sign to k) is not GitHub's.
    assert PrRef("o", "\u212a", 1) != PrRef("o", "k", 1)


def test_refs_sort_by_their_folded_names() -> None:
    refs = [PrRef("b", "x", 1), PrRef("A", "y", 1), PrRef("a", "x", 2)]
    assert ["a/x#2", "A/y#1", "b/x#1"] == [str(r) for r in sorted(refs)]


def test_spelled_takes_githubs_name_with_owner() -> None:
    assert "Octo/Repo#1" == str(PrRef("octo", "repo", 1).spelled("Octo/Repo"))


def test_spelled_keeps_the_ref_when_github_names_another_repository() -> None:
    # A renamed or transferred repository answers with its new name: not a spelling.
    assert "octo/repo#1" == str(PrRef("octo", "repo", 1).spelled("octo/renamed"))
