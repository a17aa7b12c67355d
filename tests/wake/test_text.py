"""The rule as text, the configuration keys, and the public names."""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path

import pytest
from pydantic import ValidationError

import comment_wake.wake as wake
from comment_wake.wake import (
    NOTICE_INSTRUCTION,
    PR_REVIEW_MONITOR_TOOL_DESCRIPTION,
    RULES,
    WORKER_PROMPT,
    WakeConfig,
    one_line_title,
)

_SAID = ["grants nothing", "write access", "`report`", "`message_orchestrator`", "say why"]


@pytest.mark.parametrize("text", [WORKER_PROMPT, PR_REVIEW_MONITOR_TOOL_DESCRIPTION])
def test_prompt_and_tool_description_say_the_rule(text: str) -> None:
    assert [] == [phrase for phrase in _SAID if phrase not in text]


_RULE_ROW = re.compile(r"^\| *[0-9]+ *\| *`([a-z-]+)` *\|", re.MULTILINE)


def _doc(repo_root: Path) -> str:
    return (repo_root / "docs" / "trust-rules.md").read_text(encoding="utf-8")


def test_trust_rules_doc_says_the_rule(repo_root: Path) -> None:
    assert [] == [phrase for phrase in _SAID if phrase not in _doc(repo_root)]


def test_trust_rules_doc_lists_every_reason_in_the_order_the_rules_run(repo_root: Path) -> None:
    reasons = ["baseline", *(reason for rule in RULES for reason in rule.reasons)]
    section = _doc(repo_root).partition("## The rules, in order")[2].partition("\n## ")[0]
    assert reasons == _RULE_ROW.findall(section)


def test_config_defaults_are_the_documented_ones() -> None:
    config = WakeConfig()
    assert (
        timedelta(minutes=5),
        64,
        timedelta(minutes=1),
        6,
        timedelta(hours=1),
        24,
        timedelta(days=1),
        (),
        (),
        timedelta(hours=2),
        timedelta(seconds=30),
        20,
        200,
        "any",
        None,
        "",
        (),
        2,
        6,
    ) == (
        config.floor_lag,
        config.handled_capacity,
        config.wake_min_gap,
        config.wakes_per_hour,
        config.wake_hour_window,
        config.wakes_per_day,
        config.wake_day_window,
        config.rereview_commands,
        config.agent_logins,
        config.own_post_window,
        config.post_clock_skew,
        config.gap_pages,
        config.gap_pages_per_hour,
        config.trigger,
        config.handle,
        config.skip_marker,
        config.trusted_bots,
        config.bot_wakes_per_hour,
        config.bot_wakes_per_day,
    )


def test_config_reads_durations_and_refuses_unknown_keys() -> None:
    assert timedelta(seconds=90) == WakeConfig.model_validate({"floor_lag": "90s"}).floor_lag
    with pytest.raises(ValidationError):
        WakeConfig.model_validate({"floor_lagg": "90s"})


def test_title_is_one_line_and_capped() -> None:
    title = one_line_title("fix:\nthe   thing " + "x" * 300)
    assert ("\n" not in title, True) == (True, len(title) <= 100 and title.startswith("fix: the"))


def test_notice_instruction_closes_the_notice_text() -> None:
    assert NOTICE_INSTRUCTION.endswith("say why.")


def test_all_names_are_exported() -> None:
    public = {n for n in dir(wake) if not n.startswith("_")} - {"testing"}
    assert sorted(public) == sorted(wake.__all__)
