"""``parse_badge``: pure parsing of a badge answer."""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from review_monitor import Author, BadgeItem, PageInfo, PrRef, PrStatus
from review_monitor.github import parse_badge
from review_monitor.poll import BadgeBatch

PR = PrRef("octo-org", "octo-repo", 12)
OTHER = PrRef("octo-org", "octo-repo", 15)
ELSEWHERE = PrRef("someone", "else", 3)
T0 = datetime(2030, 1, 2, 3, 0, 0, tzinfo=UTC)


def _iso(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def comment(n: int, **over: Any) -> dict[str, Any]:
    node: dict[str, Any] = {
        "id": f"IC_{n}",
        "fullDatabaseId": str(1000 + n),
        "createdAt": _iso(T0 + timedelta(minutes=n)),
        "author": {"__typename": "User", "login": "alice"},
        "viewerDidAuthor": False,
        "isMinimized": False,
    }
    node.update(over)
    return node


def review(n: int, **over: Any) -> dict[str, Any]:
    node: dict[str, Any] = {
        "id": f"PRR_{n}",
        "fullDatabaseId": str(5000 + n),
        "submittedAt": _iso(T0 + timedelta(minutes=n)),
        "state": "APPROVED",
        "author": {"__typename": "User", "login": "bob"},
        "viewerDidAuthor": False,
        "isMinimized": False,
    }
    node.update(over)
    return node


def pr_node(
    comments: list[Any] | None = None,
    reviews: list[Any] | None = None,
    *,
    c_prev: bool = False,
    r_prev: bool = False,
    **over: Any,
) -> dict[str, Any]:
    node: dict[str, Any] = {
        "number": 12,
        "title": "Add a thing",
        "url": "https://github.com/octo-org/octo-repo/pull/12",
        "state": "OPEN",
        "merged": False,
        "isDraft": True,
        "headRefOid": "abc123",
        "reviewDecision": "REVIEW_REQUIRED",
        "statusCheckRollup": {"state": "FAILURE"},
        "comments": {
            "pageInfo": {"hasPreviousPage": c_prev, "startCursor": "c-start"},
            "nodes": comments or [],
        },
        "reviews": {
            "pageInfo": {"hasPreviousPage": r_prev, "startCursor": "r-start"},
            "nodes": reviews or [],
        },
    }
    node.update(over)
    return node


def parse(
    data: Any, prs: list[PrRef] | None = None, *, c: int = 10, r: int = 20, errors: Any = ()
) -> BadgeBatch:
    return parse_badge(data, prs or [PR], comments_window=c, reviews_window=r, errors=errors)


def test_every_field_of_a_pr_is_parsed() -> None:
    data = {"r0": {"p12": pr_node([comment(1)], [review(2)])}}
    expected = PrStatus(
        pr=PR,
        title="Add a thing",
        url="https://github.com/octo-org/octo-repo/pull/12",
        state="OPEN",
        merged=False,
        is_draft=True,
        head_ref_oid="abc123",
        review_decision="REVIEW_REQUIRED",
        check_state="FAILURE",
        comments=(
            BadgeItem(
                kind="comment",
                id="IC_1",
                database_id=1001,
                created_at=T0 + timedelta(minutes=1),
                author=Author("alice", "User"),
            ),
        ),
        reviews=(
            BadgeItem(
                kind="review",
                id="PRR_2",
                database_id=5002,
                created_at=T0 + timedelta(minutes=2),
                author=Author("bob", "User"),
                state="APPROVED",
            ),
        ),
        person_comments_from=None,
        comments_page=PageInfo(False, "c-start"),
        reviews_page=PageInfo(False, "r-start"),
    )
    assert {PR: expected} == parse(data).statuses


def test_no_checks_is_a_null_check_state() -> None:
    data = {"r0": {"p12": pr_node(statusCheckRollup=None)}}
    assert parse(data).statuses[PR].check_state is None


def test_bot_and_viewer_flags_are_kept() -> None:
    node = comment(
        1,
        author={"__typename": "Bot", "login": "dependabot"},
        viewerDidAuthor=True,
        isMinimized=True,
    )
    item = parse({"r0": {"p12": pr_node([node])}}).statuses[PR].comments[0]
    assert (Author("dependabot", "Bot"), True, True) == (
        item.author,
        item.viewer_did_author,
        item.is_minimized,
    )


def test_a_null_author_is_a_deleted_account() -> None:
    node = comment(1, author=None)
    assert parse({"r0": {"p12": pr_node([node])}}).statuses[PR].comments[0].author is None


def test_full_database_id_is_parsed_from_its_string() -> None:
    node = comment(1, fullDatabaseId="98765432109876")
    assert (
        98765432109876
        == parse({"r0": {"p12": pr_node([node])}}).statuses[PR].comments[0].database_id
    )


def test_database_id_is_used_when_full_database_id_is_absent() -> None:
    node = comment(1, databaseId=77)
    del node["fullDatabaseId"]
    assert 77 == parse({"r0": {"p12": pr_node([node])}}).statuses[PR].comments[0].database_id


def test_a_non_numeric_database_id_is_none() -> None:
    node = comment(1, fullDatabaseId="12abc")
    assert parse({"r0": {"p12": pr_node([node])}}).statuses[PR].comments[0].database_id is None


def test_a_time_with_an_offset_becomes_utc() -> None:
    node = comment(1, createdAt="2030-01-02T05:00:00+02:00")
    created = parse({"r0": {"p12": pr_node([node])}}).statuses[PR].comments[0].created_at
    assert (datetime(2030, 1, 2, 3, 0, tzinfo=UTC), UTC) == (created, created.tzinfo)


@pytest.mark.parametrize("bad", ["yesterday", None, 12, "2030-01-02T03:00:00", ""])
def test_an_item_without_a_parseable_time_is_left_off(bad: object) -> None:
    data = {"r0": {"p12": pr_node([comment(1, createdAt=bad), comment(2)])}}
    assert ["IC_2"] == [c.id for c in parse(data).statuses[PR].comments]


def test_a_left_off_item_gets_one_log_line_without_author_or_text(
    caplog: pytest.LogCaptureFixture,
) -> None:
    node = comment(1, createdAt="not a time", author={"__typename": "User", "login": "mallory"})
    with caplog.at_level(logging.DEBUG, logger="review_monitor"):
        parse({"r0": {"p12": pr_node([node])}})
    lines = [r.getMessage() for r in caplog.records]
    assert (1, False, False) == (
        len(lines),
        "mallory" in lines[0],
        "not a time" in lines[0],
    )


def test_a_review_without_submitted_at_is_left_off() -> None:
    data = {"r0": {"p12": pr_node([], [review(1, submittedAt=None), review(2)])}}
    assert ["PRR_2"] == [r.id for r in parse(data).statuses[PR].reviews]


def test_a_null_node_in_a_listing_is_skipped() -> None:
    data = {"r0": {"p12": pr_node([None, comment(2)])}}
    assert ["IC_2"] == [c.id for c in parse(data).statuses[PR].comments]


def test_a_null_pr_is_missing_and_the_rest_still_parsed() -> None:
    data = {"r0": {"p12": pr_node(), "p15": None}}
    errors = [{"type": "NOT_FOUND", "path": ["r0", "p15"], "message": "Could not resolve"}]
    batch = parse(data, [PR, OTHER], errors=errors)
    assert ([PR], (OTHER,)) == (list(batch.statuses), batch.missing)


def test_a_missing_repository_makes_its_prs_missing() -> None:
    data = {"r0": {"p12": pr_node()}, "r1": None}
    errors = [{"type": "NOT_FOUND", "path": ["r1"], "message": "Could not resolve"}]
    batch = parse(data, [PR, ELSEWHERE], errors=errors)
    assert ([PR], (ELSEWHERE,)) == (list(batch.statuses), batch.missing)


def test_a_pr_nulled_by_another_error_is_neither_read_nor_missing() -> None:
    data = {"r0": {"p12": pr_node(), "p15": None}}
    errors = [{"type": "SERVICE_UNAVAILABLE", "path": ["r0", "p15"], "message": "timeout"}]
    batch = parse(data, [PR, OTHER], errors=errors)
    assert ([PR], ()) == (list(batch.statuses), batch.missing)


def test_a_malformed_pr_is_neither_read_nor_missing() -> None:
    data = {"r0": {"p12": pr_node(merged="yes")}}
    batch = parse(data)
    assert ({}, ()) == (batch.statuses, batch.missing)


def test_no_data_at_all_makes_every_pr_missing() -> None:
    assert (PR, OTHER) == parse(None, [PR, OTHER]).missing


def test_listing_not_full_is_whole_from_the_start() -> None:
    data = {"r0": {"p12": pr_node([comment(i) for i in range(9)], c_prev=False)}}
    assert parse(data).statuses[PR].person_comments_from is None


def test_full_comments_listing_is_whole_from_its_oldest_item() -> None:
    data = {"r0": {"p12": pr_node([comment(i) for i in range(3, 13)], c_prev=True)}}
    assert T0 + timedelta(minutes=3) == parse(data).statuses[PR].person_comments_from


def test_when_both_listings_are_full_the_later_start_wins() -> None:
    comments = [comment(i) for i in range(3, 13)]
    reviews = [review(i) for i in range(5, 25)]
    data = {"r0": {"p12": pr_node(comments, reviews, c_prev=True, r_prev=True)}}
    assert T0 + timedelta(minutes=5) == parse(data).statuses[PR].person_comments_from


def test_a_full_listing_with_nothing_before_it_is_whole() -> None:
    data = {"r0": {"p12": pr_node([comment(i) for i in range(10)], c_prev=False)}}
    assert parse(data).statuses[PR].person_comments_from is None


def test_a_full_listing_counts_an_item_left_off_for_its_time() -> None:
    comments = [comment(0, createdAt="bad")] + [comment(i) for i in range(1, 10)]
    data = {"r0": {"p12": pr_node(comments, c_prev=True)}}
    assert T0 + timedelta(minutes=1) == parse(data).statuses[PR].person_comments_from


def test_rate_limit_fields_are_read() -> None:
    data = {
        "r0": {"p12": pr_node()},
        "rateLimit": {
            "cost": 2,
            "remaining": 4990,
            "resetAt": "2030-01-02T04:00:00Z",
            "limit": 5000,
        },
    }
    batch = parse(data)
    assert (2, 4990, datetime(2030, 1, 2, 4, tzinfo=UTC)) == (
        batch.cost,
        batch.remaining,
        batch.reset_at,
    )
