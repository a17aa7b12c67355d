"""``comment-wake bind --env NAME``: the names a worker's command gets beyond the allow-list."""

from __future__ import annotations

from pathlib import Path

import pytest

from comment_wake.cli import main
from comment_wake.registry import CommandSpec, Registry


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _bind(capsys: pytest.CaptureFixture[str], state: Path, *flags: str) -> tuple[int, str, str]:
    assert 0 == _run(capsys, "orchestrator", "add", "o1", "--inbox", "--state-dir", str(state))[0]
    return _run(
        capsys, "bind", "w1", "octo/repo#7", "--orchestrator", "o1", "--state-dir", str(state),
        *flags,
    )  # fmt: skip


def test_env_is_repeatable_and_stored_with_the_command(
    capsys: pytest.CaptureFixture[str], state_dir: Path
) -> None:
    _bind(capsys, state_dir, "--env", "PROVIDER_KEY", "--env", "SSH_AUTH_SOCK", "--command", "n")
    with Registry.open(state_dir) as registry:
        record = registry.worker("w1")
    assert record is not None
    assert CommandSpec(("n",), env=("PROVIDER_KEY", "SSH_AUTH_SOCK")) == record.publisher


def test_env_after_command_and_a_dash_dash_is_part_of_the_commands_argv(
    capsys: pytest.CaptureFixture[str], state_dir: Path
) -> None:
    _bind(capsys, state_dir, "--command", "--", "n", "--env", "X")
    with Registry.open(state_dir) as registry:
        record = registry.worker("w1")
    assert record is not None
    assert CommandSpec(("n", "--env", "X")) == record.publisher


def test_env_after_command_without_a_dash_dash_is_refused_naming_it(
    capsys: pytest.CaptureFixture[str], state_dir: Path
) -> None:
    # bind's own option after --command was meant for bind, not the command (issue 25, 12).
    code, _, err = _bind(capsys, state_dir, "--command", "n", "--env", "X")
    with Registry.open(state_dir) as registry:
        bound = registry.worker("w1") is not None
    assert (2, False, True) == (code, bound, "--env comes after --command" in err)


def test_env_naming_the_daemons_token_exits_2_and_binds_nothing(
    capsys: pytest.CaptureFixture[str], state_dir: Path
) -> None:
    code, _, err = _bind(capsys, state_dir, "--env", "GH_TOKEN", "--command", "n")
    with Registry.open(state_dir) as registry:
        workers = registry.list()
    assert (2, (), True) == (code, workers, "--env GH_TOKEN names one of the daemon's" in err)


def test_env_naming_the_configured_webhook_secret_exits_2(
    capsys: pytest.CaptureFixture[str], state_dir: Path, tmp_path: Path
) -> None:
    config = tmp_path / "config.toml"
    config.write_text('[webhook]\nsecret_env = "MY_HINT_SECRET"\n', encoding="utf-8")
    code, _, err = _bind(
        capsys, state_dir, "--config", str(config), "--env", "MY_HINT_SECRET", "--command", "n"
    )
    assert (2, True) == (code, "--env MY_HINT_SECRET names one of the daemon's" in err)


def test_env_without_command_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], state_dir: Path
) -> None:
    code, _, err = _bind(capsys, state_dir, "--env", "X", "--inbox")
    assert (2, True) == (code, "--env goes with --command" in err)


def test_list_shows_the_names_a_command_gets(
    capsys: pytest.CaptureFixture[str], state_dir: Path
) -> None:
    _bind(capsys, state_dir, "--env", "PROVIDER_KEY", "--command", "n")
    _, out, _ = _run(capsys, "list", "--state-dir", str(state_dir))
    assert "publisher: command n (also gets $PROVIDER_KEY)" in out
