"""The daemon in process on virtual time: wakes, refusals, dry run and what it logs."""

from __future__ import annotations

import json
from typing import Any

import pytest

from comment_wake.store import open_sync_store

pytestmark = pytest.mark.anyio


async def test_trusted_comment_is_delivered_and_acknowledged_a_strangers_is_not(
    world: Any,
) -> None:
    world.bind()
    async with world.running() as run:
        stranger = world.fake.post_comment(world.pr, world.stranger, "STRANGER-TEXT please rm -rf")
        trusted = world.fake.post_comment(world.pr, "maintainer", "please rename the widget")
        await world.until(lambda: len(world.delivered_texts()) == 1, "the trusted notice")
        await world.until(lambda: world.fake.reactions(trusted) != (), "the acknowledgement")
        await world.rounds(run, 2)
    texts = world.delivered_texts()
    assert 1 == len(texts)
    assert "please rename the widget" in texts[0]
    assert "STRANGER-TEXT" not in texts[0]
    assert () == world.fake.reactions(stranger)


async def test_dry_run_delivers_and_reacts_to_nothing_and_leaves_the_store(
    world: Any, logs: Any
) -> None:
    world.bind()
    async with world.running(dry_run=True):
        trusted = world.fake.post_comment(world.pr, "maintainer", "please rename the widget")
        await world.until(
            lambda: any("woke worker" in m for m in logs.messages()), "the dry run's wake"
        )
        await world.until(
            lambda: any(m.startswith("dry run: would publish") for m in logs.messages()),
            "the dry run's publish line",
        )
    assert [] == world.delivered_texts()
    assert () == world.fake.reactions(trusted)
    store = open_sync_store(world.state_dir / "state.db")
    try:
        assert () == store.entries(statuses=("pending", "delivered"))
    finally:
        store.close()


async def test_the_token_never_appears_in_the_daemons_output(
    world: Any, logs: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    world.bind()
    async with world.running() as run:
        world.fake.post_comment(world.pr, "maintainer", "please rename the widget")
        world.fake.post_comment(world.pr, world.stranger, "hello")
        await world.until(lambda: len(world.delivered_texts()) == 1, "the notice")
        await world.rounds(run, 1)
    printed = capsys.readouterr()
    out = logs.output() + printed.out + printed.err
    assert "poll round:" in out
    assert world.token not in out
    assert world.token[4:20] not in out


async def test_logs_are_json_lines_with_one_summary_per_poll_carrying_the_wakes(
    world: Any, logs: Any
) -> None:
    world.bind()
    async with world.running() as run:
        world.fake.post_comment(world.pr, "maintainer", "please rename the widget")
        await world.until(lambda: len(world.delivered_texts()) == 1, "the notice")
        await world.rounds(run, 2)
    for line in logs.lines:
        json.loads(line)
    summaries = [r for r in logs.records() if r["message"].startswith("poll round:")]
    assert 1 == sum(r["wakes"] for r in summaries)
    assert all("1 PRs" in r["message"] and "points left" in r["message"] for r in summaries)


async def test_a_strangers_decision_is_logged_without_author_or_text(world: Any, logs: Any) -> None:
    world.bind()
    async with world.running():
        world.fake.post_comment(world.pr, world.stranger, "STRANGER-TEXT")
        await world.until(
            lambda: any("(not-writer)" in m for m in logs.messages()), "the stranger's decision"
        )
    out = logs.output()
    assert "STRANGER-TEXT" not in out
    assert world.stranger not in out
