"""``explain`` of the trigger rules and of a trusted bot's wake (in process)."""

from __future__ import annotations

from datetime import UTC, datetime

from comment_wake.app._explain import explain_records, headline
from comment_wake.service import DecisionRecord
from comment_wake.wake import RULES
from review_monitor import PrRef

T0 = datetime(2026, 1, 1, tzinfo=UTC)
PR = PrRef("octo", "repo", 1)
NAMES = tuple(rule.name for rule in RULES)


def _record(
    reason: str,
    outcome: str,
    rules: tuple[str, ...],
    *,
    author: str | None = None,
    author_type: str | None = None,
    worker: str | None = None,
) -> DecisionRecord:
    return DecisionRecord(
        at=T0,
        host=PR.host,
        pr=str(PR),
        comment="IC_x",
        outcome=outcome,
        reason=reason,
        rules=rules,
        author=author,
        author_type=author_type,
        worker=worker,
    )


def _line(r: DecisionRecord, rule: str) -> tuple[str, str]:
    line = next(line for line in explain_records(r) if line.rule == rule)
    return line.verdict, line.evidence


def test_explain_names_the_mention_rule_for_a_not_mentioned_skip() -> None:
    r = _record("not-mentioned", "skip", NAMES[: NAMES.index("mention")])
    verdict, evidence = _line(r, "mention")
    assert ("stop", True) == (verdict, "does not mention the binding's handle" in evidence)


def test_explain_names_the_skip_marker_rule() -> None:
    r = _record("skip-marker", "skip", NAMES[: NAMES.index("skip-marker")])
    verdict, evidence = _line(r, "skip-marker")
    assert ("stop", True) == (verdict, "skip marker" in evidence)


def test_explain_shows_a_trusted_bots_wake_at_the_bot_rule() -> None:
    r = _record("trusted-bot", "wake", NAMES, author="coderabbitai", author_type="Bot")
    assert ("pass", "coderabbitai (Bot), in trusted_bots: trusted-bot") == _line(r, "bot")


def test_explain_says_a_trusted_bot_had_no_permission_lookup() -> None:
    r = _record("trusted-bot", "wake", NAMES, author="coderabbitai", author_type="Bot")
    assert ("pass", "a trusted bot: no permission lookup") == _line(r, "write-access")


def test_explain_shows_a_held_trusted_bot_comment_as_trusted() -> None:
    r = _record("rate-limit", "held", NAMES, author="coderabbitai", author_type="Bot")
    assert ("pass", "coderabbitai (Bot), in trusted_bots: trusted-bot") == _line(r, "bot")


def test_the_headline_of_a_trusted_bots_wake_names_the_reason() -> None:
    r = _record("trusted-bot", "wake", NAMES, worker="w1")
    assert "woke worker w1 (trusted-bot)" == headline(r)
