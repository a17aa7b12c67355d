"""``comment-wake bind`` tells how to register the tool server; the done reaction's setting."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from pydantic import ValidationError

from comment_wake.cli import main
from comment_wake.cli._mcp import mcp_instructions
from comment_wake.delivery import DeliveryConfig
from comment_wake.tools import POST_TOOL_NAMES, TOOL_NAMES, server_name

# What Claude Code's and Codex's model APIs take as a tool's name.
TOOL_NAME = re.compile(r"[a-zA-Z0-9_-]{1,64}")


def test_bind_prints_how_to_register_the_tool_server(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    state = ["--state-dir", str(tmp_path / "state")]
    assert 0 == main(["orchestrator", "add", "lead", "--inbox", *state])
    assert 0 == main(["bind", "w1", "octo/repo#1", "--orchestrator", "lead", "--inbox", *state])
    out = capsys.readouterr().out
    expected = f"mcp w1 --state-dir {(tmp_path / 'state').resolve()}"
    assert (True, True) == (expected in out, '[mcp_servers."cw-w1"]' in out)


def test_the_instructions_allow_every_tool_of_the_workers_server_for_headless_claude(
    tmp_path: Path,
) -> None:
    text = mcp_instructions("w1", tmp_path)
    allowed = ",".join(f"mcp__cw-w1__{name}" for name in TOOL_NAMES)
    assert f"--allowedTools {allowed}\n" in text, text


def test_the_instructions_allow_the_posting_tools_too_when_they_are_on(tmp_path: Path) -> None:
    text = mcp_instructions("w1", tmp_path, post_tools=True)
    allowed = ",".join(f"mcp__cw-w1__{name}" for name in TOOL_NAMES + POST_TOOL_NAMES)
    assert f"--allowedTools {allowed}\n" in text, text


@pytest.mark.parametrize(
    ("flags", "delivery"), [(["--post-tools"], ""), ([], "[delivery]\npost_tools = true\n")]
)
def test_bind_allows_the_posting_tools_when_the_flag_or_the_configuration_turns_them_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flags: list[str], delivery: str
) -> None:
    config = tmp_path / "config.toml"
    config.write_text(delivery, encoding="utf-8")
    state = ["--state-dir", str(tmp_path / "state"), "--config", str(config)]
    assert 0 == main(["orchestrator", "add", "lead", "--inbox", *state])
    bind = ["bind", "w1", "octo/repo#1", "--orchestrator", "lead", "--inbox", *flags, *state]
    assert 0 == main(bind)
    out = capsys.readouterr().out
    assert ",mcp__cw-w1__reply,mcp__cw-w1__review,mcp__cw-w1__progress\n" in out, out


def test_the_instructions_say_how_to_remove_the_old_shared_registration(tmp_path: Path) -> None:
    text = mcp_instructions("w1", tmp_path)
    assert (True, True) == (
        "claude mcp remove comment-wake" in text,
        "[mcp_servers.comment-wake]" in text,
    )


def test_two_workers_get_two_servers() -> None:
    assert ("cw-w1", "cw-w2") == (server_name("w1"), server_name("w2"))


def test_a_server_name_keeps_a_plain_worker_id_whole() -> None:
    assert "cw-" + "a" * 21 == server_name("a" * 21)


@pytest.mark.parametrize(
    ("worker", "expected"),
    [
        ("w.1", "cw-w_1-"),  # replaced: a hash tells w.1 from w_1
        ("a" * 22, "cw-" + "a" * 14 + "-"),  # too long: cut, with a hash
        ("δ-1", "cw-_-1-"),
    ],
)
def test_a_changed_server_name_is_cut_and_ends_in_a_hash_of_the_id(
    worker: str, expected: str
) -> None:
    name = server_name(worker)
    assert (expected, 6, True) == (
        name[: len(expected)],
        len(name) - len(expected),
        all(c in "0123456789abcdef" for c in name[len(expected) :]),
    )


def test_ids_that_differ_only_where_the_name_changes_them_get_two_servers() -> None:
    assert 3 == len({server_name("w.1"), server_name("w_1"), server_name("w 1")})


@pytest.mark.parametrize("worker", ["w1", "w.1", "x" * 200, "δ" * 30, "-w", "a/b#c"])
def test_every_tool_name_fits_the_model_apis_pattern(worker: str) -> None:
    name = server_name(worker)
    names = [f"mcp__{name}__{tool}" for tool in TOOL_NAMES]
    assert ([], True) == (
        [n for n in names if TOOL_NAME.fullmatch(n) is None],
        len(name) <= 24,
    )


def test_the_instructions_make_codex_wait_for_the_server(tmp_path: Path) -> None:
    assert "required = true" in mcp_instructions("w1", tmp_path)


def test_the_done_reaction_must_differ_from_the_pickup() -> None:
    with pytest.raises(ValidationError, match="must differ from reaction"):
        DeliveryConfig(reaction="+1", done_reaction="thumbs_up")


def test_the_done_reaction_can_be_turned_off() -> None:
    assert "" == DeliveryConfig(done_reaction="").done_reaction
