"""The recipe adapters, run by the command publisher against fake ``claude``, ``codex`` and
``tmux`` executables that speak the real output formats, and against a real tmux server."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import msgspec
import pytest

from comment_wake.delivery import CommandFailedError, CommandPublisher
from review_monitor import Busy, Delivered, Gone, Notice, PublishOutcome, Refused

NoticeFactory = Callable[..., Notice]
Script = Callable[[str, str], Path]
pytestmark = pytest.mark.anyio

OLD = "3f1e2a4c-0d6b-4e55-9b1a-1c2d3e4f5a6b"
NEW = "8a7b6c5d-4e3f-4a1b-8c9d-0e1f2a3b4c5d"

# Claude Code -p --output-format stream-json --verbose: one JSON object a line.
FAKE_CLAUDE = f"""
import json, os, sys
prompt = sys.stdin.read()
with open(os.environ["FAKE_LOG"], "w") as log:
    json.dump({{"argv": sys.argv[1:], "stdin": prompt}}, log)
mode = os.environ.get("FAKE_MODE", "ok")
def emit(obj): print(json.dumps(obj), flush=True)
if mode == "gone":
    print("No conversation found with session ID: {OLD}", file=sys.stderr)
    sys.exit(1)
if mode == "no-turn":
    print("Session {OLD} did not take a turn")
    sys.exit(0)
if mode == "background":  # as Claude Code 2.1.332 answers for a `claude --bg` session
    print("Error: That session is running in the background (3f1e2a4c). Run `claude attach "
          "3f1e2a4c` to open it, or `claude stop 3f1e2a4c` first to resume it here.",
          file=sys.stderr)
    sys.exit(1)
if mode == "no-title":  # as Claude Code 2.1.332 answers a name that is no session title
    reason = ("Error: --resume requires a valid session ID or session title when used with "
              '--print. Usage: claude -p --resume <session-id|title>. Provided value "w-7" '
              "is not a UUID and does not match any session title.")
    emit({{"type": "result", "subtype": "error_during_execution", "is_error": True,
          "num_turns": 0, "session_id": "{NEW}", "errors": [reason]}})
    print(reason, file=sys.stderr)
    sys.exit(1)
if mode == "crash":
    print("Error: connect ECONNREFUSED", file=sys.stderr)
    sys.exit(1)
if mode == "garbage":
    print("\\x1b[2K warming up...")
    print("{{not json")
emit({{"type": "system", "subtype": "init", "cwd": os.getcwd(), "session_id": "{NEW}",
      "tools": ["Bash", "Read"], "model": "claude-sonnet-4-5", "permissionMode": "default",
      "apiKeySource": "none"}})
emit({{"type": "assistant", "session_id": "{NEW}", "parent_tool_use_id": None,
      "message": {{"id": "msg_1", "type": "message", "role": "assistant",
                   "content": [{{"type": "text", "text": "On it."}}]}}}})
emit({{"type": "result", "subtype": "success", "is_error": False, "duration_ms": 2130,
      "duration_api_ms": 1900, "num_turns": 1, "result": "On it.", "session_id": "{NEW}",
      "total_cost_usd": 0.0123, "usage": {{"input_tokens": 10, "output_tokens": 4}}}})
"""

# codex exec --json: JSONL thread and turn events.
FAKE_CODEX = f"""
import json, os, sys
prompt = sys.stdin.read()
with open(os.environ["FAKE_LOG"], "w") as log:
    json.dump({{"argv": sys.argv[1:], "stdin": prompt}}, log)
mode = os.environ.get("FAKE_MODE", "ok")
def emit(obj): print(json.dumps(obj), flush=True)
if mode == "gone":
    print("Error: no rollout found for thread id {OLD}", file=sys.stderr)
    sys.exit(1)
if mode == "crash":
    print("Error: stream disconnected before completion", file=sys.stderr)
    sys.exit(1)
if mode == "writer":  # as Codex 0.171.0 answers while another process holds the thread
    print("Error: thread/resume: thread/resume failed: thread {OLD} already has an active "
          "writer (code -32600)", file=sys.stderr)
    sys.exit(1)
