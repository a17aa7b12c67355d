"""Claude Code as it is today (the version ``.ci/run`` installs), run for real against the
scripted model server: what it writes, what the readers and matcher make of it, and what
the recipe gets when it resumes the session."""

from __future__ import annotations

import json
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import msgspec
import pytest
from realclient_cli import Cli
from realclient_model import Call, Say
from realclient_sandbox import Sandbox

from comment_wake.delivery import take as take_inbox
from comment_wake.delivery import write_notice
from comment_wake.ownpost import (
    CommentText,
    OwnPostState,
    TranscriptSource,
    match,
    read_transcript,
    scan,
)
from comment_wake.registry import InboxSpec, Registry, claude_project_name
from review_monitor import NOTICE_VERSION, Notice, NoticeItem, NoticePr, PrRef, notice_key

pytestmark = pytest.mark.real_client

BASH = "Bash"


def bash(command: str) -> Call:
    return Call(BASH, {"command": command, "description": "run it"})


def make_notice(text: str, item: str = "IC_1") -> Notice:
    pr = PrRef(owner="acme", name="widget", number=12)
    return Notice(
        version=NOTICE_VERSION,
        kind="comment-wake",
        key=notice_key("w-7", pr, "comment-wake", (item,)),
        worker="w-7",
        pr=NoticePr(
            host="github.com",
            repo="acme/widget",
            number=12,
            url="https://github.com/acme/widget/pull/12",
            title="Fix it",
        ),
        items=(
            NoticeItem(
                id=item,
                database_id=1,
                url="https://github.com/acme/widget/pull/12#issuecomment-1",
                author="alice",
                kind="comment",
            ),
        ),
        text=text,
        created_at=datetime(2026, 12, 1, tzinfo=UTC),
    )


def fenced(nonce: str) -> str:
    return (
        "alice commented on acme/widget#12\n"
        f"<<<untrusted-comment-begin {nonce}>>>\nsource: @alice\nPlease rename it.\n"
        f"<<<untrusted-comment-end {nonce}>>>"
    )


def test_claude_session_posts_are_read_and_failed_posts_and_reads_are_not(
    claude_cli: Cli, sandbox: Sandbox
) -> None:
    script = {
        "MAIN": [
            bash("gh pr comment 12 --body 'Fixed in abc123.'"),
            bash("gh pr comment 13 --body 'Never posted.'"),
            bash("gh pr review 12 --comment -b 'Looks right now.'"),
            bash("gh api repos/acme/widget/issues/12/comments -f body='Via the API.'"),
            bash("gh api repos/acme/widget/issues/12/comments --jq '.[].html_url'"),
            bash("gh pr comment 12 --body-file - <<'EOF'\nFrom a heredoc.\n\nTwo lines.\nEOF"),
            bash("gh pr comment 12 --body \"$(printf '%s' Built)\""),
            Say("All done."),
        ]
    }
    session, _ = sandbox.claude(claude_cli, "MAIN please post", script)
    report = read_transcript(str(sandbox.claude_transcript(session)))
    expected = (
        0,
        7,
        [
            ("gh pr comment", "Fixed in abc123.", True),
            ("gh pr review --comment", "Looks right now.", True),
            ("gh api", "Via the API.", True),
            ("gh pr comment", "From a heredoc.\n\nTwo lines.\n", True),
            ("gh pr comment", None, True),
        ],
    )
    actual = (
        report.unreadable,
        report.tool_calls,
        [(p.tool, p.body, p.links_count) for p in report.posts],
    )
    assert expected == actual


def test_claude_mcp_add_issue_comment_is_a_post_and_its_failure_is_not(
    claude_cli: Cli, sandbox: Sandbox
) -> None:
    config = json.dumps({"mcpServers": {"github": sandbox.mcp_server()}})
    tool = "mcp__github__add_issue_comment"
    args = {"owner": "acme", "repo": "widget", "body": "Through MCP."}
    script = {
        "MAIN": [
            Call(tool, {**args, "issue_number": 12}),
            Call(tool, {**args, "issue_number": 13}),
            Say("done"),
        ]
    }
    session, _ = sandbox.claude(claude_cli, "MAIN via mcp", script, "--mcp-config", config)
    report = read_transcript(str(sandbox.claude_transcript(session)))
    lines = sandbox.mcp_log.read_text().splitlines()
    calls = [json.loads(line)["arguments"]["issue_number"] for line in lines]
    posts = [(p.tool, p.pr, p.body) for p in report.posts]
    assert ([12, 13], [("mcp add_issue_comment", "acme/widget#12", "Through MCP.")]) == (
        calls,
        posts,
    )


