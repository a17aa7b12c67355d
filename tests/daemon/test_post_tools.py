"""The posting tools over real stdio (``comment-wake mcp WORKER`` driven by the MCP client
SDK) beside a daemon on FakeGitHub: what ``reply``, ``review`` and ``progress`` post, and
that the daemon knows every such post as the worker's own, never waking it."""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

from comment_wake.registry import InboxSpec, Registry
from comment_wake.tools import POST_TOOL_NAMES, TOOL_NAMES
from review_monitor.testing import FakeItem, Fault

pytestmark = pytest.mark.anyio

AGENT_LINE = "Posted by the AI agent `w1` through comment-wake"


@asynccontextmanager
async def session(world: Any) -> AsyncIterator[ClientSession]:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "comment_wake", "mcp", "w1", *world.location()],
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


def bind(world: Any, *, post_tools: bool = True, workdir: Path | None = None) -> None:
    with Registry.open(world.state_dir) as registry:
        registry.add_orchestrator("orch", InboxSpec())
        registry.bind(
            "w1",
            world.pr,
            orchestrator="orch",
            publisher=InboxSpec(),
            post_tools=post_tools,
            workdir=None if workdir is None else str(workdir),
        )


def ours(world: Any) -> list[FakeItem]:
    """What the token's login has on the PR, made through the tools (their agent line)."""
    return [i for i in world.fake.items(world.pr) if AGENT_LINE in i.body]


def own_post_decisions(run: Any) -> list[tuple[str, str]]:
    return [(d.reason, d.detail) for d in run.events.decisions if d.reason == "own-post"]


async def test_the_posting_tools_are_offered_only_when_turned_on(world: Any) -> None:
    names: list[list[str]] = []
    for on in (False, True):
        bind(world, post_tools=on)
        async with session(world) as s:
            names.append(sorted(t.name for t in (await s.list_tools()).tools))
    assert [sorted(TOOL_NAMES), sorted(TOOL_NAMES + POST_TOOL_NAMES)] == names


async def test_reply_posts_once_and_its_post_never_wakes_the_worker(world: Any) -> None:
    bind(world)
    async with world.running() as run:
        woken = world.fake.post_comment(world.pr, "maintainer", "please rename the widget")
        await world.until(lambda: len(world.delivered_texts()) == 1, "the notice")
        async with session(world) as s:
            result = await s.call_tool(
                "reply", {"comment": woken, "text": "Renamed it.", "addressed": "done"}
            )
        assert not result.is_error, text_of(result)
        await world.until(lambda: len(ours(world)) == 1, "the reply on GitHub")
        await world.until(lambda: own_post_decisions(run) != [], "the reply's decision")
        await world.rounds(run, 2)
    (reply,) = ours(world)
    key = json.loads(text_of(result))["key"]
    assert (
        ("comment", "octo-worker"),
        [("own-post", f"posted by `reply` (key {key})")],
        1,
    ) == ((reply.kind, reply.author), own_post_decisions(run), len(world.delivered_texts()))


async def test_reply_links_the_comment_it_answers(world: Any) -> None:
    bind(world)
    async with world.running():
        woken = world.fake.post_comment(world.pr, "maintainer", "please rename the widget")
        await world.until(lambda: len(world.delivered_texts()) == 1, "the notice")
        async with session(world) as s:
            await s.call_tool("reply", {"comment": woken, "text": "Renamed it."})
        await world.until(lambda: len(ours(world)) == 1, "the reply on GitHub")
    (reply,) = ours(world)
    first = reply.body.splitlines()[0]
    assert (True, True) == (first.startswith("Replying to https://"), "issuecomment-" in first)


async def test_a_reply_whose_answer_was_lost_is_known_by_its_intent_and_posted_once(
    world: Any,
) -> None:
    # The answer to the post never comes, and GitHub lists the comment 20 s late: the
    # sender's first search misses it, a poll then sees it before its id is recorded (the
    # intent's marker and hash pass it over), and the second search finds it by its key
    # instead of posting again.
    bind(world)
    world.fake.list_posts_late = timedelta(seconds=20)
    async with world.running() as run:
        woken = world.fake.post_comment(world.pr, "maintainer", "please rename the widget")
        await world.until(lambda: len(world.delivered_texts()) == 1, "the notice")
        world.fake.inject(Fault.lost_answer())
        async with session(world) as s:
            await s.call_tool("reply", {"comment": woken, "text": "Renamed it."})
        await world.until(lambda: own_post_decisions(run) != [], "the reply's decision")
        await world.clock.advance(timedelta(minutes=3))
        await world.rounds(run, 2)
    ((reason, detail),) = own_post_decisions(run)
    assert (1, "own-post", True) == (len(ours(world)), reason, "id not recorded" in detail)


