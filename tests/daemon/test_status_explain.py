"""``status``, ``explain`` and ``doctor`` over what an in-process daemon run on virtual
time recorded in the store: the live answers of ``App.status()`` and ``App.explain()``,
and the commands through ``comment_wake.cli.main`` (in process; the few contract tests
that run them as real processes are in ``test_cli_contract.py``)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from comment_wake.cli import main
from comment_wake.registry import CommandSpec, Registry

pytestmark = pytest.mark.anyio


def _cli(world: Any, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    capsys.readouterr()
    code = main([*args, *world.location()])
    return code, capsys.readouterr().out


# -- App.status() and App.explain(): the running app's answers ---------------------------


async def test_the_running_apps_status_shows_the_pr_the_wake_and_the_budget(world: Any) -> None:
    seen: list[Any] = []

    async def ask(run: Any) -> None:
        seen.append(await run.daemon.app.status())

    await world.story(during=ask)
    [report] = seen
    [pr] = report.prs
    assert (str(world.pr), ("w1",), 2, 1, 5, 23, 0, 0) == (
        pr.pr,
        pr.workers,
        pr.handled,
        pr.woken,
        pr.wakes_left_hour,
        pr.wakes_left_day,
        pr.held,
        pr.pending_retries,
    )
    assert (True, 1, world.fake.graphql_remaining) == (
        report.daemon_running,
        report.daemon.wakes,
        report.daemon.budget_remaining,
    )


async def test_the_running_app_explains_a_woken_comment_with_every_rule_passing(
    world: Any,
) -> None:
    world.bind()
    async with world.running() as run:
        trusted = world.fake.post_comment(world.pr, "maintainer", "please rename the widget")
        await world.until(lambda: len(world.delivered_texts()) == 1, "the notice")
        [explained] = await run.daemon.app.explain(world.pr, trusted)
    assert ("wake", "maintainer", "write") == (
        explained.record.outcome,
        explained.record.author,
        explained.record.permission.permission if explained.record.permission else None,
    )
    assert all("pass" == line.verdict for line in explained.rules)


# -- the commands, in process -------------------------------------------------------------


async def test_status_json_while_the_daemon_runs_says_it_is_running(
    world: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    answers: list[tuple[int, str]] = []

    async def ask(run: Any) -> None:
        answers.append(_cli(world, capsys, "status", "--json"))

    await world.story(during=ask)
    [(code, out)] = answers
    assert (0, True) == (code, json.loads(out)["daemon_running"])


async def test_status_text_names_each_part(world: Any, capsys: pytest.CaptureFixture[str]) -> None:
    await world.story()
    code, out = _cli(world, capsys, "status")
    assert 0 == code
    for part in ("daemon: not running", "last poll:", "API budget:", "octo/repo#1", "wakes left"):
        assert part in out


async def test_explain_a_strangers_comment_stops_at_write_access(
    world: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    story = await world.story()
    code, out = _cli(world, capsys, "explain", "octo/repo#1", story.stranger, "--json")
    assert 0 == code
    [entry] = json.loads(out)
    verdicts = {r["rule"]: r["verdict"] for r in entry["rules"]}
    assert "stop" == verdicts["write-access"]
    assert "not reached" == verdicts["rate-limit"]
    assert "pass" == verdicts["own-post"]
    assert "read" == entry["record"]["permission"]["permission"]


async def test_explain_finds_a_comment_by_its_url_and_database_id(
    world: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    story = await world.story()
    _, by_node = _cli(world, capsys, "explain", "octo/repo#1", story.trusted, "--json")
    database_id = json.loads(by_node)[0]["record"]["database_id"]
    _, by_id = _cli(world, capsys, "explain", "octo/repo#1", str(database_id), "--json")
    url = f"https://github.com/octo/repo/pull/1#issuecomment-{database_id}"
    _, by_url = _cli(world, capsys, "explain", "octo/repo#1", url, "--json")
    assert json.loads(by_node) == json.loads(by_id) == json.loads(by_url)


def test_explain_an_unknown_comment_exits_1_and_says_so(
    world: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    world.bind()
    code, out = _cli(world, capsys, "explain", "octo/repo#1", "IC_nothing")
    assert 1 == code
    assert "no decision about IC_nothing" in out


def test_explain_of_an_undecided_comment_names_the_floor_as_a_pre_rule(
    world: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    # The reason ``old`` was never given: a comment at or below the floor is never decided,
    # so explain says so where it finds no decision (issue 26, item 5).
    world.bind()
    _, out = _cli(world, capsys, "explain", "octo/repo#1", "IC_nothing")
    assert "at or below the floor, which is never decided" in out


def test_doctor_on_a_bad_setup_fails_each_broken_check(
    served: Any, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GH_TOKEN", served.token)
    served.bind()
    with Registry.open(served.state_dir) as registry:
        registry.bind(
            "w1",
            served.pr,
            orchestrator="orch",
            publisher=CommandSpec(("/nonexistent/notify-worker", "w1")),
        )
    served.fake.set_push_access("octo/repo", False)
    code, out = _cli(served, capsys, "doctor")
    assert 1 == code
    assert "FAIL  push access octo/repo" in out
    assert "FAIL  publisher w1: /nonexistent/notify-worker" in out


def test_doctor_with_a_refused_token_fails_the_token_check(
    served: Any,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("GH_TOKEN", "ghp_WrongToken0123456789abcdefghijklmnop")
    served.bind()
    capsys.readouterr()
    code = main(["doctor", *served.location()])
    out, err = capsys.readouterr()
    assert 1 == code
    assert "FAIL  token" in out
    assert "WrongToken" not in out + err + caplog.text  # caplog: what stderr would show