emit({{"type": "thread.started", "thread_id": "{OLD}"}})
emit({{"type": "turn.started"}})
if mode == "failed":
    emit({{"type": "turn.failed", "error": {{"message": "usage limit reached"}}}})
    sys.exit(1)
emit({{"type": "item.completed",
      "item": {{"id": "item_0", "type": "agent_message", "text": "Looking at it."}}}})
emit({{"type": "turn.completed",
      "usage": {{"input_tokens": 120, "cached_input_tokens": 0, "output_tokens": 9}}}})
"""


@pytest.fixture(autouse=True)
def recipe_homes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A state directory for the delivered keys and a CODEX_HOME holding thread OLD."""
    monkeypatch.setenv("COMMENT_WAKE_STATE_DIR", str(tmp_path / "state"))
    home = tmp_path / "codex-home"
    day = home / "sessions" / "2026" / "08" / "04"
    day.mkdir(parents=True)
    (day / f"rollout-2026-08-04T10-00-00-{OLD}.jsonl").write_text('{"type":"session_meta"}\n')
    monkeypatch.setenv("CODEX_HOME", str(home))
    claude_home = tmp_path / "claude-home"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(claude_home))
    return tmp_path


def recipe(name: str, *args: str, **env: str) -> CommandPublisher:
    argv = [sys.executable, "-m", f"comment_wake.delivery.recipes.{name}", *args]
    return CommandPublisher(argv, timeout=60, env=env)


def logged(path: Path) -> dict[str, object]:
    value = msgspec.json.decode(path.read_bytes())
    assert isinstance(value, dict)
    return value


# --- Claude Code ---------------------------------------------------------------------


@pytest.fixture
def claude(script: Script) -> Path:
    return script("claude", FAKE_CLAUDE)


async def test_claude_resume_delivers_under_the_reported_session_id(
    make_notice: NoticeFactory, claude: Path, tmp_path: Path
) -> None:
    log = tmp_path / "claude.json"
    publisher = recipe("claude", "--session-id", OLD, "--claude", str(claude), FAKE_LOG=str(log))
    assert Delivered(session_id=NEW) == await publisher.publish(make_notice())


async def test_claude_gets_the_notice_text_on_stdin_and_resume_in_one_token(
    make_notice: NoticeFactory, claude: Path, tmp_path: Path
) -> None:
    log = tmp_path / "claude.json"
    publisher = recipe(
        "claude",
        "--session-id",
        OLD,
        "--claude",
        str(claude),
        "--",
        "--permission-mode",
        "acceptEdits",
        FAKE_LOG=str(log),
    )
    notice = make_notice(text="fenced notice\nline two")
    await publisher.publish(notice)
    expected_argv = [
        "-p",
        f"--resume={OLD}",
        "--output-format",
        "stream-json",
        "--verbose",
        "--permission-mode",
        "acceptEdits",
    ]
    assert {"argv": expected_argv, "stdin": notice.text} == logged(log)


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        ("background", Busy),
        ("no-turn", Busy),
        ("gone", Gone),
        ("no-title", Gone),
        ("garbage", Delivered),
    ],
)
async def test_claude_outcomes(
    make_notice: NoticeFactory, claude: Path, tmp_path: Path, mode: str, expected: type
) -> None:
    publisher = recipe(
        "claude",
        "--session-id",
        OLD,
        "--claude",
        str(claude),
        FAKE_LOG=str(tmp_path / "l"),
        FAKE_MODE=mode,
    )
    outcome: PublishOutcome = await publisher.publish(make_notice())
    assert expected is type(outcome)


async def test_claude_crash_is_retried(
    make_notice: NoticeFactory, claude: Path, tmp_path: Path
) -> None:
    publisher = recipe(
        "claude",
        "--session-id",
        OLD,
        "--claude",
        str(claude),
        FAKE_LOG=str(tmp_path / "l"),
        FAKE_MODE="crash",
    )
    with pytest.raises(CommandFailedError):
        await publisher.publish(make_notice())


async def test_claude_missing_is_refused(make_notice: NoticeFactory, tmp_path: Path) -> None:
    publisher = recipe("claude", "--session-id", OLD, "--claude", str(tmp_path / "none"))
    assert isinstance(await publisher.publish(make_notice()), Refused)


