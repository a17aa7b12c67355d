"""``comment-wake --help`` lists every command the CLI accepts, and every command the
README and docs/operations.md show is one of them."""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

from comment_wake.cli import build_parser


def _commands() -> set[str]:
    parser = build_parser()
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return set(sub.choices)


def _help() -> str:
    return subprocess.run(
        [sys.executable, "-m", "comment_wake", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout


def test_help_lists_every_command() -> None:
    listed = set(re.findall(r"^    ([a-z][a-z-]*)\b", _help(), flags=re.MULTILINE))
    assert set() == _commands() - listed


def test_every_command_the_docs_show_exists(repo_root: Path) -> None:
    shown: set[str] = set()
    for page in ("README.md", "docs/operations.md"):
        for block in re.findall(r"```(?:sh|ini)\n(.*?)```", (repo_root / page).read_text(), re.S):
            shown.update(re.findall(r"comment-wake ([a-z][a-z-]*)", block))
    assert set() == shown - _commands()
