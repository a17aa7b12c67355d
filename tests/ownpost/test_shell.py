"""Shell parsing: simple commands, their argv and stdin, and unknown values."""

from __future__ import annotations

import pytest

from comment_wake.ownpost._shell import parse_argv, parse_script


def argvs(script: str) -> list[tuple[str | None, ...]]:
    return [c.argv for c in parse_script(script).commands]


@pytest.mark.parametrize(
    ("script", "expected"),
    [
        ("a && b || c; d", [("a",), ("b",), ("c",), ("d",)]),
        ("a | b | c", [("a",), ("b",), ("c",)]),
        ("(cd x && gh pr view 1)", [("cd", "x"), ("gh", "pr", "view", "1")]),
        ("X=1 Y=2 gh api user", [("gh", "api", "user")]),
        ("bash -lc 'sh -c \"gh pr view 1\"'", [("gh", "pr", "view", "1")]),
        (
            "timeout -s KILL 30 env -u X A=b nice -n 5 nohup command gh api user",
            [("gh", "api", "user")],
        ),
        ("echo $HOME *.md ~/x {a,b}", [("echo", None, None, None, None)]),
        ('echo "$(git log -1)"', [("git", "log", "-1"), ("echo", None)]),
        ("echo a\\ b 'c d' \"e \\\"f\\\"\" $'g\\nh'", [("echo", "a b", "c d", 'e "f"', "g\nh")]),
    ],
)
def test_script_becomes_its_simple_commands(
    script: str, expected: list[tuple[str | None, ...]]
) -> None:
    assert expected == argvs(script)


def test_heredoc_on_stdin_is_the_commands_input() -> None:
    (cmd,) = parse_script("gh pr comment 1 -F - <<'EOF'\nkeep $THIS literal\nEOF\n").commands

    assert (("gh", "pr", "comment", "1", "-F", "-"), "keep $THIS literal\n") == (
        cmd.argv,
        cmd.stdin,
    )


def test_unquoted_heredoc_with_an_expansion_is_unknown() -> None:
    (cmd,) = parse_script("gh pr comment 1 -F - <<EOF\nhead $(git rev-parse HEAD)\nEOF\n").commands

    assert cmd.stdin is None


def test_argv_wrapper_is_followed() -> None:
    parsed = parse_argv(("bash", "-lc", "cd /w && gh pr comment 1 -b hi"))

    assert [("cd", "/w"), ("gh", "pr", "comment", "1", "-b", "hi")] == [
        c.argv for c in parsed.commands
    ]


def test_syntax_error_marks_the_script_incomplete() -> None:
    assert False is parse_script("gh pr comment 1 -b 'unterminated").complete


def test_crlf_line_endings_parse_like_lf() -> None:
    assert argvs("gh pr view 1\r\ngh pr checks 1\r\n") == argvs("gh pr view 1\ngh pr checks 1\n")
