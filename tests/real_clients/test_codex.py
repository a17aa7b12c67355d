"""Codex as it is today (the version ``.ci/run`` installs), run for real against the scripted
model server: what it writes, what the readers make of it, and what the recipe gets when
it resumes the thread."""

from __future__ import annotations

import json
import subprocess
import time
from datetime import UTC, datetime, timedelta

import msgspec
import pytest
from realclient_cli import Cli
from realclient_model import Call, Say
from realclient_sandbox import CODEX_FLAGS, Sandbox
from test_claude_code import fenced, make_notice

from comment_wake.ownpost import OwnPostState, TranscriptSource, read_transcript, scan

pytestmark = pytest.mark.real_client


def shell(command: str) -> Call:
    # login: false, or the login shell re-reads /etc/profile and loses the fake gh.
    return Call("exec_command", {"cmd": command, "login": False})


def recipe_args(sandbox: Sandbox, cli: Cli, session: str) -> tuple[str, ...]:
    return (
        "--session-id",
        session,
        "--codex",
        cli.path,
        "--cwd",
        str(sandbox.work),
        "--",
        *CODEX_FLAGS,
    )


def test_codex_posts_by_shell_and_mcp_namespace_and_never_a_failed_or_rejected_call(
    codex_cli: Cli, sandbox: Sandbox
) -> None:
    sandbox.codex_config(mcp=True)
    args = {"owner": "acme", "repo": "widget", "body": "Through MCP."}
    script = {
        "MAIN": [
            shell("gh pr comment 12 --body 'Fixed in abc123.'"),
            shell("gh pr comment 13 --body 'Never posted.'"),
            shell("gh api repos/acme/widget/issues/12/comments -f body=\"$(printf '%s' Built)\""),
            # flat name: Codex answers "unsupported call"
            Call("mcp__github__add_issue_comment", {**args, "issue_number": 12, "body": "Flat."}),
            Call("add_issue_comment", {**args, "issue_number": 12}, namespace="mcp__github"),
            Call("add_issue_comment", {**args, "issue_number": 13}, namespace="mcp__github"),
            Say("All done."),
        ]
    }
    thread, _ = sandbox.codex(codex_cli, "MAIN please post", script)
    rollout = sandbox.codex_rollouts()[0]
    report = read_transcript(str(rollout))
    expected = (
        thread in rollout.name,
        0,
        [
            ("gh pr comment", "Fixed in abc123.", True),
            ("gh api", None, True),
            ("mcp add_issue_comment", "Through MCP.", True),
        ],
    )
    actual = (
        True,
        report.unreadable,
        [(p.tool, p.body, p.links_count) for p in report.posts],
    )
    assert expected == actual


def test_codex_prompt_and_resumed_notice_each_start_a_turn(
    codex_cli: Cli, sandbox: Sandbox
) -> None:
    sandbox.codex_config()
    thread, _ = sandbox.codex(codex_cli, "MAIN start", {"MAIN": [Say("ready")]})
    notice = make_notice(fenced("c0ffee00c0ffee00c0ff"))
    done = sandbox.recipe(
        "codex", msgspec.json.encode(notice), *recipe_args(sandbox, codex_cli, thread)
    )
    state = scan(
        OwnPostState(),
        [TranscriptSource(path=str(sandbox.codex_rollouts()[0]))],
        datetime.now(UTC),
        window=timedelta(hours=2),
    )
    assert (0, 2) == (done.returncode, len(state.sources[0].turns))


def test_codex_recipe_resumes_the_real_thread_and_the_model_gets_the_notice_last(
    codex_cli: Cli, sandbox: Sandbox
) -> None:
    sandbox.codex_config()
    thread, _ = sandbox.codex(codex_cli, "MAIN start", {"MAIN": [Say("ready")]})
    notice = make_notice(fenced("a1b2c3d4e5f6a7b8c9d0"))
    done = sandbox.recipe(
        "codex", msgspec.json.encode(notice), *recipe_args(sandbox, codex_cli, thread)
    )
    last = sandbox.model.user_texts("/responses")[-1]
    assert (0, f"session-id: {thread}", notice.text, 1) == (
        done.returncode,
        done.stdout.splitlines()[0],
        last,
        len(sandbox.codex_rollouts()),
    )