async def test_claude_session_id_that_looks_like_a_flag_is_refused(
    make_notice: NoticeFactory, claude: Path, tmp_path: Path
) -> None:
    log = tmp_path / "l"
    publisher = recipe(
        "claude",
        "--session-id=--dangerously-skip-permissions",
        "--claude",
        str(claude),
        FAKE_LOG=str(log),
    )
    outcome = await publisher.publish(make_notice())
    assert (True, False) == (isinstance(outcome, Refused), log.exists())


# --- Codex ---------------------------------------------------------------------------


@pytest.fixture
def codex(script: Script) -> Path:
    return script("codex", FAKE_CODEX)


async def test_codex_resume_delivers_and_reports_the_thread(
    make_notice: NoticeFactory, codex: Path, tmp_path: Path
) -> None:
    log = tmp_path / "codex.json"
    publisher = recipe(
        "codex",
        "--session-id",
        OLD,
        "--codex",
        str(codex),
        "--",
        "--sandbox",
        "workspace-write",
        FAKE_LOG=str(log),
    )
    notice = make_notice(text="fenced notice")
    outcome = await publisher.publish(notice)
    expected_log = {
        "argv": ["exec", "--json", "--sandbox", "workspace-write", "resume", OLD, "-"],
        "stdin": notice.text,
    }
    assert (Delivered(session_id=OLD), expected_log) == (outcome, logged(log))


@pytest.mark.parametrize(
    ("mode", "expected"),
    [("gone", Gone), ("failed", Delivered), ("writer", Busy)],
)
async def test_codex_outcomes(
    make_notice: NoticeFactory, codex: Path, tmp_path: Path, mode: str, expected: type
) -> None:
    publisher = recipe(
        "codex",
        "--session-id",
        OLD,
        "--codex",
        str(codex),
        FAKE_LOG=str(tmp_path / "l"),
        FAKE_MODE=mode,
    )
    assert expected is type(await publisher.publish(make_notice()))


async def test_codex_crash_is_retried(
    make_notice: NoticeFactory, codex: Path, tmp_path: Path
) -> None:
    publisher = recipe(
        "codex",
        "--session-id",
        OLD,
        "--codex",
        str(codex),
        FAKE_LOG=str(tmp_path / "l"),
        FAKE_MODE="crash",
    )
    with pytest.raises(CommandFailedError):
        await publisher.publish(make_notice())


async def test_codex_unknown_thread_is_gone_without_running_codex(
    make_notice: NoticeFactory, codex: Path, tmp_path: Path
) -> None:
    # Codex itself would start a new thread with the notice as its first prompt.
    log = tmp_path / "l"
    publisher = recipe(
        "codex", "--session-id", "worker-7", "--codex", str(codex), FAKE_LOG=str(log)
    )
    outcome = await publisher.publish(make_notice())
    assert (Gone, False) == (type(outcome), log.exists())


async def test_codex_thread_name_is_resumed_by_its_id(
    make_notice: NoticeFactory, codex: Path, tmp_path: Path, recipe_homes: Path
) -> None:
    index = recipe_homes / "codex-home" / "session_index.jsonl"
    index.write_text(json.dumps({"id": OLD, "thread_name": "worker-7", "updated_at": "x"}) + "\n")
    log = tmp_path / "l"
    publisher = recipe(
        "codex", "--session-id", "worker-7", "--codex", str(codex), FAKE_LOG=str(log)
    )
    outcome = await publisher.publish(make_notice())
    argv = logged(log)["argv"]
    assert (Delivered(session_id=OLD), ["resume", OLD, "-"]) == (outcome, argv[-3:])  # type: ignore[index]


# --- all recipes: the CLI's reason, repeats ----------------------------------------------


async def test_the_clis_own_reason_reaches_the_outcome(
    make_notice: NoticeFactory, claude: Path, codex: Path, tmp_path: Path
) -> None:
    outcomes = [
        await recipe(
            name,
            "--session-id",
            OLD,
            f"--{name}",
            str(path),
            FAKE_LOG=str(tmp_path / "l"),
            FAKE_MODE=mode,
        ).publish(make_notice())
        for name, path, mode in (("claude", claude, "no-title"), ("codex", codex, "writer"))
    ]
    reasons = [getattr(o, "reason", "") for o in outcomes]
    assert [True, True] == [
        "does not match any session title" in reasons[0],
        "already has an active writer" in reasons[1],
    ]


