"""The badge and GitHub's spelling of names: ``nameWithOwner`` spells each ``PrStatus``,
and one repository in two letter cases is one block of the query."""

from __future__ import annotations

from typing import Any

from review_monitor import PrRef
from review_monitor._queries import badge_query
from review_monitor.github import parse_badge

TYPED = PrRef("Octo-Org", "OCTO-REPO", 12)


def pr_node() -> dict[str, Any]:
    empty = {"pageInfo": {"hasPreviousPage": False, "startCursor": None}, "nodes": []}
    return {
        "number": 12,
        "title": "Add a thing",
        "url": "https://github.com/octo-org/octo-repo/pull/12",
        "state": "OPEN",
        "merged": False,
        "isDraft": False,
        "headRefOid": "abc123",
        "reviewDecision": None,
        "statusCheckRollup": None,
        "comments": empty,
        "reviews": empty,
    }


def test_a_status_is_spelled_as_github_spells_its_repository() -> None:
    data = {"r0": {"nameWithOwner": "octo-org/octo-repo", "p12": pr_node()}}
    batch = parse_badge(data, [TYPED], comments_window=10, reviews_window=20)
    assert "octo-org/octo-repo#12" == str(batch.statuses[TYPED].pr)


def test_a_status_without_name_with_owner_keeps_the_typed_spelling() -> None:
    batch = parse_badge({"r0": {"p12": pr_node()}}, [TYPED], comments_window=10, reviews_window=20)
    assert "Octo-Org/OCTO-REPO#12" == str(batch.statuses[TYPED].pr)


def test_the_badge_asks_for_name_with_owner_once_per_repository() -> None:
    doc, _ = badge_query([TYPED, PrRef("octo-org", "octo-repo", 15)])
    assert (1, 1) == (doc.count("nameWithOwner"), doc.count("repository("))
