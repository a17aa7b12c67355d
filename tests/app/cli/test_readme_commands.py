"""The README's setup commands work as written once the sessions have had their first turn
(the README says to bind then), and are refused, saying why, before it."""

from __future__ import annotations

import os
import shlex
from pathlib import Path

import pytest

from comment_wake.cli import main
from comment_wake.registry import claude_project_name

CLAUDE_SID = "0f9e5c2a-1b7d-4c3e-9a8f-2d6b1e4c7a90"
CODEX_THREAD = "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"


def _setup_commands(repo_root: Path) -> list[list[str]]:
    """``orchestrator add`` and the ``bind`` lines of the README's "Run it against GitHub"."""
    readme = (repo_root / "README.md").read_text(encoding="utf-8")
    block = readme.partition("## Run it against GitHub")[2].partition("```sh\n")[2]
    block = block.partition("```")[0].replace("\\\n", " ")
    # A comment is a line starting with "#" or a " #" after the command; "o/r#12" is not one.
    lines = [line.partition(" #")[0].strip() for line in block.splitlines()]
    lines = [line for line in lines if not line.startswith("#")]
    words = [shlex.split(line) for line in lines if line]
    return [
        [os.path.expanduser(w) for w in argv[1:]]
        for argv in words
        if argv[1] in ("orchestrator", "bind")
    ]


@pytest.fixture
def fresh_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path))
    for name in ("COMMENT_WAKE_CONFIG", "XDG_STATE_HOME", "XDG_CONFIG_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("COMMENT_WAKE_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / ".claude"))
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / ".codex"))
    (tmp_path / "src" / "octo-repo").mkdir(parents=True)
    return tmp_path


def _first_turns(home: Path) -> None:
    """What each session leaves behind after its first turn: its transcript file."""
    cwd = str((home / "src" / "octo-repo").resolve())
    claude = home / ".claude" / "projects" / claude_project_name(cwd)
    claude.mkdir(parents=True)
    (claude / f"{CLAUDE_SID}.jsonl").write_text("{}\n", encoding="utf-8")
    codex = home / ".codex" / "sessions" / "2026" / "12" / "01"
    codex.mkdir(parents=True)
    name = f"rollout-2026-12-01T10-00-00-{CODEX_THREAD}.jsonl"
    (codex / name).write_text("{}\n", encoding="utf-8")


def test_the_readmes_setup_commands_work_after_the_sessions_first_turn(
    fresh_home: Path, repo_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _first_turns(fresh_home)
    commands = _setup_commands(repo_root)
    codes = [main(argv) for argv in commands]
    assert (["orchestrator", "bind", "bind"], [0, 0, 0]) == ([c[0] for c in commands], codes)


def test_the_readmes_binds_before_the_first_turn_are_refused_saying_why(
    fresh_home: Path, repo_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    commands = _setup_commands(repo_root)
    codes = [main(argv) for argv in commands]
    err = capsys.readouterr().err
    assert ([0, 2, 2], True, True) == (
        codes,
        f"no transcript for Claude Code session {CLAUDE_SID}" in err,
        f"no rollout for Codex thread {CODEX_THREAD}" in err,
    )
