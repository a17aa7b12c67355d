"""A hook's ``inbox take --text`` / ``--stop-hook`` never exits 2: Claude Code reads a hook's
exit 2 as "block" (a UserPromptSubmit hook swallows the prompt; a Stop hook loops on its
error), so every failure of a hook's command is one line on stderr and exit 1."""

from __future__ import annotations

from pathlib import Path

import pytest

from comment_wake.cli import main
from comment_wake.registry import InboxSpec, Registry

HOOKS = ["--text", "--stop-hook"]


@pytest.fixture(autouse=True)
def clean_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("COMMENT_WAKE_STATE_DIR", "COMMENT_WAKE_CONFIG", "COMMENT_WAKE_INBOX"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg-state"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg-config"))


@pytest.fixture
def state(tmp_path: Path) -> Path:
    state = tmp_path / "state"
    with Registry.open(state) as registry:
        registry.add_orchestrator("o-1", InboxSpec())
        registry.bind("w-42", "octo/repo#7", orchestrator="o-1", publisher=InboxSpec())
    return state


def _hook(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, int]:
    """(exit status, stdout, lines on stderr) of ``comment-wake inbox take ...``."""
    try:
        code = main(["inbox", "take", *argv])
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else -1
    out, err = capsys.readouterr()
    return code, out, len(err.splitlines())


@pytest.mark.parametrize("shape", HOOKS)
def test_a_hook_for_an_id_nobody_registered_exits_1_with_one_line(
    capsys: pytest.CaptureFixture[str], state: Path, shape: str
) -> None:
    assert (1, "", 1) == _hook(capsys, "w-43", "--state-dir", str(state), shape)


@pytest.mark.parametrize("shape", HOOKS)
def test_a_hook_installed_before_any_bind_exits_1_with_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, shape: str
) -> None:
    assert (1, "", 1) == _hook(capsys, "w-42", "--state-dir", str(tmp_path / "none"), shape)


@pytest.mark.parametrize("shape", HOOKS)
def test_a_hook_with_a_mistyped_option_exits_1_with_one_line(
    capsys: pytest.CaptureFixture[str], state: Path, shape: str
) -> None:
    assert (1, "", 1) == _hook(capsys, "w-42", "--state-dri", str(state), shape)


@pytest.mark.parametrize("shape", HOOKS)
def test_a_hook_with_a_bad_config_file_exits_1_with_one_line(
    capsys: pytest.CaptureFixture[str], state: Path, tmp_path: Path, shape: str
) -> None:
    bad = tmp_path / "config.toml"
    bad.write_text("poll_interval = [\n")
    assert (1, "", 1) == _hook(capsys, "w-42", "--config", str(bad), shape)


def test_without_a_hook_option_an_unknown_id_still_exits_2(
    capsys: pytest.CaptureFixture[str], state: Path
) -> None:
    assert (2, "", 1) == _hook(capsys, "w-43", "--state-dir", str(state))
