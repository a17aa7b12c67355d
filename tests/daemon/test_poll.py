"""A PR briefly unreadable is read again soon: the daemon on FakeGitHub with a virtual
clock retries a PR GitHub answers NOT_FOUND after 1, 2, 4 ... minutes, ``status`` says
when the next try is, and ``comment-wake poll PR`` (the real command line, ``main`` in
process) has the next round read it, whether or not a daemon runs."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from typing import Any

import pytest

from comment_wake.cli import main
from comment_wake.store import open_sync_store, poll_requests

pytestmark = pytest.mark.anyio

M = timedelta(minutes=1)
S = timedelta(seconds=1)
REPO = "octo/repo"


def gone_faults(run: Any) -> list[datetime]:
    return [e.at for e in run.events.events if getattr(e, "kind", None) == "pr-gone"]


def pending_polls(world: Any) -> tuple[object, ...]:
    store = open_sync_store(world.state_dir / "state.db")
    try:
        return poll_requests(store)
    finally:
        store.close()


def badge_reads(world: Any, since: datetime) -> list[datetime]:
    return [r.at for r in world.fake.requests if r.kind == "badge" and r.at > since]


async def hidden_for_a_while(world: Any, run: Any) -> datetime:
    """Hide the repository until the daemon finds the PR gone; returns when it did."""
    world.fake.hide_repo(REPO)
    await world.until(lambda: bool(gone_faults(run)), "the PR found gone")
    return gone_faults(run)[0]


async def test_a_pr_unreadable_for_a_minute_is_read_again_within_two_and_its_review_delivered(
    world: Any,
) -> None:
    world.write_config(poll="10s")
    world.bind()
    async with world.running() as run:
        gone_at = await hidden_for_a_while(world, run)
        world.fake.post_review(world.pr, "maintainer", body="please rename the widget")
        await world.clock.advance_to(gone_at + M)
        world.fake.hide_repo(REPO, hidden=False)
        back = world.clock.now()
        await world.until(lambda: len(world.delivered_texts()) == 1, "the review's notice")
    assert (True, True) == (
        world.clock.now() - back <= 2 * M,
        "please rename the widget" in world.delivered_texts()[0],
    )


async def test_status_shows_when_a_gone_pr_is_tried_again(
    world: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    world.write_config(poll="10s")
    world.bind()
    async with world.running() as run:
        gone_at = await hidden_for_a_while(world, run)
        await world.clock.advance(20 * S)  # the state's heartbeat
        capsys.readouterr()
        assert 0 == main(["status", "--json", *world.location()])
        report = json.loads(capsys.readouterr().out)
        assert 0 == main(["status", *world.location()])
        text = capsys.readouterr().out
    [line] = report["prs"]
    stamp = (gone_at + M).strftime("%Y-%m-%d %H:%M:%SZ")
    assert (True, True) == (
        datetime.fromisoformat(line["next_try_at"]) == gone_at + M,
        any(t.startswith(f"  next try {stamp}") for t in text.splitlines()),
    )


async def test_status_shows_no_next_try_for_a_readable_pr(
    world: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    world.bind()
    async with world.running() as run:
        await world.rounds(run, 1)
        capsys.readouterr()
        assert 0 == main(["status", "--json", *world.location()])
    [line] = json.loads(capsys.readouterr().out)["prs"]
    assert None is line["next_try_at"]


async def test_a_poll_request_is_served_by_the_next_round_despite_the_backoff(
    world: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    world.write_config(poll="10s")
    world.bind()
    async with world.running() as run:
        gone_at = await hidden_for_a_while(world, run)
        # Missed at 0, 1 and 3 minutes: the next try is 7 minutes after the first miss.
        await world.clock.advance_to(gone_at + 3 * M + 15 * S)
        asked = world.clock.now()
        assert 0 == main(["poll", str(world.pr), *world.location()])
        await world.until(lambda: bool(badge_reads(world, asked)), "a read of the PR")
    assert badge_reads(world, asked)[0] - asked <= 12 * S


async def test_a_poll_request_waits_for_hint_min_gap_after_the_last_read(world: Any) -> None:
    world.write_config(poll="10s")
    text = world.config.read_text(encoding="utf-8")
    world.config.write_text(
        text.replace("[monitor]\n", '[monitor]\nhint_min_gap = "40s"\n'), encoding="utf-8"
    )
    world.bind()
    async with world.running() as run:
        gone_at = await hidden_for_a_while(world, run)
        await world.clock.advance_to(gone_at + 3 * M + S)
        last = max(badge_reads(world, gone_at))
        assert 0 == main(["poll", str(world.pr), *world.location()])
        await world.until(lambda: bool(badge_reads(world, last)), "a read of the PR")
    assert badge_reads(world, last)[0] - last >= 40 * S


async def test_a_poll_request_without_a_daemon_is_served_and_deleted_by_the_next(
    world: Any,
) -> None:
    world.bind()
    assert 0 == main(["poll", str(world.pr), *world.location()])
    async with world.running():
        # A pass over the requests (every 2 s) hands it to the poller, whose next round
        # serves it, and the pass after that deletes it: a few seconds, however a round
        # and a pass falling due together are ordered.
        await world.until(lambda: () == pending_polls(world), "the request's deletion", 10 * S)


async def test_poll_of_a_pr_not_watched_is_refused_in_one_line(
    world: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    world.bind()
    capsys.readouterr()
    status = main(["poll", "octo/repo#7", *world.location()])
    err = capsys.readouterr().err
    assert (1, 1, True) == (status, len(err.splitlines()), "octo/repo#7 is not watched" in err)


async def test_status_of_a_stopped_daemon_shows_no_next_try(
    world: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    world.write_config(poll="10s")
    world.bind()
    async with world.running() as run:
        await hidden_for_a_while(world, run)
        await world.clock.advance(20 * S)  # the state's heartbeat
    capsys.readouterr()
    assert 0 == main(["status", "--json", *world.location()])
    [line] = json.loads(capsys.readouterr().out)["prs"]
    assert None is line["next_try_at"]
