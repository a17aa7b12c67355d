"""The ``comment-wake`` command line.

Each command group lives in its own module and registers itself through a
``register(subparsers)`` function listed in ``_COMMANDS``.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import importlib.util
import io
import re
import sys
from collections.abc import Sequence
from pathlib import Path

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
    "comment_wake.cli._store_copy",
)


# Each distribution and its package: the version is written in the package's
# ``_version.py``, which hatch reads at build time.  ``--version`` reads the same line
# without importing the package or its metadata, so it costs a hook nothing.
_VERSIONS = (
    ("comment-wake", "comment_wake"),
    ("pr-review-monitor", "review_monitor"),
    ("untrusted-fence", "untrusted_fence"),
)
_VERSION_LINE = re.compile(r'^__version__ = "([^"]+)"$', re.M)


def _version(package: str) -> str:
    spec = importlib.util.find_spec(package)
    if spec is None or spec.origin is None:
        return "(not installed)"
    try:
        found = _VERSION_LINE.search(Path(spec.origin).with_name("_version.py").read_text())
    except OSError:
        found = None
    return found[1] if found else "(unknown)"


def _versions() -> str:
    return "\n".join(f"{dist} {_version(package)}" for dist, package in _VERSIONS)


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


# ``--config`` and ``--state-dir`` may also come before the command
# (``comment-wake --state-dir S list``).  Given on both sides, the one after the command
# wins: it was written later (issue 25, item 16).
_GLOBAL_OPTIONS = (
    ("config", "--config", "configuration file"),
    ("state_dir", "--state-dir", "state directory"),
)


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
    for dest, flag, what in _GLOBAL_OPTIONS:
        parser.add_argument(
            flag,
            dest=f"global_{dest}",
            type=Path,
            default=None,
            metavar=dest.upper(),
            help=f"the {what}, for a command that takes {flag} (given after the command "
            "too, that one wins)",
        )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in _COMMANDS:
        importlib.import_module(name).register(subparsers)
    _name_leaves(parser)
    return parser


# The options that make ``inbox take`` a hook's command.  Claude Code reads a hook's exit
# status 2 as "block": a UserPromptSubmit hook would swallow the user's prompt and a Stop
# hook would feed its error back to the model turn after turn.  So a hook's command line
# never exits 2, not even for a mistyped option: one line on stderr and exit 1, which
# Claude Code and Codex show the user without blocking (issue 25, item 6).
_HOOK_OPTIONS = frozenset({"--text", "--stop-hook"})
_NOT_BLOCKING = 1


def _is_hook(argv: Sequence[str]) -> bool:
    return "inbox" in argv and "take" in argv and not _HOOK_OPTIONS.isdisjoint(argv)


# ``bind --command ARGV...`` (and ``orchestrator add``) takes the rest of the line as the
# command.  argparse's REMAINDER stops at a ``--`` inside it, so the rest is cut off before
# parsing and handed over after: ``--command -- ARGV...`` gives every word verbatim, even
# one that is also an option of bind's (issue 25, item 12).
_REST_OPTION = "--command"


def _parse(parser: argparse.ArgumentParser, argv: Sequence[str]) -> argparse.Namespace:
    """``parser.parse_args``, with the options given before the command moved to it and
    the words after ``--command`` given to it whole."""
    words = list(argv)
    rest: list[str] | None = None
    if _REST_OPTION in words:
        cut = words.index(_REST_OPTION) + 1
        words, rest = words[:cut], words[cut:]
    args = parser.parse_args(words)
    if rest is not None and getattr(args, "command_argv", None) is not None:
        args.command_verbatim = rest[:1] == ["--"]
        args.command_argv = rest[1:] if args.command_verbatim else rest
    if args.command is None:
        return args
    for dest, flag, _ in _GLOBAL_OPTIONS:
        given = getattr(args, f"global_{dest}")
        if given is None:
            continue
        if not hasattr(args, dest):
            parser.error(f"{flag} does not apply to `{args.command_name}`")
        if getattr(args, dest) is None:
            setattr(args, dest, given)
    return args


def _parse_hook(parser: argparse.ArgumentParser, argv: Sequence[str]) -> argparse.Namespace:
    """``_parse`` for a hook's command line: a usage error is one line and exit 1
    (``SystemExit``), argparse's usage text left out."""
    said = io.StringIO()
    try:
        with contextlib.redirect_stderr(said):
            return _parse(parser, argv)
    except SystemExit as exc:
        if exc.code in (0, None):
            raise
        lines = [line for line in said.getvalue().splitlines() if line.strip()]
        print(lines[-1] if lines else "comment-wake: bad arguments", file=sys.stderr)
        raise SystemExit(_NOT_BLOCKING) from None


def main(argv: Sequence[str] | None = None) -> int:
    """``comment-wake COMMAND ...``: run one command; returns the exit status.

    An expected failure (``comment_wake.cli._errors``) is one line on stderr and exit 1
    or 2, even inside an ``ExceptionGroup``; Ctrl-C is exit 130 without a traceback.  A
    hook's ``inbox take --text`` / ``--stop-hook`` never exits 2 (see ``_HOOK_OPTIONS``).
    """
    args: argparse.Namespace | None = None
    words = list(sys.argv[1:] if argv is None else argv)
    hook = _is_hook(words)
    try:
        parser = build_parser()
        args = _parse_hook(parser, words) if hook else _parse(parser, words)
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
        if hook:  # a hook's user sees its stderr as one notification: one line
            line = " ".join(part.strip() for part in line.splitlines())
            status = _NOT_BLOCKING
        print(f"{name}: {line}", file=sys.stderr)
        return status
