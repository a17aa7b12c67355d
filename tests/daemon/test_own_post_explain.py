"""``explain`` shows what the own-post matcher said about a comment written with the
token's login that it did not judge the worker's own (in process, over the store)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from comment_wake.daemon import DecisionRecord, ItemIndex, PermissionLog, RecordingSink
from comment_wake.daemon._explain import explain_records, find_records, render
from comment_wake.wake import Decision, WakeConfig
from review_monitor import LookupFailed, PermissionAnswer, PrRef, SyncStore

T0 = datetime(2026, 1, 1, tzinfo=UTC)
PR = PrRef("octo", "repo", 1)
SAID = "not own: no post in the transcripts explains it"


class _NoLookups:
    async def lookup(self, repo: str, login: str, now: datetime) -> PermissionAnswer | LookupFailed:
        raise AssertionError("the sink never looks permissions up")


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
    expected = (
        "pass: written with the token's login, but no post in the worker's transcripts "
        f"explains it: {SAID}"
    )
    assert expected == _own_post_line(record)


def test_the_sinks_evidence_is_recorded_and_explained_from_the_store(tmp_path: Path) -> None:
    sink = RecordingSink(
        index=ItemIndex(), permissions=PermissionLog(_NoLookups()), config=WakeConfig()
    )
    decision = Decision(at=T0, pr=PR, comment="IC_1", outcome="wake", reason="writer")
    sink.decided([decision], {}, evidence={"IC_1": SAID})
    store = SyncStore.open(tmp_path / "state.db")
    try:
        sink.write(store, sink.take())
        (record,) = find_records(store, PR, "IC_1")
    finally:
        store.close()
    assert SAID == record.own_post
    assert SAID in render(PR, "IC_1", (record,))
