"""``comment-wake status`` shows what went wrong: a PR that is gone or merged, the
daemon's last error of each kind, a worker's untaken inbox backlog and each parked notice
with its reason (an in-process daemon on virtual time; the command through ``main``)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from comment_wake.cli import main
from comment_wake.registry import CommandSpec, InboxSpec, Registry
from review_monitor import PrRef
from review_monitor.testing import Fault as FakeFault

pytestmark = pytest.mark.anyio

GONE = PrRef("octo", "repo", 99)


def _status(world: Any, capsys: pytest.CaptureFixture[str], *extra: str) -> str:
    capsys.readouterr()
    assert 0 == main(["status", *extra, *world.location()])
    return capsys.readouterr().out


def _block(out: str, pr: str) -> list[str]:
    """The lines ``status`` prints for one PR."""
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"{pr} "))
    end = next((i for i in range(start + 1, len(lines)) if not lines[i].startswith("  ")), None)
    return lines[start:end]


async def test_a_pr_github_says_is_gone_shows_gone_and_its_last_error(
    world: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    with Registry.open(world.state_dir) as registry:
        registry.add_orchestrator("orch", InboxSpec())
        registry.bind("w9", GONE, orchestrator="orch", publisher=InboxSpec())
    async with world.running():
        out = _status(world, capsys)
    block = _block(out, str(GONE))
    assert (True, True) == (
        block[0].endswith("; gone: GitHub says it does not exist or the token lost access to it"),
        any(line.startswith("  last error ") and "pr-gone: not found" in line for line in block),
    )


async def test_a_merged_pr_shows_merged(world: Any, capsys: pytest.CaptureFixture[str]) -> None:
    world.bind()
    async with world.running() as run:
        world.fake.merge(world.pr)
        await world.rounds(run, 1)
        out = _status(world, capsys)
    first = _block(out, str(world.pr))[0]
    assert first.endswith("; merged: no comment wakes its worker any more")


async def test_status_json_carries_each_prs_state_and_last_error(
    world: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    with Registry.open(world.state_dir) as registry:
        registry.add_orchestrator("orch", InboxSpec())
        registry.bind("w1", world.pr, orchestrator="orch", publisher=InboxSpec())
        registry.bind("w9", GONE, orchestrator="orch", publisher=InboxSpec())
    async with world.running():
        report = json.loads(_status(world, capsys, "--json"))
    by_pr = {p["pr"]: p for p in report["prs"]}
    assert (("open", None), ("gone", "pr-gone")) == (
        (by_pr[str(world.pr)]["state"], by_pr[str(world.pr)]["last_error"]),
        (by_pr[str(GONE)]["state"], by_pr[str(GONE)]["last_error"]["kind"]),
    )


async def test_the_daemons_last_error_of_each_kind_is_shown(
    world: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    world.bind()
    async with world.running() as run:
        world.fake.inject(FakeFault(status=502, kind="badge", times=4))
        await world.until(
            lambda: any(getattr(e, "kind", None) == "github" for e in run.events.events),
            "a badge poll that fails",
        )
        await world.rounds(run, 1)
        out = _status(world, capsys)
    [line] = [line for line in out.splitlines() if line.startswith("last error (github): ")]
    assert "badge poll of 1 PRs failed: TransientError (HTTP 502)" in line


async def test_a_daemon_with_no_fault_says_so(
    world: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    world.bind()
    async with world.running():
        out = _status(world, capsys)
    assert "errors since start: none" in out.splitlines()


async def test_an_inbox_backlog_is_shown_per_worker(
    world: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    world.bind()
    async with world.running():
        for n in range(2):
            world.fake.post_comment(world.pr, "maintainer", f"change number {n}")
            await world.until(lambda n=n: len(world.delivered_texts()) == n + 1, "a notice")
        out = _status(world, capsys)
    [line] = [line for line in out.splitlines() if line.startswith(f"inbox {world.worker}:")]
    assert line.startswith(f"inbox {world.worker}: 2 notice(s) not taken yet, oldest ")


async def test_a_parked_notice_is_shown_with_its_reason(
    world: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = str(world.tmp / "no-such-notifier")
    with Registry.open(world.state_dir) as registry:
        registry.add_orchestrator("orch", CommandSpec((missing,)))
        registry.bind("w1", world.pr, orchestrator="orch", publisher=CommandSpec((missing,)))
    async with world.running() as run:
        world.fake.post_comment(world.pr, "maintainer", "please rename the widget")
        await world.until(
            lambda: any(type(e).__name__ == "NoticeParked" for e in run.events.events),
            "the parked notice",
        )
        out = _status(world, capsys)
    [line] = [line for line in out.splitlines() if line.startswith("  parked ")]
    assert (True, True) == (
        f"(comment-wake, {world.pr}) " in line,
        line.endswith(f"refused: cannot run {missing!r}: No such file or directory"),
    )
