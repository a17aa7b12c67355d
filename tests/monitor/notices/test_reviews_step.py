"""The monitor's reviews as a pure step with needs, on the shared seen set."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime, timedelta

from review_monitor import Author, BadgeItem, LookupFailed, PermissionAnswer, PrRef, PrStatus
from review_monitor._notices import NoticesMark, reviews_step

PR = PrRef(owner="octo-org", name="octo-repo", number=12)
T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
S = timedelta(seconds=1)
RETRIES = (timedelta(minutes=1), timedelta(minutes=2), timedelta(minutes=4))
Answers = Mapping[str, PermissionAnswer | LookupFailed]


def review(rid: str, login: str, at: datetime = T0, state: str = "APPROVED") -> BadgeItem:
    return BadgeItem("review", rid, 1, at, Author(login), state=state)


def status(*reviews: BadgeItem) -> PrStatus:
    return PrStatus(
        pr=PR,
        title="Fix the parser",
        url="https://github.com/octo-org/octo-repo/pull/12",
        state="OPEN",
        merged=False,
        is_draft=False,
        head_ref_oid="a" * 40,
        review_decision=None,
        check_state=None,
        comments=(),
        reviews=reviews,
        person_comments_from=None,
    )


def writer(login: str) -> PermissionAnswer:
    return PermissionAnswer(login, "write", None, True, T0)


def step(mark: NoticesMark, new: PrStatus, answers: Answers, now: datetime = T0) -> NoticesMark:
    result = reviews_step(mark, new, answers, now, retries=RETRIES)
    assert () == result.needs
    return result.mark


def test_a_verdict_by_an_author_not_looked_up_needs_one_lookup_per_login() -> None:
    new = status(review("R1", "alice"), review("R2", "alice", T0 + S))
    result = reviews_step(NoticesMark(), new, {}, T0, retries=RETRIES)
    assert (("alice",), NoticesMark(), ()) == (result.needs, result.mark, result.announce)


def test_a_trusted_verdict_is_announced_once_its_answer_is_read() -> None:
    result = reviews_step(
        NoticesMark(), status(review("R1", "alice")), {"alice": writer("alice")}, T0
    )
    assert [("R1", "review-verdict")] == [(r.id, kind) for r, kind in result.announce]


def test_a_failed_lookup_waits_for_its_retry_and_asks_nothing_before() -> None:
    failed = {"alice": LookupFailed("alice", 502, "server error")}
    mark = step(NoticesMark(), status(review("R1", "alice")), failed)
    early = reviews_step(mark, status(review("R1", "alice")), {}, T0 + 30 * S, retries=RETRIES)
    assert ((), mark) == (early.needs, early.mark)


def test_a_flood_of_handled_reviews_deleted_afterwards_does_not_replay_the_old_verdict() -> None:
    # The seen set keeps 64 ids; the floor rises past the ones it lets go, so a stranger's
    # flood of 70 comment-only reviews, deleted afterwards, cannot make R1 new again.
    answers = {"alice": writer("alice")}
    mark = step(NoticesMark(), status(review("R1", "alice")), answers)
    flood = [review(f"F{n}", "mallory", T0 + n * S, "COMMENTED") for n in range(1, 71)]
    for start in range(0, 70, 10):
        mark = step(mark, status(*flood[start : start + 10]), answers)
    result = reviews_step(mark, status(review("R1", "alice")), answers, T0 + 80 * S)
    assert ((), 64) == (result.announce, len(result.mark.reviews))
