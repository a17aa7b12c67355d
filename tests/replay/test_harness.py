"""The harness itself: the CLI as a real subprocess, determinism, polling cost, speed and
scenario errors."""

from __future__ import annotations

import math
import subprocess
import sys
import time
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from comment_wake.replay import (
    ScenarioError,
    format_json,
    load_scenario,
    parse_scenario,
    run_scenario,
    run_scenario_sync,
)

HERE = Path(__file__).resolve().parent
SCENARIOS = HERE.parents[1] / "fixtures" / "scenarios"
T0 = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)


def _scenario(events: list[dict[str, Any]], **top: Any) -> dict[str, Any]:
    return {
        "start": T0,
        "github": {"viewer": "octo-user", "permissions": {"bob": "write", "carol": "write"}},
        "prs": [{"repo": "octo-org/octo-repo", "number": 12, "title": "A fix", "worker": "w-1"}],
        "workers": [
            {"id": "orch-1", "role": "orchestrator"},
            {"id": "w-1", "spawned_by": "orch-1"},
        ],
        "events": events,
        **top,
    }


def _comments(n: int, start_s: int) -> list[dict[str, Any]]:
    return [
        {
            "at": T0 + timedelta(seconds=start_s + k),
            "kind": "comment",
            "id": f"IC_{k}",
            "author": ("bob", "carol")[k % 2],
            "body": f"Point {k}.",
        }
        for k in range(n)
    ]