def test_claude_subagent_post_is_read_with_its_session(claude_cli: Cli, sandbox: Sandbox) -> None:
    script = {
        "MAIN": [
            Call(
                "Agent",
                {
                    "description": "post it",
                    "prompt": "SUBAGENT post the reply",
                    "subagent_type": "general-purpose",
                },
            ),
            Say("done"),
        ],
        "SUBAGENT": [bash("gh pr comment 12 --body 'From the subagent.'"), Say("posted")],
    }
    session, _ = sandbox.claude(claude_cli, "MAIN delegate", script)
    transcript = sandbox.claude_transcript(session)
    state = scan(
        OwnPostState(),
        [TranscriptSource(path=str(transcript))],
        datetime.now(UTC),
        window=timedelta(hours=2),
    )
    subagents = [s.path for s in state.sources if "/subagents/" in s.path]
    bodies = [(p.tool, p.source in subagents) for p in state.posts]
    assert (1, [("gh pr comment", True)]) == (len(subagents), bodies)


def test_matcher_tells_the_workers_post_from_the_users_comment_on_a_real_transcript(
    claude_cli: Cli, sandbox: Sandbox
) -> None:
    script = {"MAIN": [bash("gh pr comment 12 --body 'Fixed in abc123.'"), Say("done")]}
    session, _ = sandbox.claude(claude_cli, "MAIN post once", script)
    now = datetime.now(UTC)
    state = scan(
        OwnPostState(),
        [TranscriptSource(path=str(sandbox.claude_transcript(session)))],
        now,
        window=timedelta(hours=2),
    )
    own_url = "https://github.com/acme/widget/pull/12#issuecomment-4001"
    comments = [
        CommentText("IC_own", "comment", own_url, now, True, "Fixed in abc123."),
        CommentText(
            "IC_user",
            "comment",
            "https://github.com/acme/widget/pull/12#issuecomment-4999",
            now,
            True,
            "Please also rename it.",
        ),
    ]
    _, verdicts = match(
        state,
        PrRef(owner="acme", name="widget", number=12),
        comments,
        window=timedelta(hours=2),
        skew=timedelta(seconds=30),
    )
    actual = {cid: (v.own, v.rule) for cid, v in verdicts.items()}
    assert {"IC_own": (True, "link"), "IC_user": (False, "no-match")} == actual


def test_claude_recipe_resumes_the_real_session_and_the_model_gets_the_notice_last(
    claude_cli: Cli, sandbox: Sandbox
) -> None:
    session, _ = sandbox.claude(claude_cli, "MAIN start", {"MAIN": [Say("ready")]})
    notice = make_notice(fenced("a1b2c3d4e5f6a7b8c9d0"))
    args = ("--session-id", session, "--claude", claude_cli.path)
    done = sandbox.recipe("claude", msgspec.json.encode(notice), *args)
    last = sandbox.model.user_texts("/messages")[-1]
    assert (0, f"session-id: {session}", True) == (
        done.returncode,
        done.stdout.splitlines()[0],
        last.endswith(notice.text),
    )


def test_claude_recipe_drops_a_repeated_notice_without_resuming_again(
    claude_cli: Cli, sandbox: Sandbox
) -> None:
    session, _ = sandbox.claude(claude_cli, "MAIN start", {"MAIN": [Say("ready")]})
    notice = msgspec.json.encode(make_notice(fenced("0f1e2d3c4b5a69788796")))
    args = ("--session-id", session, "--claude", claude_cli.path)
    first = sandbox.recipe("claude", notice, *args)
    requests = len(sandbox.model.requests)
    again = sandbox.recipe("claude", notice, *args)
    assert ((0, 0), requests) == ((first.returncode, again.returncode), len(sandbox.model.requests))


def test_claude_recipe_finds_a_notice_already_in_the_transcript(
    claude_cli: Cli, sandbox: Sandbox
) -> None:
    # The session took the notice (here: as its prompt), the recipe never recorded the key.
    notice = make_notice(fenced("99887766554433221100"))
    session, _ = sandbox.claude(claude_cli, notice.text, {})
    requests = len(sandbox.model.requests)
    args = ("--session-id", session, "--claude", claude_cli.path)
    done = sandbox.recipe("claude", msgspec.json.encode(notice), *args)
    assert (0, requests) == (done.returncode, len(sandbox.model.requests))


