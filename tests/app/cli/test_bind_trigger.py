"""``comment-wake bind --trigger any|mention --handle TEXT``."""

from __future__ import annotations

from pathlib import Path

import pytest

from comment_wake.cli import main
from comment_wake.registry import Registry
from review_monitor import PrRef


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


def test_bind_in_mention_mode_stores_the_handle(
    capsys: pytest.CaptureFixture[str], state_dir: Path
) -> None:
    code, out, _ = _bind(capsys, state_dir, "--trigger", "mention", "--handle", "/agent")
    with Registry.open(state_dir) as registry:
        binding = registry.binding(PrRef("octo", "repo", 7))
    assert (0, "mention", "/agent") == (code, binding.trigger, binding.handle)
    assert "wakes only for comments that mention /agent" in out


def test_bind_in_mention_mode_without_any_handle_is_refused(
    capsys: pytest.CaptureFixture[str], state_dir: Path
) -> None:
    code, _, err = _bind(capsys, state_dir, "--trigger", "mention")
    assert (2, True) == (code, "needs a handle" in err)


def test_a_refused_bind_writes_nothing(capsys: pytest.CaptureFixture[str], state_dir: Path) -> None:
    _bind(capsys, state_dir, "--trigger", "mention")
    with Registry.open(state_dir) as registry:
        assert () == registry.list()


def test_bind_refuses_an_unknown_trigger(
    capsys: pytest.CaptureFixture[str], state_dir: Path
) -> None:
    with pytest.raises(SystemExit) as exc:
        _bind(capsys, state_dir, "--trigger", "sometimes")
    assert 2 == exc.value.code


def test_list_shows_a_bindings_trigger(capsys: pytest.CaptureFixture[str], state_dir: Path) -> None:
    _bind(capsys, state_dir, "--trigger", "mention", "--handle", "/agent")
    _, out, _ = _run(capsys, "list", "--state-dir", str(state_dir))
    assert "trigger: mention, handle: /agent" in out
