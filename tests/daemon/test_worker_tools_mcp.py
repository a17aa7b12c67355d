"""``comment-wake mcp WORKER`` as a real process over stdio, driven by the MCP client SDK,
beside a daemon on FakeGitHub: what a worker's tool calls do on GitHub and for its
orchestrator."""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

from comment_wake.tools import TOOL_NAMES

pytestmark = pytest.mark.anyio


@asynccontextmanager
async def session(world: Any, worker: str = "w1") -> AsyncIterator[ClientSession]:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "comment_wake", "mcp", worker, *world.location()],
        env=world.env(),
    )
    with (world.tmp / "mcp-stderr.log").open("w") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as s,
        ):
            await s.initialize()
            yield s


def text_of(result: object) -> str:
    return "".join(getattr(c, "text", "") for c in getattr(result, "content", []))


def orchestrator_texts(world: Any) -> list[str]:
    folder = world.state_dir / "inbox" / "orch"
    if not folder.is_dir():
        return []
    return [
        json.loads(p.read_text(encoding="utf-8"))["text"] for p in sorted(folder.rglob("*.json"))
    ]


async def test_the_server_offers_the_four_tools(world: Any) -> None:
    world.bind()
    async with session(world) as s:
        listed = await s.list_tools()
    assert sorted(TOOL_NAMES) == sorted(t.name for t in listed.tools)


async def test_pr_review_monitor_status_names_the_workers_pr(world: Any) -> None:
    world.bind()
    async with session(world) as s:
        result = await s.call_tool("pr_review_monitor", {})
    assert ("octo/repo#1", False) == (json.loads(text_of(result))["pr"], result.is_error)


async def test_message_orchestrator_reaches_the_orchestrators_inbox(world: Any) -> None:
    async def during(run: Any) -> None:
        async with session(world) as s:
            await s.call_tool("message_orchestrator", {"text": "the API change is not mine"})
        await world.until(lambda: len(orchestrator_texts(world)) == 1, "the message")

    await world.story(during)
    (text,) = orchestrator_texts(world)
    assert "a message from worker w1 about octo/repo#1" in text.splitlines()[0]


def contents(world: Any, subject: str) -> set[str]:
    return {content for content, _ in world.fake.reactions(subject)}


async def test_comment_addressed_done_adds_the_done_reaction_on_github(world: Any) -> None:
    async def during(run: Any) -> None:
        (woken,) = [d.comment for d in run.events.decisions if d.outcome == "wake"]
        await world.until(lambda: contents(world, woken) == {"EYES"}, "the pick-up")
        async with session(world) as s:
            result = await s.call_tool(
                "comment_addressed", {"comment_ids": [woken], "outcome": "done"}
            )
        assert not result.is_error, text_of(result)
        await world.until(lambda: "THUMBS_UP" in contents(world, woken), "the done reaction")

    story = await world.story(during)
    assert {"EYES", "THUMBS_UP"} == contents(world, story.trusted)


async def test_a_call_for_another_workers_comment_is_an_error_result(world: Any) -> None:
    async def during(run: Any) -> None:
        async with session(world) as s:
            result = await s.call_tool(
                "comment_addressed",
                {"comment_ids": ["IC_kwDOSomeoneElse"], "outcome": "done"},
            )
        errors.append((result.is_error, text_of(result)))

    errors: list[tuple[bool, str]] = []
    await world.story(during)
    ((is_error, message),) = errors
    assert (True, True) == (is_error, "was not delivered to worker w1" in message)


async def test_an_unknown_worker_gets_a_server_whose_every_tool_says_so(world: Any) -> None:
    world.bind()
    async with session(world, "nobody") as s:
        result = await s.call_tool("message_orchestrator", {"text": "hello"})
    assert (True, True) == (result.is_error, "no worker 'nobody' is bound" in text_of(result))


async def test_without_a_store_the_server_starts_and_every_tool_says_where_it_looked(
    world: Any,
) -> None:
    async with session(world) as s:
        result = await s.call_tool("pr_review_monitor", {})
    assert (True, True) == (result.is_error, "no state store at" in text_of(result))


async def test_the_server_creates_no_store(world: Any) -> None:
    async with session(world) as s:
        await s.list_tools()
    assert False is (world.state_dir / "state.db").exists()


async def test_status_shows_what_became_of_each_delivered_comment(world: Any) -> None:
    async def during(run: Any) -> None:
        (woken,) = [d.comment for d in run.events.decisions if d.outcome == "wake"]
        async with session(world) as s:
            await s.call_tool(
                "comment_addressed",
                {"comment_ids": [woken], "outcome": "declined", "note": "out of scope"},
            )

    await world.story(during)
    done = world.cli("status", "--json")
    (pr,) = json.loads(done.stdout)["prs"]
    summary = pr["outcomes"]
    assert ((1, 1, 0), ["declined"]) == (
        (summary["delivered"], summary["declined"], summary["open"]),
        [c["outcome"] for c in pr["comments"]],
    )


async def test_explain_shows_the_comments_outcome(world: Any) -> None:
    async def during(run: Any) -> None:
        async with session(world) as s:
            await s.call_tool("comment_addressed", {"comment_ids": [woken[0]], "outcome": "done"})

    woken: list[str] = []
    world.bind()
    async with world.running() as run:
        world.fake.post_comment(world.pr, "maintainer", "please rename the widget")
        await world.until(lambda: len(world.delivered_texts()) == 1, "the notice")
        woken.extend(d.comment for d in run.events.decisions if d.outcome == "wake")
        await during(run)
    done = world.cli("explain", str(world.pr), woken[0])
    (line,) = [line for line in done.stdout.splitlines() if line.startswith("delivered to")]
    assert ("delivered to w1", "; done (as of") == (line[:15], line[line.index(";") :][:13])


async def test_status_gives_the_prs_state_as_the_daemon_last_read_it(world: Any) -> None:
    async def during(run: Any) -> None:
        await world.rounds(run, 2)  # the daemon's state is written after its rounds
        async with session(world) as s:
            result = await s.call_tool("pr_review_monitor", {"action": "status"})
        states.append(json.loads(text_of(result))["pr_state"])

    states: list[str] = []
    await world.story(during)
    assert ["open"] == states