def test_codex_recipe_resumes_a_known_thread_name_by_its_id(
    codex_cli: Cli, sandbox: Sandbox
) -> None:
    sandbox.codex_config()
    thread, _ = sandbox.codex(codex_cli, "MAIN start", {"MAIN": [Say("ready")]})
    index = sandbox.home / ".codex" / "session_index.jsonl"
    entry = {"id": thread, "thread_name": "worker-7", "updated_at": "2026-12-01T10:00:00Z"}
    index.write_text(json.dumps(entry) + "\n")
    notice = make_notice(fenced("1234512345123451234a"))
    args = recipe_args(sandbox, codex_cli, "worker-7")
    done = sandbox.recipe("codex", msgspec.json.encode(notice), *args)
    assert (0, f"session-id: {thread}", 1) == (
        done.returncode,
        done.stdout.splitlines()[0],
        len(sandbox.codex_rollouts()),
    )


def test_codex_recipe_a_made_up_thread_name_is_gone_and_starts_no_thread(
    codex_cli: Cli, sandbox: Sandbox
) -> None:
    # Run as is, `codex exec resume made-up -` starts a new thread with the notice.
    sandbox.codex_config()
    sandbox.codex(codex_cli, "MAIN start", {"MAIN": [Say("ready")]})
    requests = len(sandbox.model.requests)
    notice = make_notice(fenced("feedfeedfeedfeedfeed"))
    args = recipe_args(sandbox, codex_cli, "made-up-name")
    done = sandbox.recipe("codex", msgspec.json.encode(notice), *args)
    assert (69, 1, requests) == (
        done.returncode,
        len(sandbox.codex_rollouts()),
        len(sandbox.model.requests),
    )


def test_codex_recipe_a_thread_another_codex_holds_is_busy_with_codexs_reason(
    codex_cli: Cli, sandbox: Sandbox
) -> None:
    sandbox.codex_config()
    thread, _ = sandbox.codex(codex_cli, "MAIN start", {"MAIN": [Say("ready")]})
    sandbox.model.script["HOLD"] = [shell("sleep 6"), Say("held")]
    holder = subprocess.Popen(
        [codex_cli.path, "exec", "--json", *CODEX_FLAGS, "resume", thread, "HOLD the thread"],
        env=sandbox.env(),
        cwd=sandbox.work,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        while "HOLD the thread" not in sandbox.model.user_texts("/responses")[-1]:
            assert time.monotonic() < deadline, "the holder never started its turn"
            time.sleep(0.2)
        time.sleep(1)  # the holder now runs its 6-second command
        notice = make_notice(fenced("beefbeefbeefbeefbeef"))
        args = recipe_args(sandbox, codex_cli, thread)
        done = sandbox.recipe("codex", msgspec.json.encode(notice), *args)
    finally:
        holder.wait(timeout=60)
    assert (75, True) == (done.returncode, "already has an active writer" in done.stderr)


def test_codex_recipe_drops_a_repeated_notice_without_resuming_again(
    codex_cli: Cli, sandbox: Sandbox
) -> None:
    sandbox.codex_config()
    thread, _ = sandbox.codex(codex_cli, "MAIN start", {"MAIN": [Say("ready")]})
    notice = msgspec.json.encode(make_notice(fenced("0f1e2d3c4b5a69788796")))
    args = recipe_args(sandbox, codex_cli, thread)
    first = sandbox.recipe("codex", notice, *args)
    requests = len(sandbox.model.requests)
    again = sandbox.recipe("codex", notice, *args)
    assert ((0, 0), requests, again.stdout.splitlines()[:1]) == (
        (first.returncode, again.returncode),
        len(sandbox.model.requests),
        [f"session-id: {thread}"],
    )


def test_codex_recipe_finds_a_notice_already_in_the_rollout(
    codex_cli: Cli, sandbox: Sandbox
) -> None:
    sandbox.codex_config()
    notice = make_notice(fenced("99887766554433221100"))
    thread, _ = sandbox.codex(codex_cli, notice.text, {})
    requests = len(sandbox.model.requests)
    done = sandbox.recipe(
        "codex", msgspec.json.encode(notice), *recipe_args(sandbox, codex_cli, thread)
    )
    assert (0, requests) == (done.returncode, len(sandbox.model.requests))