@pytest.mark.parametrize(
    ("session", "reason"),
    [
        ("worker-7.session", "does not match any session title"),
        ("3f1e2a4c-0d6b-4e55-9b1a-1c2d3e4f5a6b", "No conversation found"),
    ],
)
def test_claude_recipe_an_id_claude_cannot_resume_is_gone_with_claudes_reason(
    claude_cli: Cli, sandbox: Sandbox, session: str, reason: str
) -> None:
    notice = msgspec.json.encode(make_notice(fenced("00112233445566778899")))
    done = sandbox.recipe("claude", notice, "--session-id", session, "--claude", claude_cli.path)
    assert (69, True) == (done.returncode, reason in done.stderr.splitlines()[-1])


def test_claude_recipe_resumes_by_session_title(claude_cli: Cli, sandbox: Sandbox) -> None:
    session, _ = sandbox.claude(claude_cli, "MAIN start", {"MAIN": [Say("ready")]}, "-n", "w-7")
    notice = make_notice(fenced("abcdefabcdefabcdef00"))
    done = sandbox.recipe(
        "claude", msgspec.json.encode(notice), "--session-id", "w-7", "--claude", claude_cli.path
    )
    last = sandbox.model.user_texts("/messages")[-1]
    assert (0, f"session-id: {session}", True) == (
        done.returncode,
        done.stdout.splitlines()[0],
        last.endswith(notice.text),
    )


def hook_settings(sandbox: Sandbox, size: int) -> Path:
    """Hooks that print a text of ``size`` characters (UserPromptSubmit), and a Stop hook
    that blocks once with a notice."""
    hook = sandbox.root / "hook.py"
    marker = sandbox.root / "stopped"
    hook.write_text(
        "import json, os, sys\n"
        f"if sys.argv[1] == 'prompt':\n    print('P' * ({size} - 2) + 'PZ', end='')\n"
        f"elif not os.path.exists({str(marker)!r}):\n"
        f"    open({str(marker)!r}, 'w').close()\n"
        "    print(json.dumps({'decision': 'block', 'reason': 'STOPNOTICE rename it'}))\n"
    )
    python = sys.executable
    settings = {
        "hooks": {
            "UserPromptSubmit": [
                {"hooks": [{"type": "command", "command": f"{python} {hook} prompt"}]}
            ],
            "Stop": [{"hooks": [{"type": "command", "command": f"{python} {hook} stop"}]}],
        }
    }
    path = sandbox.home / ".claude" / "settings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(settings))
    return path


def model_saw(sandbox: Sandbox, text: str) -> bool:
    return any(text in json.dumps(r["body"]) for r in sandbox.model.requests)


@pytest.mark.parametrize(("size", "whole"), [(10_000, True), (10_001, False)])
def test_claude_hook_output_reaches_the_model_whole_only_up_to_10000_characters(
    claude_cli: Cli, sandbox: Sandbox, size: int, whole: bool
) -> None:
    # The limit NOTICE_TEXT_LIMIT is set under: measured on 2.1.197 and 2.1.332.
    hook_settings(sandbox, size)
    session, _ = sandbox.claude(claude_cli, "MAIN hooks", {"MAIN": [Say("ok")]})
    tail = "P" * 50 + "PZ"
    state = scan(
        OwnPostState(),
        [TranscriptSource(path=str(sandbox.claude_transcript(session)))],
        datetime.now(UTC),
        window=timedelta(hours=2),
    )
    # the prompt, and the Stop hook's notice: two turns
    assert (whole, True, 2) == (
        model_saw(sandbox, tail),
        model_saw(sandbox, "STOPNOTICE rename it"),
        len(state.sources[0].turns),
    )


