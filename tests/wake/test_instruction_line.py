"""The instruction line is one text in three places (seed 001): the notice's last line, the
worker prompt's and the pr_review_monitor tool description's; it names ``reply`` only for a
worker whose posting tools are on."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

import msgspec
import pytest

from comment_wake.wake import (
    NOTICE_INSTRUCTION,
    NOTICE_INSTRUCTION_POSTING,
    PR_REVIEW_MONITOR_TOOL_DESCRIPTION,
    PR_REVIEW_MONITOR_TOOL_DESCRIPTION_POSTING,
    WORKER_PROMPT,
    WORKER_PROMPT_POSTING,
)
from comment_wake.wake.testing import WakeSim

At = Callable[..., datetime]
MakeSim = Callable[..., WakeSim]


@pytest.mark.parametrize("posting", [False, True])
def test_a_notice_ends_with_the_instruction_for_its_worker(
    make_sim: MakeSim, at: At, posting: bool
) -> None:
    sim = make_sim()
    sim.binding = msgspec.structs.replace(sim.binding, post_tools=posting)
    sim.comment("IC_1", "bob", at(0), "Please rebase.")
    sim.poll(at(30))
    (notice,) = sim.notices
    expected = NOTICE_INSTRUCTION_POSTING if posting else NOTICE_INSTRUCTION
    assert expected == notice.text.splitlines()[-1]


def test_the_prompt_and_the_tool_description_end_with_the_same_instruction() -> None:
    assert (True, True, True, True) == (
        WORKER_PROMPT.endswith(NOTICE_INSTRUCTION),
        PR_REVIEW_MONITOR_TOOL_DESCRIPTION.endswith(NOTICE_INSTRUCTION),
        WORKER_PROMPT_POSTING.endswith(NOTICE_INSTRUCTION_POSTING),
        PR_REVIEW_MONITOR_TOOL_DESCRIPTION_POSTING.endswith(NOTICE_INSTRUCTION_POSTING),
    )


def test_only_the_posting_instruction_names_reply() -> None:
    assert (False, True) == (
        "`reply`" in NOTICE_INSTRUCTION,
        "`reply`" in NOTICE_INSTRUCTION_POSTING,
    )


def test_both_instructions_hand_off_with_report_or_message_orchestrator() -> None:
    handoff = "hand it to the orchestrator with `report` or `message_orchestrator`"
    assert (True, True) == (handoff in NOTICE_INSTRUCTION, handoff in NOTICE_INSTRUCTION_POSTING)
