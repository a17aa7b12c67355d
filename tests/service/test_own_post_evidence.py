"""The own-post matcher's explanation is committed with the decision it informed."""

from __future__ import annotations

from datetime import timedelta

import pytest

from comment_wake.events import CommentDecided, Event
from comment_wake.service import DecisionRecord, decode_record, namespace_of
from comment_wake.service.testing import ServiceRig
from comment_wake.store import read_records
from comment_wake.wake import RULES

pytestmark = pytest.mark.anyio

MARK = "MARKER-e71d"


async def _decide(rig: ServiceRig, author: str) -> list[DecisionRecord]:
    rig.fake.set_permission(rig.pr.repo, "octo-user", "admin")
    await rig.poll()
    await rig.clock.advance(timedelta(seconds=10))
    rig.fake.post_comment(rig.pr, author, f"Please rebase. {MARK}", node_id="IC_1")
    await rig.clock.advance(timedelta(minutes=1))
    await rig.poll()
    found = [decode_record(v) for _, v in read_records(rig.store.sync, namespace_of(rig.pr))]
    return [r for r in found if r is not None]


async def test_a_comment_with_the_tokens_login_not_judged_own_carries_the_matchers_answer(
    rig: ServiceRig,
) -> None:
    (record,) = await _decide(rig, "octo-user")
    assert ("IC_1", "wake", "not own: no post in the transcripts explains it") == (
        record.comment,
        record.outcome,
        record.own_post,
    )


async def test_the_evidence_never_quotes_the_comment(rig: ServiceRig) -> None:
    records = await _decide(rig, "octo-user")
    evidence = [r.own_post or "" for r in records]
    assert [] == [e for e in evidence if MARK in e or "rebase" in e.lower()]
    assert [True] == [bool(e) for e in evidence]


async def test_a_comment_the_matcher_was_not_asked_about_carries_no_evidence(
    rig: ServiceRig,
) -> None:
    assert [None] == [r.own_post for r in await _decide(rig, "bob")]


async def test_a_decision_is_published_after_its_record_is_committed(rig: ServiceRig) -> None:
    committed: list[bool] = []

    def check(event: Event) -> None:
        if isinstance(event, CommentDecided):
            records = read_records(rig.store.sync, namespace_of(rig.pr))
            committed.append(any(event.comment in key for key, _ in records))

    rig.events = check  # type: ignore[assignment]
    rig.wake = rig.service()
    await _decide(rig, "bob")
    assert [True] == committed


async def test_the_record_keeps_the_trace_of_the_rules_the_decision_passed(
    rig: ServiceRig,
) -> None:
    (record,) = await _decide(rig, "mallory")
    # A reader is stopped by write-access: it passed every rule before it.
    before = tuple(r.name for r in RULES)
    before = before[: before.index("write-access")]
    assert ("not-writer", before) == (record.reason, record.rules)
