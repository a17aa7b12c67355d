"""``--config`` and ``--state-dir`` before the command too; given on both sides, the one
after the command wins (issue 25, item 16)."""

from __future__ import annotations

from pathlib import Path

import pytest

from comment_wake.cli import main
from comment_wake.registry import InboxSpec, Registry


@pytest.fixture(autouse=True)
def clean_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("COMMENT_WAKE_STATE_DIR", "COMMENT_WAKE_CONFIG", "COMMENT_WAKE_INBOX"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg-state"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg-config"))


def _store(state: Path, worker: str) -> Path:
    with Registry.open(state) as registry:
        registry.add_orchestrator("o-1", InboxSpec())
        registry.bind(worker, "octo/repo#7", orchestrator="o-1", publisher=InboxSpec())
    return state


def _listed(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    return code, capsys.readouterr().out


def test_the_state_dir_may_come_before_the_command(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    state = _store(tmp_path / "s", "w-before")
    code, out = _listed(capsys, "--state-dir", str(state), "list")
    assert (0, True) == (code, "w-before" in out)


def test_the_state_dir_after_the_command_wins(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    first = _store(tmp_path / "first", "w-first")
    later = _store(tmp_path / "later", "w-later")
    code, out = _listed(capsys, "--state-dir", str(first), "list", "--state-dir", str(later))
    assert (0, False, True) == (code, "w-first" in out, "w-later" in out)


def test_the_config_may_come_before_the_command(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    state = _store(tmp_path / "s", "w-config")
    config = tmp_path / "c.toml"
    config.write_text(f'state_dir = "{state}"\n')
    code, out = _listed(capsys, "--config", str(config), "list")
    assert (0, True) == (code, "w-config" in out)


def test_a_global_option_a_command_does_not_take_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["--state-dir", str(tmp_path), "transcripts", "scan", "x.jsonl"])
    err = capsys.readouterr().err
    assert (2, True) == (
        exited.value.code,
        "--state-dir does not apply to `comment-wake transcripts scan`" in err,
    )
