"""``comment-wake bind --post-tools --workdir DIR``: the posting tools, per binding."""

from __future__ import annotations

from pathlib import Path

import pytest

from comment_wake.cli import main
from comment_wake.registry import Registry


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _bind(capsys: pytest.CaptureFixture[str], state: Path, *flags: str) -> tuple[int, str, str]:
    assert 0 == _run(capsys, "orchestrator", "add", "o1", "--inbox", "--state-dir", str(state))[0]
    return _run(
        capsys, "bind", "w1", "octo/repo#7", "--orchestrator", "o1", *flags, "--inbox",
        "--state-dir", str(state),
    )  # fmt: skip


def test_bind_with_post_tools_turns_them_on_with_the_checkout(
    capsys: pytest.CaptureFixture[str], state_dir: Path, tmp_path: Path
) -> None:
    code, out, _ = _bind(capsys, state_dir, "--post-tools", "--workdir", str(tmp_path))
    with Registry.open(state_dir) as registry:
        record = registry.worker("w1")
    assert record is not None
    assert (0, True, str(tmp_path.resolve()), True) == (
        code,
        record.post_tools,
        record.workdir,
        "posting tools: on" in out,
    )


def test_bind_leaves_the_posting_tools_off_by_default(
    capsys: pytest.CaptureFixture[str], state_dir: Path
) -> None:
    _bind(capsys, state_dir)
    with Registry.open(state_dir) as registry:
        record = registry.worker("w1")
    assert record is not None
    assert (False, None) == (record.post_tools, record.workdir)


def test_bind_refuses_a_workdir_that_is_not_a_directory(
    capsys: pytest.CaptureFixture[str], state_dir: Path, tmp_path: Path
) -> None:
    code, _, err = _bind(capsys, state_dir, "--post-tools", "--workdir", str(tmp_path / "no"))
    assert (2, True) == (code, "no such directory" in err)


def test_the_config_makes_post_tools_binds_default(
    capsys: pytest.CaptureFixture[str], state_dir: Path, tmp_path: Path
) -> None:
    config = tmp_path / "config.toml"
    config.write_text("[delivery]\npost_tools = true\n", encoding="utf-8")
    _bind(capsys, state_dir, "--config", str(config))
    with Registry.open(state_dir) as registry:
        record = registry.worker("w1")
    assert record is not None
    assert True is record.post_tools
