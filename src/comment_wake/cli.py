"""The ``comment-wake`` command line.

Each command group lives in its own module and registers itself through a
``register(subparsers)`` function listed in ``_COMMANDS``.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

__all__ = ["build_parser", "main"]

# Modules with a ``register(subparsers: argparse._SubParsersAction) -> None``.
_COMMANDS: tuple[str, ...] = (
    "comment_wake._cli_inbox",
    "comment_wake._cli_bind",
    "comment_wake._cli_transcripts",
    "comment_wake._cli_replay",
    "comment_wake._cli_daemon",
    "comment_wake._cli_release",
    "comment_wake._cli_demo",
)


def build_parser() -> argparse.ArgumentParser:
    """The ``comment-wake`` argument parser with every command registered."""
    parser = argparse.ArgumentParser(
        prog="comment-wake",
        description="Wake the AI coding agent that owns a pull request when a trusted "
        "person comments on it.",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in _COMMANDS:
        importlib.import_module(name).register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """``comment-wake COMMAND ...``: run one command; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help(sys.stderr)
        return 2
    result: int = handler(args)
    return result
