"""The command line is the contract: ``status --json``, ``explain`` and ``doctor`` run as
real processes, over what an in-process daemon run on virtual time stored (and, for
``doctor``, FakeGitHub on loopback)."""

from __future__ import annotations

import json
from typing import Any

import pytest


@pytest.mark.anyio
async def test_status_json_shows_the_pr_the_wake_and_the_budget(world: Any) -> None:
    await world.story()
    done = world.cli("status", "--json")
    assert 0 == done.returncode, done.stderr
    report = json.loads(done.stdout)
    assert report["daemon_running"] is False
    [pr] = report["prs"]
    assert "octo/repo#1" == pr["pr"]
    assert ["w1"] == pr["workers"]
    assert 2 == pr["handled"]
    assert 1 == pr["woken"]
    assert 5 == pr["wakes_left_hour"]
    assert 23 == pr["wakes_left_day"]
    assert 0 == pr["held"]
    assert 0 == pr["pending_retries"]
    assert pr["last_poll"] is not None
    assert report["daemon"]["budget_remaining"] == world.fake.graphql_remaining
    assert report["daemon"]["last_poll"]["prs"] == 1
    assert 1 == report["daemon"]["wakes"]
    assert [] == report["queues"]


@pytest.mark.anyio
async def test_status_json_gives_the_last_polls_remaining_points_as_an_integer(
    world: Any,
) -> None:
    # As ``budget_remaining`` is (it was the string "4990", or "unknown"; issue 25, 19).
    await world.story()
    daemon = json.loads(world.cli("status", "--json").stdout)["daemon"]
    assert world.fake.graphql_remaining == daemon["last_poll"]["remaining"]


@pytest.mark.anyio
async def test_explain_a_woken_comment_shows_every_rule_passing_with_the_permission(
    world: Any,
) -> None:
    story = await world.story()
    done = world.cli("explain", "octo/repo#1", story.trusted)
    assert 0 == done.returncode, done.stderr
    lines = done.stdout.splitlines()
    assert any("woke worker w1" in line for line in lines)
    access = next(line for line in lines if line.strip().startswith("write-access"))
    assert "pass" in access
    assert "maintainer has write" in access
    rate = next(line for line in lines if line.strip().startswith("rate-limit"))
    assert "1/6 wakes this hour" in rate


def test_doctor_on_a_good_setup_passes(served: Any) -> None:
    served.bind()
    done = served.cli("doctor")
    assert 0 == done.returncode, done.stdout + done.stderr
    assert "ok    token: authenticated as octo-worker" in done.stdout
    assert "ok    push access octo/repo" in done.stdout
    assert "ok    publisher w1" in done.stdout
    assert "FAIL" not in done.stdout
    assert served.token not in done.stdout + done.stderr
