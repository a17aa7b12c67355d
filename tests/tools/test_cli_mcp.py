"""``comment-wake bind`` tells how to register the tool server; the done reaction's setting."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from comment_wake.cli import main
from comment_wake.cli._mcp import mcp_instructions
from comment_wake.delivery import DeliveryConfig
from comment_wake.tools import TOOL_NAMES


def test_bind_prints_how_to_register_the_tool_server(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    state = ["--state-dir", str(tmp_path / "state")]
    assert 0 == main(["orchestrator", "add", "lead", "--inbox", *state])
    assert 0 == main(["bind", "w1", "octo/repo#1", "--orchestrator", "lead", "--inbox", *state])
    out = capsys.readouterr().out
    expected = f"mcp w1 --state-dir {(tmp_path / 'state').resolve()}"
    assert (True, True) == (expected in out, "[mcp_servers.comment-wake]" in out)


def test_the_instructions_allow_every_tool_for_headless_claude(tmp_path: Path) -> None:
    text = mcp_instructions("w1", tmp_path)
    allowed = [f"mcp__comment-wake__{name}" for name in TOOL_NAMES]
    assert all(name in text for name in allowed), text


def test_the_instructions_make_codex_wait_for_the_server(tmp_path: Path) -> None:
    assert "required = true" in mcp_instructions("w1", tmp_path)


def test_the_done_reaction_must_differ_from_the_pickup() -> None:
    with pytest.raises(ValidationError, match="must differ from reaction"):
        DeliveryConfig(reaction="+1", done_reaction="thumbs_up")


def test_the_done_reaction_can_be_turned_off() -> None:
    assert "" == DeliveryConfig(done_reaction="").done_reaction
