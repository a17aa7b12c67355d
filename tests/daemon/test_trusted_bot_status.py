"""``comment-wake status`` shows the trusted bots' own windows beside people's (issue 27)."""

from __future__ import annotations

import json
from typing import Any

import pytest

pytestmark = pytest.mark.anyio


async def test_status_counts_a_trusted_bots_wake_in_the_bots_windows(world: Any) -> None:
    text = world.config.read_text(encoding="utf-8")
    world.config.write_text(
        text.replace("[wake]\n", '[wake]\ntrusted_bots = ["coderabbitai[bot]"]\n'),
        encoding="utf-8",
    )
    world.bind()
    async with world.running() as run:
        world.fake.post_comment(world.pr, "coderabbitai[bot]", "Consider a smaller function.")
        await world.until(lambda: len(world.delivered_texts()) == 1, "the bot's notice")
        await world.rounds(run, 2)  # the daemon's state is written after its rounds
    (pr,) = json.loads(world.cli("status", "--json").stdout)["prs"]
    assert (1, 6, 5) == (pr["bot_wakes_left_hour"], pr["wakes_left_hour"], pr["bot_wakes_left_day"])
