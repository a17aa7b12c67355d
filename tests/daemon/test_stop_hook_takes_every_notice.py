"""The largest notice of each kind reaches a hooked worker whole (issue 25, item 2).

The daemon runs on FakeGitHub; ``comment-wake inbox take ID --stop-hook`` runs as a real
process, as Claude Code's Stop hook runs it, until it has nothing more to give.  Each
answer stays within ``NOTICE_TEXT_LIMIT``, every notice is taken (none is left pending for
being too long), and every comment's link is in what the hook printed.
"""

from __future__ import annotations

import json
import sys
import time
from datetime import timedelta
from typing import Any

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

from comment_wake._limits import NOTICE_TEXT_LIMIT
from comment_wake.registry import CommandSpec, InboxSpec, Registry

pytestmark = pytest.mark.anyio

# Prose, not one repeated letter: the fence cuts text, so the size must be the comment's.
WORDS = "the widget parser drops the trailing field when the row ends early so "


def prose(label: str, chars: int) -> str:
    return (label + ": " + WORDS * (chars // len(WORDS) + 1))[:chars]


def take_with_the_stop_hook(world: Any, who: str) -> list[str]:
    """Every ``reason`` the Stop hook prints for ``who``, until it prints nothing."""
    reasons: list[str] = []
    for _ in range(30):
        done = world.cli("inbox", "take", who, "--stop-hook")
        assert (0, "") == (done.returncode, done.stderr)
        if not done.stdout:
            return reasons
        answer = json.loads(done.stdout)
        assert "block" == answer["decision"]
        reasons.append(answer["reason"])
    raise AssertionError(f"the Stop hook for {who} never ran dry")


def pending(world: Any, who: str) -> list[str]:
    """The keys of ``who``'s notices still pending (a take without a hook shape takes all)."""
    done = world.cli("inbox", "take", who)
    assert 0 == done.returncode, done.stderr
    return [json.loads(line)["key"] for line in done.stdout.splitlines()]


def url(anchor: str) -> str:
    return f"https://github.com/octo/repo/pull/1#{anchor}"


def fits(reasons: list[str]) -> bool:
    return bool(reasons) and all(len(r) <= NOTICE_TEXT_LIMIT for r in reasons)


async def test_a_review_with_forty_long_inline_comments_is_taken_whole_in_parts(
    world: Any,
) -> None:
    world.bind()
    inline = [(f"src/f{k}.py", k + 1, prose(f"inline {k}", 1_000)) for k in range(40)]
    ids = [(None, 7_000 + k) for k in range(40)]
    async with world.running() as run:
        world.fake.post_review(
            world.pr, "maintainer", "COMMENTED", "see inline", inline=inline, inline_ids=ids
        )
        await world.until(lambda: len(world.delivered_texts()) >= 2, "the review's parts")
        await world.rounds(run, 2)
    reasons = take_with_the_stop_hook(world, world.worker)
    shown = "\n".join(reasons)
    missing = [u for _, db in ids if (u := url(f"discussion_r{db}")) not in shown]
    assert (True, [], []) == (fits(reasons), missing, pending(world, world.worker))


@pytest.mark.parametrize("kind", ["verdict", "check summary"])
async def test_a_monitor_notice_of_36000_characters_is_taken_whole(world: Any, kind: str) -> None:
    world.bind()
    async with world.running() as run:
        if kind == "verdict":
            world.fake.post_review(
                world.pr, "maintainer", "CHANGES_REQUESTED", prose("verdict", 36_000)
            )
        else:
            world.fake.add_check_run(world.pr, "ci", summary=prose("summary", 36_000))
        await world.until(lambda: len(world.delivered_texts()) >= 1, f"the {kind}'s notice")
        await world.rounds(run, 2)
    reasons = take_with_the_stop_hook(world, world.worker)
    assert (True, []) == (fits(reasons), pending(world, world.worker))


async def test_a_report_linking_fifty_comments_reaches_the_orchestrator_whole(
    world: Any,
) -> None:
    world.bind()
    async with world.running() as run:
        ids = [
            world.fake.post_comment(
                world.pr, "maintainer", prose(f"ask {k}", 200), database_id=8_000 + k
            )
            for k in range(50)
        ]
        await world.until(lambda: len(world.delivered_texts()) >= 1, "the comments' notice")
        await world.rounds(run, 2)
        params = StdioServerParameters(
            command=sys.executable,
            args=["-m", "comment_wake", "mcp", world.worker, *world.location()],
            env=world.env(),
        )
        with (world.tmp / "mcp-stderr.log").open("w") as errlog:
            async with (
                stdio_client(params, errlog=errlog) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                result = await session.call_tool(
                    "report", {"text": prose("report", 20_000), "comment_ids": ids}
                )
        assert not result.is_error, result.content
        orchestrator_inbox = world.state_dir / "inbox" / "orch"
        await world.until(lambda: any(orchestrator_inbox.rglob("*.json")), "the report")
    reasons = take_with_the_stop_hook(world, "orch")
    urls = [url(f"issuecomment-{8_000 + k}") for k in range(50)]
    missing = [u for u in urls if u not in "\n".join(reasons)]
    assert (True, [], []) == (fits(reasons), missing, pending(world, "orch"))


async def test_the_hand_off_of_a_full_merge_reaches_the_orchestrator_whole(
    world: Any,
) -> None:
    # The worker's command answers busy (75), and the first notice waits a minute before it
    # is tried again; by then four more wakes are queued, and it takes in as many as fit the
    # build limit.  Then a flag file makes the command answer gone (69), and every notice,
    # the full merge among them, is handed to the orchestrator under a hand-off header.
    slow = world.config.read_text(encoding="utf-8").replace(
        '\nbackoff_base = "1s"\nbackoff_cap = "2s"', '\nbackoff_base = "60s"\nbackoff_cap = "60s"'
    )
    world.config.write_text(slow, encoding="utf-8")
    gone = world.tmp / "gone"
    program = (
        "import pathlib, sys; sys.stdin.buffer.read(); "
        f"sys.exit(69 if pathlib.Path({str(gone)!r}).exists() else 75)"
    )
    with Registry.open(world.state_dir) as registry:
        registry.add_orchestrator("orch", InboxSpec())
        registry.bind(
            world.worker,
            world.pr,
            orchestrator="orch",
            publisher=CommandSpec((sys.executable, "-c", program)),
        )
    orchestrator_inbox = world.state_dir / "inbox" / "orch"
    urls = [url(f"issuecomment-{9_000 + k}") for k in range(5)]

    def handed() -> list[str]:
        # Delivered notices only: a file in tmp/ is being written, and is renamed into
        # new/ at any moment (reading it there raced the rename).
        return [
            json.loads(p.read_text(encoding="utf-8"))["text"]
            for p in sorted((orchestrator_inbox / "new").glob("*.json"))
        ]

    async with world.running() as run:
        for k in range(5):  # one wake each, about 2,100 characters a notice
            world.fake.post_comment(
                world.pr, "maintainer", prose(f"round {k}", 1_500), database_id=9_000 + k
            )
            await world.rounds(run, 2)
        gone.touch()
        deadline = time.monotonic() + 120  # the command is a real process, on real time
        while time.monotonic() < deadline and not all(u in "".join(handed()) for u in urls):
            await world.clock.advance(timedelta(seconds=1))
            await anyio.sleep(0.05)
    notices = handed()
    reasons = take_with_the_stop_hook(world, "orch")
    missing = [u for u in urls if u not in "\n".join(reasons)]
    # Three wakes fill the merge (7,862 characters with the hand-off header): a fourth
    # notice would pass the build limit.
    fullest = max(notices, key=len)
    assert (True, [], [], 3) == (
        fits(reasons),
        missing,
        pending(world, "orch"),
        sum(u in fullest for u in urls),
    )
