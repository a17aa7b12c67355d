"""A worker's report is bounded by its links: the text gets what the header and the
linked comments' URLs leave of ``NOTICE_BUILD_LIMIT`` (issue 25, item 2)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from comment_wake._limits import NOTICE_BUILD_LIMIT
from comment_wake.tools import WORKER_REPORT_KIND, worker_notice
from comment_wake.tools._messages import LinksTooLongError
from review_monitor import NoticeItem, NoticePr

T0 = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
# The longest names GitHub allows: a 39-character owner, a 100-character repository.
OWNER, REPO = "o" * 39, "r" * 100
PR = NoticePr(
    "github.com",
    f"{OWNER}/{REPO}",
    99999,
    f"https://github.com/{OWNER}/{REPO}/pull/99999",
    "T" * 256,
)


def linked(n: int, repo: str = f"{OWNER}/{REPO}") -> list[NoticeItem]:
    return [
        NoticeItem(
            f"PRRC_{i:012d}",
            10_000_000_000 + i,
            f"https://github.com/{repo}/pull/99999#discussion_r{10_000_000_000 + i}",
            "alice",
            "review-comment",
        )
        for i in range(n)
    ]


def report(text: str, comments: list[NoticeItem]) -> str:
    notice = worker_notice(
        WORKER_REPORT_KIND,
        worker="w" * 64,
        orchestrator="lead",
        pr=PR,
        text=text,
        comments=comments,
        at=T0,
    )
    return notice.text


def test_a_long_report_with_its_comments_links_fits_the_build_limit() -> None:
    text = report("x " * 20_000, linked(30))
    assert len(text) <= NOTICE_BUILD_LIMIT


def test_a_cut_report_keeps_every_link() -> None:
    comments = linked(30)
    text = report("x " * 20_000, comments)
    assert [c.url for c in comments] == [c.url for c in comments if f"- {c.url}" in text]


def test_a_report_of_fifty_ordinary_links_keeps_room_for_its_text() -> None:
    text = report("y" * 20_000, linked(50, repo="octo-org/octo-repo"))
    assert (True, True) == (len(text) <= NOTICE_BUILD_LIMIT, text.count("y") >= 3_000)


def test_links_that_leave_no_room_for_the_text_are_refused_with_what_to_do() -> None:
    with pytest.raises(LinksTooLongError, match="name fewer comments"):
        report("done", linked(50))
