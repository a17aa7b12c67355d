"""The command publisher against real child processes."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

import msgspec
import pytest

from comment_wake.delivery import CommandFailedError, CommandPublisher, PublishTimeoutError
from review_monitor import Busy, Delivered, Gone, Notice, Refused

NoticeFactory = Callable[..., Notice]

pytestmark = pytest.mark.anyio

PY = sys.executable


def exiting(code: int, stdout: str = "", stderr: str = "") -> list[str]:
    program = (
        "import sys; sys.stdin.buffer.read(); "
        f"sys.stdout.write({stdout!r}); sys.stderr.write({stderr!r}); sys.exit({code})"
    )
    return [PY, "-c", program]


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        (0, Delivered()),
        (75, Busy("worker mid-turn")),
        (69, Gone("worker mid-turn")),
        (78, Refused("worker mid-turn")),
    ],
)
async def test_exit_code_is_the_outcome(
    make_notice: NoticeFactory, code: int, expected: object
) -> None:
    publisher = CommandPublisher(exiting(code, stderr="noise\nworker mid-turn\n"))
    assert expected == await publisher.publish(make_notice())


async def test_first_line_session_id_reports_a_new_session(make_notice: NoticeFactory) -> None:
    publisher = CommandPublisher(exiting(0, stdout="session-id: 5f1c-new\nmore output\n"))
    assert Delivered(session_id="5f1c-new") == await publisher.publish(make_notice())


async def test_session_id_on_a_later_line_is_ignored(make_notice: NoticeFactory) -> None:
    publisher = CommandPublisher(exiting(0, stdout="hello\nsession-id: abc\n"))
    assert Delivered() == await publisher.publish(make_notice())


async def test_garbage_output_with_exit_zero_is_delivered(make_notice: NoticeFactory) -> None:
    program = (
        "import sys, os; sys.stdin.buffer.read(); "
        "sys.stdout.buffer.write(os.urandom(200000)); "
        "sys.stderr.buffer.write(b'\\xff\\x00\\x1b[31m')"
    )
    publisher = CommandPublisher([PY, "-c", program])
    assert Delivered() == await publisher.publish(make_notice())


async def test_session_id_with_shell_characters_is_not_taken(make_notice: NoticeFactory) -> None:
    publisher = CommandPublisher(exiting(0, stdout="session-id: $(rm -rf ~)\n"))
    assert Delivered() == await publisher.publish(make_notice())


async def test_unknown_exit_code_raises_for_retry(make_notice: NoticeFactory) -> None:
    publisher = CommandPublisher(exiting(3, stderr="boom\n"))
    with pytest.raises(CommandFailedError) as caught:
        await publisher.publish(make_notice())
    assert (3, "boom") == (caught.value.exit_code, caught.value.stderr_tail)


async def test_child_killed_by_a_signal_raises_for_retry(make_notice: NoticeFactory) -> None:
    program = "import os, signal; os.kill(os.getpid(), signal.SIGSEGV)"
    with pytest.raises(CommandFailedError) as caught:
        await CommandPublisher([PY, "-c", program]).publish(make_notice())
    assert -11 == caught.value.exit_code


async def test_child_reads_the_notice_json_and_the_environment(
    make_notice: NoticeFactory, tmp_path: Path
) -> None:
    out = tmp_path / "seen.json"
    program = (
        "import sys, os, json; data = sys.stdin.buffer.read(); "
        "names = ('COMMENT_WAKE_WORKER', 'COMMENT_WAKE_PR', 'COMMENT_WAKE_KIND', "
        "'COMMENT_WAKE_KEY'); "
        "env = {k: os.environ[k] for k in names if k in os.environ}; "
        f"open({str(out)!r}, 'w').write(json.dumps({{'stdin': data.decode(), 'env': env}}))"
    )
    notice = make_notice()
    await CommandPublisher([PY, "-c", program]).publish(notice)
    seen = msgspec.json.decode(out.read_bytes())
    expected_env = {
        "COMMENT_WAKE_WORKER": "w-42",
        "COMMENT_WAKE_PR": "o/r#7",
        "COMMENT_WAKE_KIND": "comment-wake",
        "COMMENT_WAKE_KEY": notice.key,
    }
    assert (notice, expected_env) == (
        msgspec.json.decode(seen["stdin"], type=Notice),
        seen["env"],
    )


async def test_argv_is_never_run_through_a_shell(
    make_notice: NoticeFactory, tmp_path: Path
) -> None:
    marker = tmp_path / "pwned"
    program = "import sys; sys.stdin.read(); print(sys.argv[1:], file=sys.stderr); sys.exit(75)"
    publisher = CommandPublisher([PY, "-c", program, f"; touch {marker}", "$(id)"])
    outcome = await publisher.publish(make_notice())
    assert (Busy(f"['; touch {marker}', '$(id)']"), False) == (outcome, marker.exists())


def test_a_shell_string_is_rejected() -> None:
    with pytest.raises(TypeError):
        CommandPublisher("claude -p --resume=x")


async def test_missing_executable_is_refused(make_notice: NoticeFactory, tmp_path: Path) -> None:
    outcome = await CommandPublisher([str(tmp_path / "no-such-tool")]).publish(make_notice())
    assert isinstance(outcome, Refused)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie still answers kill(0); it is dead for our purpose.
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


async def test_timeout_kills_the_whole_process_group(
    make_notice: NoticeFactory, tmp_path: Path
) -> None:
    pids = tmp_path / "pids"
    program = (
        "import subprocess, sys, os, time; sys.stdin.read(); "
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)']); "
        f"open({str(pids)!r}, 'w').write(f'{{os.getpid()}} {{child.pid}}'); "
        "time.sleep(60)"
    )
    publisher = CommandPublisher([PY, "-c", program], timeout=1.5)
    started = time.monotonic()
    with pytest.raises(PublishTimeoutError):
        await publisher.publish(make_notice())
    elapsed = time.monotonic() - started
    parent, grandchild = (int(p) for p in pids.read_text().split())
    deadline = time.monotonic() + 5
    while (_alive(parent) or _alive(grandchild)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert (False, False, True) == (_alive(parent), _alive(grandchild), elapsed < 10)


async def test_child_that_never_reads_a_large_notice_is_judged_by_exit_code(
    make_notice: NoticeFactory,
) -> None:
    notice = make_notice(text="x" * 2_000_000)
    publisher = CommandPublisher([PY, "-c", "import sys; sys.exit(75)"], timeout=20)
    assert Busy() == await publisher.publish(notice)


async def test_background_grandchild_holding_stdout_does_not_stall_delivery(
    make_notice: NoticeFactory, script: Callable[[str, str], Path]
) -> None:
    tool = script(
        "spawner",
        "import subprocess, sys\n"
        "sys.stdin.read()\n"
        "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(8)'])\n"
        "print('session-id: s-1', flush=True)\n",
    )
    started = time.monotonic()
    outcome = await CommandPublisher([str(tool)], timeout=30).publish(make_notice())
    assert (Delivered(session_id="s-1"), True) == (outcome, time.monotonic() - started < 6)


async def test_the_daemons_github_token_is_not_passed_to_the_command(
    make_notice: NoticeFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GH_TOKEN", "ghp_daemon_token_value")
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_daemon_token_value")
    program = (
        "import os, sys; sys.stdin.read(); "
        "leaked = [k for k, v in os.environ.items() if 'ghp_daemon' in v]; "
        "print(leaked, file=sys.stderr); sys.exit(75)"
    )
    assert Busy("[]") == await CommandPublisher([PY, "-c", program]).publish(make_notice())
