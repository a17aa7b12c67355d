"""The own-post matcher's explanation reaches the sink with the decisions it informed."""

from __future__ import annotations

from datetime import timedelta

import pytest

from comment_wake.service.testing import ServiceRig

pytestmark = pytest.mark.anyio

MARK = "MARKER-e71d"


async def _decide(rig: ServiceRig, author: str) -> None:
    rig.fake.set_permission(rig.pr.repo, "octo-user", "admin")
    await rig.poll()
    await rig.clock.advance(timedelta(seconds=10))
    rig.fake.post_comment(rig.pr, author, f"Please rebase. {MARK}", node_id="IC_1")
    await rig.clock.advance(timedelta(minutes=1))
    await rig.poll()


async def test_a_comment_with_the_tokens_login_not_judged_own_carries_the_matchers_answer(
    rig: ServiceRig,
) -> None:
    await _decide(rig, "octo-user")
    (told,) = [t for t in rig.sink.told if t.kind == "decided"]
    assert told.decision is not None
    assert ("IC_1", "wake") == (told.decision.comment, told.decision.outcome)
    assert "not own: no post in the transcripts explains it" == told.evidence


async def test_the_evidence_never_quotes_the_comment(rig: ServiceRig) -> None:
    await _decide(rig, "octo-user")
    evidence = [t.evidence or "" for t in rig.sink.told if t.kind == "decided"]
    assert [] == [e for e in evidence if MARK in e or "rebase" in e.lower()]
    assert [True] == [bool(e) for e in evidence]


async def test_a_comment_the_matcher_was_not_asked_about_carries_no_evidence(
    rig: ServiceRig,
) -> None:
    await _decide(rig, "bob")
    assert [None] == [t.evidence for t in rig.sink.told if t.kind == "decided"]