@pytest.mark.parametrize("name", ["claude", "codex"])
async def test_a_repeated_notice_key_is_dropped_and_answered_as_before(
    make_notice: NoticeFactory,
    claude: Path,
    codex: Path,
    tmp_path: Path,
    recipe_homes: Path,
    name: str,
) -> None:
    log = tmp_path / "l"
    path = claude if name == "claude" else codex
    publisher = recipe(name, "--session-id", OLD, f"--{name}", str(path), FAKE_LOG=str(log))
    notice = make_notice()
    first = await publisher.publish(notice)
    log.unlink()
    again = await publisher.publish(notice)
    keys = recipe_homes / "state" / "recipes" / f"{name}-delivered.jsonl"
    mode = keys.stat().st_mode & 0o777
    assert (first, False, 0o600) == (again, log.exists(), mode)


FENCED = (
    "alice commented on o/r#7\n<<<untrusted-comment-begin 0123456789abcdef0123>>>\n"
    "source: @alice\nPlease fix.\n<<<untrusted-comment-end 0123456789abcdef0123>>>"
)


@pytest.mark.parametrize("name", ["claude", "codex"])
async def test_a_notice_already_in_the_sessions_transcript_is_delivered_without_a_resume(
    make_notice: NoticeFactory,
    claude: Path,
    codex: Path,
    tmp_path: Path,
    recipe_homes: Path,
    name: str,
) -> None:
    # The CLI took the notice, then the recipe died before it recorded the key.
    if name == "claude":
        transcript = recipe_homes / "claude-home" / "projects" / "-w" / f"{OLD}.jsonl"
        transcript.parent.mkdir(parents=True)
    else:
        transcript = next((recipe_homes / "codex-home").rglob("rollout-*.jsonl"))
    line = {"type": "user", "message": {"role": "user", "content": FENCED}}
    transcript.write_text(json.dumps(line) + "\n")
    log = tmp_path / "l"
    path = claude if name == "claude" else codex
    publisher = recipe(name, "--session-id", OLD, f"--{name}", str(path), FAKE_LOG=str(log))
    outcome = await publisher.publish(make_notice(text=FENCED))
    assert (Delivered(session_id=OLD), False) == (outcome, log.exists())


async def test_a_notice_whose_opener_is_not_in_the_transcript_is_resumed(
    make_notice: NoticeFactory, claude: Path, tmp_path: Path, recipe_homes: Path
) -> None:
    transcript = recipe_homes / "claude-home" / "projects" / "-w" / f"{OLD}.jsonl"
    transcript.parent.mkdir(parents=True)
    other = FENCED.replace("0123456789abcdef0123", "fedcba9876543210fedc")
    transcript.write_text(json.dumps({"type": "user", "message": {"content": other}}) + "\n")
    log = tmp_path / "l"
    publisher = recipe("claude", "--session-id", OLD, "--claude", str(claude), FAKE_LOG=str(log))
    outcome = await publisher.publish(make_notice(text=FENCED))
    assert (Delivered(session_id=NEW), True) == (outcome, log.exists())


# --- tmux ----------------------------------------------------------------------------

FAKE_TMUX = """
import json, os, sys
data = sys.stdin.read() if "load-buffer" in sys.argv else ""
with open(os.environ["FAKE_LOG"], "a") as log:
    log.write(json.dumps({"argv": sys.argv[1:], "stdin": data}) + "\\n")
if "display-message" in sys.argv:
    state = os.environ.get("FAKE_PANE", "%3|0|0")
    if state == "missing":
        print("||")
        sys.exit(0)
    print(state)
"""


@pytest.fixture
def fake_tmux(script: Script) -> Path:
    return script("tmux", FAKE_TMUX)


async def test_tmux_does_not_paste_a_repeated_notice_again(
    make_notice: NoticeFactory, fake_tmux: Path, tmp_path: Path
) -> None:
    log = tmp_path / "tmux.jsonl"
    argv = ("--target", "%3", "--tmux", str(fake_tmux), "--enter-delay", "0")
    publisher = recipe("tmux", *argv, FAKE_LOG=str(log))
    notice = make_notice()
    first = await publisher.publish(notice)
    log.unlink()
    again = await publisher.publish(notice)
    assert (Delivered(), Delivered(), False) == (first, again, log.exists())


