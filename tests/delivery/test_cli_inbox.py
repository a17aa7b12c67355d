"""``comment-wake inbox take`` as a hook runs it: a real process reading a real inbox."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import anyio
import msgspec
import pytest

from comment_wake.delivery import InboxPublisher
from comment_wake.registry import InboxSpec, Registry
from review_monitor import Notice

NoticeFactory = Callable[..., Notice]


def run_take(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "comment_wake", "inbox", "take", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, **(env or {})},
    )


def fill(root: Path, notices: list[Notice]) -> None:
    async def go() -> None:
        for notice in notices:
            await InboxPublisher(root).publish(notice)

    anyio.run(go)


@pytest.fixture(autouse=True)
def registered(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A state directory where ``w-42`` is a registered worker (``inbox take`` refuses any
    other id); the commands find it through ``$COMMENT_WAKE_STATE_DIR``."""
    state = tmp_path / "state"
    with Registry.open(state) as registry:
        registry.add_orchestrator("o-1", InboxSpec())
        registry.bind("w-42", "octo/repo#7", orchestrator="o-1", publisher=InboxSpec())
    for name in ("COMMENT_WAKE_CONFIG", "COMMENT_WAKE_INBOX"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("COMMENT_WAKE_STATE_DIR", str(state))
    return state


@pytest.fixture
def two(make_notice: NoticeFactory, tmp_path: Path) -> list[Notice]:
    notices = [
        make_notice(item_ids=("IC_1",), text="first\n"),
        make_notice(item_ids=("IC_2",), text="second"),
    ]
    fill(tmp_path, notices)
    return notices


def test_take_prints_json_lines_in_order(two: list[Notice], tmp_path: Path) -> None:
    result = run_take("w-42", "--root", str(tmp_path))
    lines = result.stdout.splitlines()
    assert two == [msgspec.json.decode(line, type=Notice) for line in lines]


def test_take_text_prints_only_the_texts(two: list[Notice], tmp_path: Path) -> None:
    result = run_take("w-42", "--root", str(tmp_path), "--text")
    assert "first\n\nsecond\n" == result.stdout


def test_take_stop_hook_prints_a_block_decision(two: list[Notice], tmp_path: Path) -> None:
    result = run_take("w-42", "--root", str(tmp_path), "--stop-hook")
    assert {"decision": "block", "reason": "first\n\nsecond"} == msgspec.json.decode(result.stdout)


def test_take_twice_prints_nothing_the_second_time(two: list[Notice], tmp_path: Path) -> None:
    run_take("w-42", "--root", str(tmp_path))
    result = run_take("w-42", "--root", str(tmp_path), "--stop-hook")
    assert (0, "") == (result.returncode, result.stdout)


def test_take_reads_the_root_from_the_environment(two: list[Notice], tmp_path: Path) -> None:
    result = run_take("w-42", "--text", env={"COMMENT_WAKE_INBOX": str(tmp_path)})
    assert "first\n\nsecond\n" == result.stdout


def test_take_of_an_unsafe_worker_exits_2(tmp_path: Path) -> None:
    result = run_take("../x", "--root", str(tmp_path))
    assert (2, "") == (result.returncode, result.stdout)


@pytest.mark.parametrize("shape", ["--text", "--stop-hook"])
def test_a_hook_takes_whole_notices_up_to_the_limit_and_leaves_the_rest_in_order(
    make_notice: NoticeFactory, tmp_path: Path, shape: str
) -> None:
    notices = [make_notice(item_ids=(f"IC_{n}",), text=f"{n}" * 4_000) for n in range(1, 4)]
    fill(tmp_path, notices)
    first = run_take("w-42", "--root", str(tmp_path), shape)
    rest = run_take("w-42", "--root", str(tmp_path))
    printed = first.stdout if shape == "--text" else msgspec.json.decode(first.stdout)["reason"]
    left = [msgspec.json.decode(line, type=Notice).key for line in rest.stdout.splitlines()]
    assert ("1" * 4_000 + "\n\n" + "2" * 4_000, [notices[2].key]) == (printed.rstrip("\n"), left)


def test_a_notice_over_the_limit_stays_pending_and_is_reported(
    make_notice: NoticeFactory, tmp_path: Path
) -> None:
    big = make_notice(item_ids=("IC_1",), text="x" * 9_501)
    small = make_notice(item_ids=("IC_2",), text="small")
    fill(tmp_path, [big, small])
    hook = run_take("w-42", "--root", str(tmp_path), "--text")
    rest = run_take("w-42", "--root", str(tmp_path))
    left = [msgspec.json.decode(line, type=Notice).key for line in rest.stdout.splitlines()]
    assert ("small\n", 1, True, [big.key]) == (
        hook.stdout,
        len(hook.stderr.strip().splitlines()),
        "left pending" in hook.stderr,
        left,
    )