async def test_review_posts_a_comment_only_review_of_the_checked_out_head(
    world: Any, checkout: tuple[Path, str]
) -> None:
    repo, head = checkout
    world.fake.push(world.pr, head)
    world.fake.set_diff(world.pr, {"widget.py": [1]})
    bind(world, workdir=repo)
    async with world.running() as run:
        await world.rounds(run, 1)  # a badge with the head
        async with session(world) as s:
            result = await s.call_tool(
                "review",
                {
                    "summary": "Looks sound.",
                    "comments": [{"path": "widget.py", "line": 1, "body": "Name it gadget?"}],
                    "commit": head,
                },
            )
        assert not result.is_error, text_of(result)
        await world.until(lambda: len(ours(world)) == 1, "the review on GitHub")
        await world.rounds(run, 2)
    items = [i for i in world.fake.items(world.pr) if i.author == "octo-worker"]
    assert [("review", "COMMENTED"), ("review-comment", None)] == [(i.kind, i.state) for i in items]


@pytest.mark.parametrize("argument", ["event", "state"])
async def test_review_refuses_a_verdict_argument_in_one_line(world: Any, argument: str) -> None:
    bind(world)
    async with session(world) as s:
        result = await s.call_tool(
            "review",
            {"summary": "LGTM", "comments": [], "commit": "a" * 40, argument: "APPROVE"},
        )
    message = text_of(result)
    assert (True, 1, True) == (
        result.is_error,
        len(message.splitlines()),
        f"takes no '{argument}' argument" in message,
    )


async def test_review_refuses_a_commit_that_is_not_checked_out(
    world: Any, checkout: tuple[Path, str]
) -> None:
    repo, head = checkout
    bind(world, workdir=repo)
    async with session(world) as s:
        result = await s.call_tool(
            "review", {"summary": "Looks sound.", "comments": [], "commit": "b" * 40}
        )
    assert (True, True) == (result.is_error, f"your checkout's HEAD is {head}" in text_of(result))


async def test_review_refuses_a_commit_that_is_not_the_prs_head(
    world: Any, checkout: tuple[Path, str]
) -> None:
    repo, head = checkout
    bind(world, workdir=repo)  # GitHub's head stays the fake's own commit
    async with world.running() as run:
        await world.rounds(run, 1)
        async with session(world) as s:
            result = await s.call_tool(
                "review", {"summary": "Looks sound.", "comments": [], "commit": head}
            )
    assert (True, True) == (
        result.is_error,
        "the pull request's head on GitHub is" in text_of(result),
    )


async def test_ten_progress_calls_make_one_comment_and_one_edit_with_the_tenth_text(
    world: Any,
) -> None:
    bind(world)
    async with world.running() as run:
        async with session(world) as s:
            await s.call_tool("progress", {"text": "step 0 of 10"})
            await world.until(lambda: len(ours(world)) == 1, "the progress comment")
            for n in range(1, 11):
                await s.call_tool("progress", {"text": f"step {n} of 10"})
        before = [r for r in world.fake.requests if r.method == "PATCH"]
        await world.clock.advance(timedelta(minutes=6))
        await world.rounds(run, 2)
    edits = [r for r in world.fake.requests if r.method == "PATCH"]
    (comment,) = ours(world)
    assert (0, 1, True) == (
        len(before),
        len(edits),
        comment.body.startswith("step 10 of 10"),
    )


async def test_the_tool_description_names_reply_only_with_the_posting_tools(world: Any) -> None:
    named: list[bool] = []
    for on in (False, True):
        bind(world, post_tools=on)
        async with session(world) as s:
            tools = {t.name: t for t in (await s.list_tools()).tools}
        named.append("`reply`" in (tools["pr_review_monitor"].description or ""))
    assert [False, True] == named


async def test_explain_names_the_tool_and_key_of_an_own_post(world: Any) -> None:
    bind(world)
    async with world.running() as run:
        woken = world.fake.post_comment(world.pr, "maintainer", "please rename the widget")
        await world.until(lambda: len(world.delivered_texts()) == 1, "the notice")
        async with session(world) as s:
            result = await s.call_tool("reply", {"comment": woken, "text": "Renamed it."})
        await world.until(lambda: own_post_decisions(run) != [], "the reply's decision")
    (reply,) = ours(world)
    key = json.loads(text_of(result))["key"]
    done = world.cli("explain", str(world.pr), reply.id)
    assert f"posted by `reply` (key {key})" in done.stdout, done.stdout + done.stderr


async def test_status_counts_the_posts_of_the_worker_tools(world: Any) -> None:
    bind(world)
    async with world.running() as run:
        async with session(world) as s:
            await s.call_tool("progress", {"text": "step 1 of 3"})
        await world.until(lambda: len(ours(world)) == 1, "the progress comment")
        await world.rounds(run, 2)
    (pr,) = json.loads(world.cli("status", "--json").stdout)["prs"]
    assert (1, 0, 0) == (pr["posts_made"], pr["posts_waiting"], pr["posts_failed"])
