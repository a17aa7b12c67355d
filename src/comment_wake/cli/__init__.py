"""The ``comment-wake`` command line.

Each command group lives in its own module and registers itself through a
``register(subparsers)`` function listed in ``_COMMANDS``.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from importlib import metadata

from comment_wake.cli._errors import INTERRUPTED, failure_line, leaves

__all__ = ["build_parser", "main"]

# Modules with a ``register(subparsers: argparse._SubParsersAction) -> None``.
_COMMANDS: tuple[str, ...] = (
    "comment_wake.cli._inbox",
    "comment_wake.cli._bind",
    "comment_wake.cli._transcripts",
    "comment_wake.cli._replay",
    "comment_wake.cli._daemon",
    "comment_wake.cli._release",
    "comment_wake.cli._poll",
    "comment_wake.cli._demo",
    "comment_wake.cli._mcp",
)


def _versions() -> str:
    lines = []
    for dist in ("comment-wake", "pr-review-monitor", "untrusted-fence"):
        try:
            lines.append(f"{dist} {metadata.version(dist)}")
        except metadata.PackageNotFoundError:
            lines.append(f"{dist} (not installed)")
    return "\n".join(lines)


class _Version(argparse.Action):
    """``--version``: one line per package, as written (argparse's own action reflows)."""

    def __init__(self, option_strings: Sequence[str], dest: str, help: str) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, help=help)

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> None:
        sys.stdout.write(_versions() + "\n")
        parser.exit(0)


def _name_leaves(parser: argparse.ArgumentParser) -> None:
    # Each command's parser learns its own name ("comment-wake inbox take") for the
    # error line; only leaves, so no default is set twice.
    groups = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not groups:
        parser.set_defaults(command_name=parser.prog)
    for group in groups:
        for sub in dict.fromkeys(group.choices.values()):
            _name_leaves(sub)


def build_parser() -> argparse.ArgumentParser:
    """The ``comment-wake`` argument parser with every command registered."""
    parser = argparse.ArgumentParser(
        prog="comment-wake",
        description="Wake the AI coding agent that owns a pull request when a trusted "
        "person comments on it.",
    )
    parser.add_argument(
        "--version",
        action=_Version,
        help="print the versions of comment-wake and of its two libraries, and exit",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in _COMMANDS:
        importlib.import_module(name).register(subparsers)
    _name_leaves(parser)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """``comment-wake COMMAND ...``: run one command; returns the exit status.

    An expected failure (``comment_wake.cli._errors``) is one line on stderr and exit 1
    or 2, even inside an ``ExceptionGroup``; Ctrl-C is exit 130 without a traceback.
    """
    args: argparse.Namespace | None = None
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        handler = getattr(args, "handler", None)
        if handler is None:
            parser.print_help(sys.stderr)
            return 2
        result: int = handler(args)
        return result
    except KeyboardInterrupt:
        return INTERRUPTED
    except (Exception, BaseExceptionGroup) as exc:
        if any(isinstance(leaf, KeyboardInterrupt) for leaf in leaves(exc)):
            return INTERRUPTED
        found = failure_line(exc)
        if found is None:
            raise
        line, status = found
        name = getattr(args, "command_name", "comment-wake")
        print(f"{name}: {line}", file=sys.stderr)
        return status