def test_cli_replay_json_prints_the_same_bytes_as_the_library() -> None:
    path = SCENARIOS / "rate-limit-holds-and-batches.toml"
    done = subprocess.run(
        [sys.executable, "-m", "comment_wake", "replay", "--json", "--seed", "7", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    expected = format_json(run_scenario_sync(load_scenario(path), seed=7).lines)
    assert (0, expected) == (done.returncode, done.stdout)


def test_cli_names_the_bad_key_and_exits_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('start = "2026-01-05T09:00:00Z"\npoll_evry = "60s"\n', encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "comment_wake", "replay", str(bad)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert (2, True) == (done.returncode, "'poll_evry'" in done.stderr)


@pytest.mark.anyio
async def test_same_seed_gives_the_same_bytes() -> None:
    scenario = load_scenario(SCENARIOS / "stranded-retry-picked-up.toml")
    first = format_json((await run_scenario(scenario, seed=3)).lines)
    second = format_json((await run_scenario(scenario, seed=3)).lines)
    assert first == second


@pytest.mark.anyio
async def test_another_seed_draws_other_fence_values() -> None:
    scenario = load_scenario(SCENARIOS / "trusted-comment-wakes.toml")
    first = format_json((await run_scenario(scenario, seed=1)).lines)
    second = format_json((await run_scenario(scenario, seed=2)).lines)
    assert first != second


@pytest.mark.anyio
async def test_a_quiet_poll_makes_no_request_beyond_the_badge() -> None:
    scenario = parse_scenario(_scenario(_comments(3, 10), end=T0 + timedelta(minutes=20)))
    result = await run_scenario(scenario)
    quiet = Counter(r.kind for r in result.requests if r.at > T0 + timedelta(minutes=1))
    assert {"badge": 19} == dict(quiet)


@pytest.mark.anyio
@pytest.mark.parametrize("n", [1, 7, 35, 65])
async def test_a_poll_with_n_new_items_reads_ceil_n_over_30_details(n: int) -> None:
    """One poll sees all n (posted one a second before it); more than the badge's 10 need
    the gap read, a page of 100 each; bob and carol cost one lookup each."""
    scenario = parse_scenario(_scenario(_comments(n, 1), poll_every="2m"))
    result = await run_scenario(scenario)
    first_look = T0 + timedelta(minutes=2)
    kinds: Counter[str] = Counter(r.kind for r in result.requests if r.at == first_look)
    expected = {
        "badge": 1,
        "detail": math.ceil(n / 30),
        "gap": 1 if n > 10 else 0,
        "permission": min(n, 2),
    }
    assert (expected, sum(expected.values())) == (
        {k: kinds[k] for k in expected},
        sum(kinds.values()),
    )


@pytest.mark.anyio
async def test_a_cached_author_costs_no_second_lookup() -> None:
    later = {"at": T0 + timedelta(minutes=3), "kind": "comment", "id": "IC_b", "author": "bob"}
    events = [*_comments(1, 10), later]
    result = await run_scenario(parse_scenario(_scenario(events)))
    # The monitor's start-up preflight asks about the token's own login; bob is asked once.
    assert 1 == sum(1 for r in result.requests if r.kind == "permission" and "/bob/" in r.path)


def test_a_simulated_hour_replays_in_well_under_a_second_of_cpu() -> None:
    scenario = parse_scenario(_scenario(_comments(4, 30), end=T0 + timedelta(hours=1)))
    cpu = time.process_time()
    wall = time.perf_counter()
    result = run_scenario_sync(scenario)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    print(
        f"one simulated hour: {cpu:.3f} s CPU, {wall:.3f} s wall, {len(result.requests)} requests"
    )
    assert cpu < 1.0


@pytest.mark.parametrize(
    ("change", "named"),
    [
        ({"config": {"floor_lagg": "5m"}}, "config.floor_lagg"),
        ({"config": {"wakes_per_hour": 0}}, "config.wakes_per_hour"),
        ({"events": [{"at": T0, "kind": "coment", "id": "x"}]}, "event 1: unknown kind 'coment'"),
        (
            {"events": [{"at": T0, "kind": "comment", "id": "x"}]},
            "event 1 (comment): the key 'author'",
        ),
        ({"events": [{"at": T0, "kind": "delete", "id": "x", "bdy": ""}]}, "unknown key 'bdy'"),
        ({"start": "09:00"}, "start: '09:00' is not an RFC 3339 time"),
        ({"poll_every": "1 minute"}, "poll_every"),
    ],
)
def test_a_bad_scenario_is_refused_naming_what_is_wrong(change: dict[str, Any], named: str) -> None:
    with pytest.raises(ScenarioError) as caught:
        parse_scenario({**_scenario([]), **change})
    assert named in str(caught.value)


def _with_mark_v0(value: Any) -> dict[str, Any]:
    raw = _scenario([])
    raw["prs"] = [{**raw["prs"][0], "mark_v0": value}]
    return raw


@pytest.mark.parametrize(
    ("value", "named"),
    [("IC_1", "prs[1].mark_v0: expected an array"), ([1], "prs[1].mark_v0[1]"), ([""], "empty")],
)
def test_a_bad_mark_v0_is_refused_naming_the_key(value: object, named: str) -> None:
    with pytest.raises(ScenarioError) as caught:
        parse_scenario(_with_mark_v0(value))
    assert named in str(caught.value)


def test_mark_v0_is_read_as_the_prs_earlier_ids() -> None:
    scenario = parse_scenario(_with_mark_v0(["IC_1", "IC_2"]))
    assert ("IC_1", "IC_2") == scenario.prs[0].mark_v0


@pytest.mark.anyio
async def test_mark_v0_is_in_the_store_before_the_first_poll_so_it_is_no_baseline() -> None:
    before = T0 - timedelta(minutes=10)
    comments = [
        {"at": before, "kind": "comment", "id": "IC_old", "author": "bob", "body": "Old."},
        {"at": before, "kind": "comment", "id": "IC_new", "author": "carol", "body": "New."},
    ]
    raw = _with_mark_v0(["IC_old"])
    raw["events"] = comments
    result = await run_scenario(parse_scenario(raw))
    decided = [
        (line.fields["comment"], line.fields["outcome"])
        for line in result.lines
        if line.type == "decision"
    ]
    assert [("IC_new", "wake")] == decided


def test_a_scenarios_pr_number_github_cannot_hold_is_refused() -> None:
    raw = _scenario([])
    raw["prs"] = [{**raw["prs"][0], "number": 3000000000}]
    with pytest.raises(ScenarioError, match=r"prs\[1\]: .*from 1 to 2147483647"):
        parse_scenario(raw)
