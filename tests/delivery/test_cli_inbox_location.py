"""Where ``comment-wake inbox take ID`` reads: ``--root``, else ``$COMMENT_WAKE_INBOX``,
else the root of the id's inbox binding, else ``STATE_DIR/inbox``, with the state
directory chosen as for every other command; only a registered worker or orchestrator."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import anyio
import msgspec
import pytest

from comment_wake.cli import main
from comment_wake.delivery import InboxPublisher
from comment_wake.registry import InboxSpec, Registry
from review_monitor import Notice

NoticeFactory = Callable[..., Notice]


@pytest.fixture(autouse=True)
def clean_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("COMMENT_WAKE_STATE_DIR", "COMMENT_WAKE_CONFIG", "COMMENT_WAKE_INBOX"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg-state"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg-config"))


def _register(state: Path, root: Path | None = None) -> None:
    spec = InboxSpec(None if root is None else str(root))
    with Registry.open(state) as registry:
        registry.add_orchestrator("o-1", InboxSpec())
        registry.bind("w-42", "octo/repo#7", orchestrator="o-1", publisher=spec)


def _fill(root: Path, notice: Notice) -> None:
    anyio.run(InboxPublisher(root).publish, notice)


def _take(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["inbox", "take", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def _keys(out: str) -> list[str]:
    return [msgspec.json.decode(line, type=Notice).key for line in out.splitlines()]


def test_take_reads_the_state_dir_inbox_the_flag_names(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, make_notice: NoticeFactory
) -> None:
    state = tmp_path / "state"
    _register(state)
    notice = make_notice()
    _fill(state / "inbox", notice)
    code, out, _ = _take(capsys, "w-42", "--state-dir", str(state))
    assert (0, [notice.key]) == (code, _keys(out))


def test_take_reads_the_state_dir_named_by_the_environment(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    make_notice: NoticeFactory,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    state = tmp_path / "state"
    _register(state)
    notice = make_notice()
    _fill(state / "inbox", notice)
    monkeypatch.setenv("COMMENT_WAKE_STATE_DIR", str(state))
    code, out, _ = _take(capsys, "w-42")
    assert (0, [notice.key]) == (code, _keys(out))


def test_take_reads_the_root_the_worker_binding_names(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, make_notice: NoticeFactory
) -> None:
    state, box = tmp_path / "state", tmp_path / "box"
    _register(state, root=box)
    notice = make_notice()
    _fill(box, notice)
    code, out, _ = _take(capsys, "w-42", "--state-dir", str(state))
    assert (0, [notice.key]) == (code, _keys(out))


def test_the_root_flag_overrides_the_binding(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, make_notice: NoticeFactory
) -> None:
    state, box, other = tmp_path / "state", tmp_path / "box", tmp_path / "other"
    _register(state, root=box)
    _fill(box, make_notice(item_ids=("IC_1",)))
    wanted = make_notice(item_ids=("IC_2",))
    _fill(other, wanted)
    code, out, _ = _take(capsys, "w-42", "--state-dir", str(state), "--root", str(other))
    assert (0, [wanted.key]) == (code, _keys(out))


def test_the_inbox_variable_ranks_after_the_flag_and_before_the_binding(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    make_notice: NoticeFactory,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    state, box, env_root = tmp_path / "state", tmp_path / "box", tmp_path / "env"
    _register(state, root=box)
    _fill(box, make_notice(item_ids=("IC_1",)))
    wanted = make_notice(item_ids=("IC_2",))
    _fill(env_root, wanted)
    monkeypatch.setenv("COMMENT_WAKE_INBOX", str(env_root))
    code, out, _ = _take(capsys, "w-42", "--state-dir", str(state))
    assert (0, [wanted.key]) == (code, _keys(out))


def test_take_accepts_a_registered_orchestrator(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, make_notice: NoticeFactory
) -> None:
    state = tmp_path / "state"
    _register(state)
    notice = make_notice(worker="o-1")
    _fill(state / "inbox", notice)
    code, out, _ = _take(capsys, "o-1", "--state-dir", str(state))
    assert (0, [notice.key]) == (code, _keys(out))


def test_take_of_an_id_nobody_registered_exits_2_with_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    state = tmp_path / "state"
    _register(state)
    code, out, err = _take(capsys, "w-43", "--state-dir", str(state))
    assert (2, "", 1, True) == (
        code,
        out,
        len(err.splitlines()),
        "no worker or orchestrator 'w-43' is registered" in err,
    )


def test_take_of_a_known_id_with_nothing_pending_prints_nothing_and_exits_0(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    state = tmp_path / "state"
    _register(state)
    assert (0, "", "") == _take(capsys, "w-42", "--state-dir", str(state), "--stop-hook")