def test_inbox_take_as_a_real_hook_hands_over_whole_notices_and_keeps_one_over_the_limit(
    claude_cli: Cli, sandbox: Sandbox
) -> None:
    inbox = sandbox.root / "inbox"
    fits = make_notice("F" * 9_000 + "FEND", item="IC_1")
    waits = make_notice("W" * 9_000 + "WEND", item="IC_2")  # fits alone, not with the first
    over = make_notice("O" * 9_600, item="IC_3")  # over the limit: never taken by a hook
    for notice in (fits, over, waits):
        assert write_notice(inbox, notice)
    # ``inbox take`` serves registered ids only; the hook finds the store through the
    # sandbox's $COMMENT_WAKE_STATE_DIR.
    with Registry.open(sandbox.state) as registry:
        registry.add_orchestrator("o-1", InboxSpec(str(inbox)))
        registry.bind("w-7", "acme/widget#12", orchestrator="o-1", publisher=InboxSpec(str(inbox)))
    take = f"{sys.executable} -m comment_wake inbox take w-7 --root {inbox} --text"
    settings = {"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": take}]}]}}
    path = sandbox.home / ".claude" / "settings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(settings))
    sandbox.claude(claude_cli, "MAIN hooks", {"MAIN": [Say("ok")]})
    left = [n.key for n in take_inbox(inbox, "w-7")]
    assert (True, False, [over.key, waits.key]) == (
        model_saw(sandbox, "F" * 50 + "FEND"),
        model_saw(sandbox, "WEND"),
        left,
    )


@pytest.mark.parametrize(
    ("event", "shape"), [("UserPromptSubmit", "--text"), ("Stop", "--stop-hook")]
)
def test_a_hook_for_a_mistyped_worker_id_never_blocks_the_prompt_or_the_turn(
    claude_cli: Cli, sandbox: Sandbox, event: str, shape: str
) -> None:
    # Exit 2 is "block" to Claude Code: a UserPromptSubmit hook would swallow the prompt and
    # a Stop hook would send its error back to the model turn after turn (9 requests for
    # one turn, seen on 2.1.332).  ``inbox take`` in a hook exits 1 instead (issue 25, item 6).
    with Registry.open(sandbox.state) as registry:
        registry.add_orchestrator("o-1", InboxSpec())
        registry.bind("w-7", "acme/widget#12", orchestrator="o-1", publisher=InboxSpec())
    take = f"{sys.executable} -m comment_wake inbox take w-8"
    settings = {"hooks": {event: [{"hooks": [{"type": "command", "command": f"{take} {shape}"}]}]}}
    path = sandbox.home / ".claude" / "settings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(settings))
    sandbox.claude(claude_cli, "MAIN typo hooks", {"MAIN": [Say("ok")]})
    asked = [r for r in sandbox.model.requests if "MAIN typo hooks" in json.dumps(r["body"])]
    assert 1 == len(asked)


@pytest.mark.parametrize("folder", ["wt-\U0001f680-x", "long-" + "a" * 120 + "/" + "b" * 120])
def test_claude_project_folder_is_where_the_registry_looks_first(
    claude_cli: Cli, sandbox: Sandbox, folder: str
) -> None:
    work = sandbox.work / folder
    work.mkdir(parents=True)
    sandbox.work = work
    sandbox.claude(claude_cli, "hello", {})
    made = [p.name for p in (sandbox.home / ".claude" / "projects").iterdir()]
    name = claude_project_name(str(work))
    looked = [m for m in made if m == name or (len(name) > 200 and m.startswith(name[:200] + "-"))]
    assert made == looked


def test_claude_recipe_a_session_running_in_the_background_is_busy(
    claude_cli: Cli, sandbox: Sandbox
) -> None:
    # `claude --bg` needs the workspace trusted; the session then runs under a daemon.
    state = {
        "hasCompletedOnboarding": True,
        "projects": {str(sandbox.work): {"hasTrustDialogAccepted": True}},
    }
    (sandbox.home / ".claude.json").write_text(json.dumps(state))
    sandbox.model.script["BACKGROUND"] = [bash("sleep 30"), Say("done")]
    started = sandbox.run([claude_cli.path, "--bg", "BACKGROUND work", "--allowedTools", "Bash"])
    try:
        session = ""
        deadline = time.monotonic() + 30
        while not session:
            assert time.monotonic() < deadline, f"no background session: {started.stderr}"
            files = list((sandbox.home / ".claude" / "projects").glob("*/*.jsonl"))
            session = files[0].stem if files else ""
            time.sleep(0.2)
        notice = msgspec.json.encode(make_notice(fenced("bbbbbbbbbbbbbbbbbbbb")))
        args = ("--session-id", session, "--claude", claude_cli.path)
        done = sandbox.recipe("claude", notice, *args)
    finally:
        short = started.stdout.split("claude stop ", 1)[-1].split()[:1]
        if short:
            sandbox.run([claude_cli.path, "stop", short[0]], timeout=60)
        sandbox.run([claude_cli.path, "daemon", "stop", "--any"], timeout=60)
    assert (0, 75, True) == (
        started.returncode,
        done.returncode,
        "running in the background" in done.stderr.splitlines()[-1],
    )
