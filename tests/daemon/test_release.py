"""``comment-wake release PR`` through the real command line (``main`` in process) and
the daemon on FakeGitHub with a virtual clock: the request is recorded whether or not a
daemon runs, the daemon applies it (after the same re-read as any release), the wake is
recorded as ``operator-release`` and counts in the PR's rate limit."""

from __future__ import annotations

from typing import Any

import pytest

from comment_wake.cli import main
from comment_wake.store import open_sync_store, release_requests

pytestmark = pytest.mark.anyio


def release(world: Any) -> int:
    return main(["release", str(world.pr), *world.location()])


async def hold_one(world: Any, run: Any) -> str:
    """A first trusted comment wakes the worker; a second is held (an hour's gap)."""
    world.fake.post_comment(world.pr, "maintainer", "first")
    await world.until(lambda: len(world.delivered_texts()) == 1, "the first notice")
    held = world.fake.post_comment(world.pr, "maintainer", "second, held")
    await world.until(
        lambda: any(d.comment == held and d.outcome == "held" for d in run.events.decisions),
        "the hold",
    )
    return str(held)


def outcomes(run: Any, comment: str) -> list[tuple[str, str]]:
    return [(d.outcome, d.reason) for d in run.events.decisions if d.comment == comment]


async def test_release_while_the_daemon_runs_wakes_the_worker_with_the_held_comment(
    world: Any,
) -> None:
    world.write_config(gap="1h")
    world.bind()
    async with world.running() as run:
        held = await hold_one(world, run)
        assert 0 == release(world)
        await world.until(lambda: len(world.delivered_texts()) == 2, "the released notice")
    assert [("held", "rate-limit"), ("wake", "operator-release")] == outcomes(run, held)


async def test_release_without_a_daemon_is_applied_by_the_next_one(world: Any) -> None:
    world.write_config(gap="1h")
    world.bind()
    async with world.running() as run:
        held = await hold_one(world, run)
    assert 0 == release(world)
    async with world.running() as again:
        await world.until(lambda: len(world.delivered_texts()) == 2, "the released notice")
    assert [("wake", "operator-release")] == outcomes(again, held)


async def test_an_applied_release_request_is_gone_from_the_store(world: Any) -> None:
    world.write_config(gap="1h")
    world.bind()
    async with world.running() as run:
        await hold_one(world, run)
        release(world)
        await world.until(lambda: len(world.delivered_texts()) == 2, "the released notice")
        await world.rounds(run, 1)
    store = open_sync_store(world.state_dir / "state.db")
    try:
        assert () == release_requests(store)
    finally:
        store.close()


async def test_the_released_wake_counts_in_the_rate_limit(world: Any) -> None:
    world.write_config(gap="1h")
    world.bind()
    async with world.running() as run:
        await hold_one(world, run)
        release(world)
        await world.until(lambda: len(world.delivered_texts()) == 2, "the released notice")
        third = world.fake.post_comment(world.pr, "maintainer", "third")
        await world.until(lambda: bool(outcomes(run, third)), "the third comment's decision")
    assert [("held", "rate-limit")] == outcomes(run, third)


async def test_release_reads_the_held_comments_again(world: Any) -> None:
    world.write_config(gap="1h")
    world.bind()
    async with world.running() as run:
        held = await hold_one(world, run)
        world.fake.delete(held)
        release(world)
        await world.until(lambda: len(outcomes(run, held)) == 2, "the release's decision")
    assert ([("held", "rate-limit"), ("drop", "deleted")], 1) == (
        outcomes(run, held),
        len(world.delivered_texts()),
    )


async def test_explain_shows_an_operator_release(
    world: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    world.write_config(gap="1h")
    world.bind()
    async with world.running() as run:
        held = await hold_one(world, run)
        release(world)
        await world.until(lambda: len(world.delivered_texts()) == 2, "the released notice")
    capsys.readouterr()
    main(["explain", str(world.pr), held, *world.location()])
    assert "operator-release" in capsys.readouterr().out


async def test_release_exits_1_when_nothing_is_held(
    world: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    world.bind()
    code = release(world)
    assert (1, f"comment-wake release: nothing is held on {world.pr}\n") == (
        code,
        capsys.readouterr().err,
    )


async def test_release_records_no_request_when_nothing_is_held(world: Any) -> None:
    world.bind()
    release(world)
    store = open_sync_store(world.state_dir / "state.db")
    try:
        assert () == release_requests(store)
    finally:
        store.close()


async def test_release_without_a_store_exits_1_and_creates_none(world: Any) -> None:
    code = release(world)
    assert (1, False) == (code, (world.state_dir / "state.db").exists())


async def test_release_of_a_bad_pr_reference_exits_2(world: Any) -> None:
    assert 2 == main(["release", "not-a-pr", *world.location()])
