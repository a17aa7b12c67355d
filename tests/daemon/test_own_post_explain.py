"""``explain`` shows what the own-post matcher said about a comment written with the
token's login that it did not judge the worker's own (in process, over the store)."""

from __future__ import annotations

from datetime import UTC, datetime

from comment_wake.app._explain import explain_records
from comment_wake.service import DecisionRecord
from review_monitor import PrRef

T0 = datetime(2026, 1, 1, tzinfo=UTC)
PR = PrRef("octo", "repo", 1)
SAID = "not own: no post in the transcripts explains it"


def _own_post_line(record: DecisionRecord) -> str:
    (line,) = [r for r in explain_records(record) if r.rule == "own-post"]
    return f"{line.verdict}: {line.evidence}"


def test_the_own_post_rule_shows_the_matchers_answer_for_the_tokens_login() -> None:
    record = DecisionRecord(
        at=T0,
        host=PR.host,
        pr=str(PR),
        comment="IC_1",
        outcome="wake",
        reason="writer",
        viewer_did_author=True,
        own_post=SAID,
    )
    # Said once: the matcher's answer, not a paraphrase of it before it (issue 25, 19).
    expected = f"pass: written with the token's login; {SAID}"
    assert expected == _own_post_line(record)
