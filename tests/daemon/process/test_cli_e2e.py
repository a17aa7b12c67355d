"""``status``, ``explain`` and ``doctor`` as subprocesses, against what a real daemon run
recorded in the store and FakeGitHub on loopback."""

from __future__ import annotations

import json
from typing import Any

from comment_wake.registry import CommandSpec, Registry


def _run_story(live: Any) -> tuple[str, str]:
    """A trusted and a stranger's comment through a real daemon run; their node ids."""
    live.bind()
    daemon = live.start()
    daemon.wait_rounds(1)
    stranger = live.fake.post_comment(live.pr, live.stranger, "hello there")
    trusted = live.fake.post_comment(live.pr, "maintainer", "please rename the widget")
    live.wait_until(lambda: len(live.delivered_texts()) == 1, "the notice")
    daemon.wait_for(lambda m: "(not-writer)" in m)
    daemon.wait_rounds(1)
    running = live.cli("status", "--json")
    assert 0 == running.returncode, running.stderr
    assert json.loads(running.stdout)["daemon_running"] is True
    assert 0 == daemon.stop()
    return trusted, stranger


def test_status_json_shows_the_pr_the_wake_and_the_budget(live: Any) -> None:
    _run_story(live)
    done = live.cli("status", "--json")
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
    assert report["daemon"]["budget_remaining"] == live.fake.graphql_remaining
    assert report["daemon"]["last_poll"]["prs"] == 1
    assert 1 == report["daemon"]["wakes"]
    assert [] == report["queues"]


def test_status_text_names_each_part(live: Any) -> None:
    _run_story(live)
    done = live.cli("status")
    assert 0 == done.returncode, done.stderr
    for part in ("daemon: not running", "last poll:", "API budget:", "octo/repo#1", "wakes left"):
        assert part in done.stdout


def test_explain_a_woken_comment_shows_every_rule_passing_with_the_permission(live: Any) -> None:
    trusted, _ = _run_story(live)
    done = live.cli("explain", "octo/repo#1", trusted)
    assert 0 == done.returncode, done.stderr
    lines = done.stdout.splitlines()
    assert any("woke worker w1" in line for line in lines)
    access = next(line for line in lines if line.strip().startswith("write-access"))
    assert "pass" in access
    assert "maintainer has write" in access
    rate = next(line for line in lines if line.strip().startswith("rate-limit"))
    assert "1/6 wakes this hour" in rate


def test_explain_a_strangers_comment_stops_at_write_access(live: Any) -> None:
    _, stranger = _run_story(live)
    done = live.cli("explain", "octo/repo#1", stranger, "--json")
    assert 0 == done.returncode, done.stderr
    [entry] = json.loads(done.stdout)
    verdicts = {r["rule"]: r["verdict"] for r in entry["rules"]}
    assert "stop" == verdicts["write-access"]
    assert "not reached" == verdicts["rate-limit"]
    assert "pass" == verdicts["own-post"]
    assert "read" == entry["record"]["permission"]["permission"]


def test_explain_finds_a_comment_by_its_url_and_database_id(live: Any) -> None:
    trusted, _ = _run_story(live)
    done = live.cli("explain", "octo/repo#1", trusted, "--json")
    record = json.loads(done.stdout)[0]["record"]
    database_id = record["database_id"]
    by_id = live.cli("explain", "octo/repo#1", str(database_id), "--json")
    url = f"https://github.com/octo/repo/pull/1#issuecomment-{database_id}"
    by_url = live.cli("explain", "octo/repo#1", url, "--json")
    assert json.loads(done.stdout) == json.loads(by_id.stdout) == json.loads(by_url.stdout)


def test_explain_an_unknown_comment_exits_1_and_says_so(live: Any) -> None:
    live.bind()
    done = live.cli("explain", "octo/repo#1", "IC_nothing")
    assert 1 == done.returncode
    assert "no decision about IC_nothing" in done.stdout


def test_doctor_on_a_good_setup_passes(live: Any) -> None:
    live.bind()
    done = live.cli("doctor")
    assert 0 == done.returncode, done.stdout + done.stderr
    assert "ok    token: authenticated as octo-worker" in done.stdout
    assert "ok    push access octo/repo" in done.stdout
    assert "ok    publisher w1" in done.stdout
    assert "FAIL" not in done.stdout
    assert live.token not in done.stdout + done.stderr


def test_doctor_on_a_bad_setup_fails_each_broken_check(live: Any) -> None:
    live.bind()
    with Registry.open(live.state_dir) as registry:
        registry.bind(
            "w1",
            live.pr,
            orchestrator="orch",
            publisher=CommandSpec(("/nonexistent/notify-worker", "w1")),
        )
    live.fake.set_push_access("octo/repo", False)
    done = live.cli("doctor")
    assert 1 == done.returncode
    assert "FAIL  push access octo/repo" in done.stdout
    assert "FAIL  publisher w1: /nonexistent/notify-worker" in done.stdout


def test_doctor_with_a_refused_token_fails_the_token_check(live: Any) -> None:
    live.bind()
    done = live.cli("doctor", env=live.env(GH_TOKEN="ghp_WrongToken0123456789abcdefghijklmnop"))
    assert 1 == done.returncode
    assert "FAIL  token" in done.stdout
    assert "WrongToken" not in done.stdout + done.stderr