async def test_tmux_pastes_bracketed_then_presses_enter(
    make_notice: NoticeFactory, fake_tmux: Path, tmp_path: Path
) -> None:
    log = tmp_path / "tmux.jsonl"
    notice = make_notice(text="line one\nline two\n")
    publisher = recipe(
        "tmux",
        "--target",
        "%3",
        "--tmux",
        str(fake_tmux),
        "--enter-delay",
        "0",
        FAKE_LOG=str(log),
    )
    outcome = await publisher.publish(notice)
    calls = [msgspec.json.decode(line) for line in log.read_text().splitlines()]
    buffer = f"comment-wake-{notice.key[:16]}"
    expected = [
        {
            "argv": [
                "display-message",
                "-p",
                "-t",
                "%3",
                "#{pane_id}|#{pane_dead}|#{pane_in_mode}",
            ],
            "stdin": "",
        },
        {"argv": ["load-buffer", "-b", buffer, "-"], "stdin": "line one\nline two"},
        {"argv": ["paste-buffer", "-p", "-d", "-b", buffer, "-t", "%3"], "stdin": ""},
        {"argv": ["send-keys", "-t", "%3", "Enter"], "stdin": ""},
    ]
    assert (Delivered(), expected) == (outcome, calls)


@pytest.mark.parametrize(
    ("pane", "expected"),
    [
        ("missing", Gone("tmux recipe: no pane '%3'")),
        ("%3|1|0", Gone("tmux recipe: pane '%3' is dead")),
        ("%3|0|1", Busy("tmux recipe: pane '%3' is in copy mode")),
    ],
)
async def test_tmux_pane_states(
    make_notice: NoticeFactory, fake_tmux: Path, tmp_path: Path, pane: str, expected: object
) -> None:
    publisher = recipe(
        "tmux",
        "--target",
        "%3",
        "--tmux",
        str(fake_tmux),
        FAKE_LOG=str(tmp_path / "l"),
        FAKE_PANE=pane,
    )
    assert expected == await publisher.publish(make_notice())


@pytest.fixture
def tmux_server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, Path]]:
    """A real tmux server on a private socket whose one pane copies its input to a file."""
    tmux = shutil.which("tmux")
    if tmux is None:
        pytest.skip("tmux is not installed")
    # The socket lives in the test's own directory (inherited by the recipe's tmux calls).
    sockets = Path(tempfile.mkdtemp(prefix="cwt-"))
    monkeypatch.setenv("TMUX_TMPDIR", str(sockets))
    socket = f"cw-test-{os.getpid()}-{time.monotonic_ns()}"
    out = tmp_path / "pane.txt"
    subprocess.run(
        [
            tmux,
            "-L",
            socket,
            "-f",
            "/dev/null",
            "new-session",
            "-d",
            "-s",
            "agent",
            "-x",
            "200",
            "-y",
            "50",
            f"stty -echo; exec cat > {out}",
        ],
        check=True,
        timeout=30,
    )
    try:
        yield socket, out
    finally:
        subprocess.run([tmux, "-L", socket, "kill-server"], capture_output=True, timeout=30)
        shutil.rmtree(sockets, ignore_errors=True)


async def test_tmux_delivers_into_a_real_pane(
    make_notice: NoticeFactory, tmux_server: tuple[str, Path]
) -> None:
    socket, out = tmux_server
    time.sleep(0.3)  # let the pane's shell reach cat
    notice = make_notice(text="please rename the parser\nand add a test")
    outcome = await recipe("tmux", "--target", "agent", "-L", socket).publish(notice)
    deadline = time.monotonic() + 10
    while "add a test\n" not in out.read_text() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert (Delivered(), "please rename the parser\nand add a test\n") == (
        outcome,
        out.read_text(),
    )


async def test_tmux_missing_pane_on_a_real_server_is_gone(
    make_notice: NoticeFactory, tmux_server: tuple[str, Path]
) -> None:
    socket, _ = tmux_server
    outcome = await recipe("tmux", "--target", "nosuch", "-L", socket).publish(make_notice())
    assert isinstance(outcome, Gone)
