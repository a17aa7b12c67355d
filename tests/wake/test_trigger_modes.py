"""Trigger modes: ``trigger = "mention"`` wakes only for a comment that mentions the
binding's handle; the skip marker keeps a comment from waking in any mode."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

import msgspec
import pytest
from pydantic import ValidationError

from comment_wake.wake import RULES, Binding, Facts, Pending, WakeConfig, WakeMark, step
from comment_wake.wake.testing import WakeSim
from review_monitor import (
    Author,
    BadgeItem,
    InlineComment,
    ItemDetail,
    MonitorConfig,
    PageInfo,
    PermissionAnswer,
    PrRef,
    PrStatus,
)

At = Callable[..., datetime]
MakeSim = Callable[..., WakeSim]

NAMES = tuple(rule.name for rule in RULES)
MENTION = {"trigger": "mention", "handle": "/agent"}


def outcomes(sim: WakeSim, comment: str) -> list[tuple[str, str]]:
    return [(d.outcome, d.reason) for d in sim.decisions if d.comment == comment]


def bind(sim: WakeSim, **fields: Any) -> None:
    sim.binding = msgspec.structs.replace(sim.binding, **fields)


def test_any_mode_wakes_for_a_comment_without_the_handle(make_sim: MakeSim, at: At) -> None:
    sim = make_sim(handle="/agent")
    sim.comment("IC_1", "bob", at(0), "Please rebase.")
    sim.poll(at(30))
    assert [("wake", "writer")] == outcomes(sim, "IC_1")


def test_mention_mode_skips_a_comment_without_the_handle(make_sim: MakeSim, at: At) -> None:
    sim = make_sim(**MENTION)
    sim.comment("IC_1", "bob", at(0), "Please rebase.")
    sim.poll(at(30))
    assert [("skip", "not-mentioned")] == outcomes(sim, "IC_1")


def test_mention_mode_wakes_for_a_comment_with_the_handle(make_sim: MakeSim, at: At) -> None:
    sim = make_sim(**MENTION)
    sim.comment("IC_1", "bob", at(0), "/Agent please rebase.")
    sim.poll(at(30))
    assert [("wake", "writer")] == outcomes(sim, "IC_1")


def test_a_not_mentioned_comment_passed_the_rules_before_mention(make_sim: MakeSim, at: At) -> None:
    sim = make_sim(**MENTION)
    sim.comment("IC_1", "bob", at(0), "Please rebase.")
    sim.poll(at(30))
    assert NAMES[: NAMES.index("mention")] == sim.final("IC_1")[0].rules


def test_a_strangers_unmentioned_comment_costs_no_permission_lookup(
    make_sim: MakeSim, at: At
) -> None:
    sim = make_sim(**MENTION)
    sim.comment("IC_1", "mallory", at(0), "Merge it.")
    sim.poll(at(30))
    assert ([("skip", "not-mentioned")], []) == (outcomes(sim, "IC_1"), sim.lookups)


def test_a_handle_inside_fenced_code_is_not_a_mention(make_sim: MakeSim, at: At) -> None:
    sim = make_sim(**MENTION)
    sim.comment("IC_1", "bob", at(0), "Log:\n```\n$ /agent run\n```")
    sim.poll(at(30))
    assert [("skip", "not-mentioned")] == outcomes(sim, "IC_1")


def test_a_review_mentioning_in_an_inline_comment_wakes(make_sim: MakeSim, at: At) -> None:
    sim = make_sim(**MENTION)
    sim.review("PRR_1", "bob", at(0), "A few notes.", inline=(("C1", "a.py", 3, "/agent fix"),))
    sim.poll(at(30))
    assert [("wake", "writer")] == outcomes(sim, "PRR_1")


def test_the_bindings_trigger_wins_over_the_configs(make_sim: MakeSim, at: At) -> None:
    sim = make_sim()
    bind(sim, trigger="mention", handle="/agent")
    sim.comment("IC_1", "bob", at(0), "Please rebase.")
    sim.poll(at(30))
    assert [("skip", "not-mentioned")] == outcomes(sim, "IC_1")


def test_a_binding_in_any_mode_wakes_under_a_mention_config(make_sim: MakeSim, at: At) -> None:
    sim = make_sim(**MENTION)
    bind(sim, trigger="any")
    sim.comment("IC_1", "bob", at(0), "Please rebase.")
    sim.poll(at(30))
    assert [("wake", "writer")] == outcomes(sim, "IC_1")


def test_the_bindings_handle_wins_over_the_configs(make_sim: MakeSim, at: At) -> None:
    sim = make_sim(**MENTION)
    bind(sim, handle="/w1")
    sim.comment("IC_1", "bob", at(0), "/agent rebase")
    sim.comment("IC_2", "bob", at(1), "/w1 rebase")
    sim.poll(at(30))
    assert ([("skip", "not-mentioned")], [("wake", "writer")]) == (
        outcomes(sim, "IC_1"),
        outcomes(sim, "IC_2"),
    )


def test_a_mention_added_by_a_later_edit_never_wakes(make_sim: MakeSim, at: At) -> None:
    sim = make_sim(**MENTION)
    sim.comment("IC_1", "bob", at(0), "Please rebase.")
    sim.poll(at(30))
    sim.edit("IC_1", "/agent please rebase.")
    sim.poll(at(90))
    sim.poll(at(minutes=10))
    assert ([("skip", "not-mentioned")], []) == (outcomes(sim, "IC_1"), sim.notices)


def test_a_held_comment_whose_mention_an_edit_removed_is_skipped_at_release(
    make_sim: MakeSim, at: At
) -> None:
    sim = make_sim(**MENTION)
    sim.comment("IC_1", "bob", at(0), "/agent one")
    sim.poll(at(10))
    sim.comment("IC_2", "bob", at(20), "/agent two")
    sim.poll(at(30))  # held: within a minute of the first wake
    sim.edit("IC_2", "never mind")
    sim.poll(at(90))
    assert [("held", "rate-limit"), ("skip", "not-mentioned")] == outcomes(sim, "IC_2")


def test_the_skip_marker_keeps_a_comment_from_waking(make_sim: MakeSim, at: At) -> None:
    sim = make_sim(skip_marker="/nowake")
    sim.comment("IC_1", "bob", at(0), "\n/nowake a note for the humans")
    sim.poll(at(30))
    assert ([("skip", "skip-marker")], []) == (outcomes(sim, "IC_1"), sim.lookups)


def test_the_skip_marker_beats_a_mention(make_sim: MakeSim, at: At) -> None:
    sim = make_sim(skip_marker="/nowake", **MENTION)
    sim.comment("IC_1", "bob", at(0), "/nowake /agent not you")
    sim.poll(at(30))
    assert [("skip", "skip-marker")] == outcomes(sim, "IC_1")


def test_the_skip_marker_is_off_by_default(make_sim: MakeSim, at: At) -> None:
    sim = make_sim()
    sim.comment("IC_1", "bob", at(0), "/nowake please rebase")
    sim.poll(at(30))
    assert [("wake", "writer")] == outcomes(sim, "IC_1")


def test_a_marker_below_the_first_line_does_not_skip(make_sim: MakeSim, at: At) -> None:
    sim = make_sim(skip_marker="/nowake")
    sim.comment("IC_1", "bob", at(0), "Please rebase.\n/nowake")
    sim.poll(at(30))
    assert [("wake", "writer")] == outcomes(sim, "IC_1")


def test_mention_mode_without_a_handle_is_refused_saying_what_to_set() -> None:
    with pytest.raises(ValidationError, match="set handle in \\[wake\\]"):
        WakeConfig(trigger="mention")


def test_a_handle_with_spaces_is_refused() -> None:
    with pytest.raises(ValidationError, match="one word"):
        WakeConfig(handle="my agent")


def test_a_binding_in_mention_mode_with_no_handle_anywhere_wakes_nobody(
    make_sim: MakeSim, at: At
) -> None:
    sim = make_sim()
    bind(sim, trigger="mention")
    sim.comment("IC_1", "bob", at(0), "/agent please")
    sim.poll(at(30))
    assert [("skip", "not-mentioned")] == outcomes(sim, "IC_1")


# -- a long review read to its first page ----------------------------------------------

PR = PrRef.parse("octo/repo#1")
T = datetime.fromisoformat("2026-01-05T09:00:00+00:00")


def _review_step(first: ItemDetail, whole: ItemDetail | None) -> tuple[str, str]:
    """A bob review through one step whose detail read gave ``first`` (its first page of
    inline comments) and, when the core asks for the rest, ``whole``."""
    item = BadgeItem("review", "PRR_1", 7, T, Author("bob"), state="COMMENTED")
    status = _status((item,))
    binding = Binding(PR, "w-1", spawned_by="orch-1")
    config = WakeConfig(**MENTION)
    mark = WakeMark(baseline_done=True, floor=T.replace(hour=8))
    answer = PermissionAnswer("bob", "write", None, True, T)
    facts = Facts(details={"PRR_1": first}, permissions={"bob": answer})
    now = T.replace(minute=1)
    kw: dict[str, Any] = {"config": config, "monitor": MonitorConfig(), "now": now}
    result = step(binding, mark, status, facts, **kw)
    if result.needs.rest:
        assert whole is not None
        facts = Facts({"PRR_1": whole}, permissions=facts.permissions)
        result = step(binding, mark, status, facts, **kw)
    assert result.done
    (decision,) = result.decisions
    return decision.outcome, decision.reason


def _status(reviews: tuple[BadgeItem, ...]) -> PrStatus:
    return PrStatus(
        pr=PR,
        title="t",
        url="u",
        state="OPEN",
        merged=False,
        is_draft=False,
        head_ref_oid="0" * 40,
        review_decision=None,
        check_state=None,
        comments=(),
        reviews=reviews,
        person_comments_from=None,
        comments_page=PageInfo(False, None),
        reviews_page=PageInfo(False, None),
    )


def _inline(n: int, body: str) -> InlineComment:
    return InlineComment(f"C{n}", n, "a.py", n, n, body, f"u#discussion_r{n}")


def _detail(*inline: InlineComment, more: str | None = None) -> ItemDetail:
    return ItemDetail("PRR_1", "review", "Notes.", "u", inline=inline, more_inline=more)


def test_a_long_review_mentioning_on_a_later_page_wakes() -> None:
    first = _detail(_inline(1, "nit"), more="cursor")
    whole = _detail(_inline(1, "nit"), _inline(2, "/agent this one"))
    assert ("wake", "writer") == _review_step(first, whole)


def test_a_long_review_mentioning_on_no_page_is_not_mentioned() -> None:
    first = _detail(_inline(1, "nit"), more="cursor")
    whole = _detail(_inline(1, "nit"), _inline(2, "another nit"))
    assert ("skip", "not-mentioned") == _review_step(first, whole)


def test_a_long_review_retried_after_a_failed_lookup_is_decided_on_its_whole_text() -> None:
    # Its lookup failed with the first page read only (kept with the retry); at the retry
    # the review is read whole and the mention rule, passed on that page, decides again.
    item = BadgeItem("review", "PRR_1", 7, T, Author("bob"), state="COMMENTED")
    first = _detail(_inline(1, "nit"), more="cursor")
    whole = _detail(_inline(1, "nit"), _inline(2, "another nit"))
    pending = Pending(item, first, failures=1, retry_at=T.replace(minute=2))
    mark = WakeMark(baseline_done=True, floor=T.replace(hour=8), pending=(pending,))
    status = _status(())
    answer = PermissionAnswer("bob", "write", None, True, T)
    kw: dict[str, Any] = {
        "config": WakeConfig(**MENTION),
        "monitor": MonitorConfig(),
        "now": T.replace(minute=3),
    }
    binding = Binding(PR, "w-1", spawned_by="orch-1")
    result = step(binding, mark, status, Facts(permissions={"bob": answer}), **kw)
    assert ("PRR_1",) == result.needs.rest
    facts = Facts({"PRR_1": whole}, permissions={"bob": answer})
    result = step(binding, mark, status, facts, **kw)
    assert [("skip", "not-mentioned")] == [(d.outcome, d.reason) for d in result.decisions]
