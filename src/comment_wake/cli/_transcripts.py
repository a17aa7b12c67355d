"""``comment-wake transcripts scan PATH... [--json]``: what comment-wake believes an agent
posted, read with the same readers the service uses."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from comment_wake.ownpost import FileReport

__all__ = ["register"]


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "transcripts",
        help="read agent transcripts (Claude Code, Codex)",
        description="Read Claude Code and Codex transcripts the way comment-wake does.",
    )
    sub = parser.add_subparsers(dest="transcripts_command", metavar="COMMAND")
    scan = sub.add_parser(
        "scan",
        help="show each transcript's format, tool calls and GitHub posts",
        description="For each transcript file (a Claude Code session also brings its "
        "subagents' files), print its format, lines, lines it could not read, tool calls, "
        "tool calls without a result, and every GitHub post it found.  Exit 1 when a file "
        "cannot be read or holds lines in no known format (an empty file is fine).",
    )
    scan.add_argument("paths", nargs="+", metavar="PATH", help="a transcript file (.jsonl)")
    scan.add_argument("--json", action="store_true", help="one JSON object per file")
    scan.set_defaults(handler=_scan)
    parser.set_defaults(handler=lambda _args: _usage(parser))


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help(sys.stderr)
    return 2


def _scan(args: argparse.Namespace) -> int:
    from comment_wake.ownpost import read_transcript, transcript_files

    seen: set[str] = set()
    status = 0
    for given in args.paths:
        for path in transcript_files(given):
            if path in seen:
                continue
            seen.add(path)
            try:
                with open(path, "rb"):
                    pass
            except OSError as exc:
                print(f"{path}: cannot read: {exc.strerror}", file=sys.stderr)
                status = 1
                continue
            report = read_transcript(path)
            if args.json:
                print(json.dumps(report.to_json(), ensure_ascii=False))
            else:
                _print_text(report)
            if report.format == "unknown" and report.lines:
                # An empty file is a session that has not written yet; lines in no known
                # format are not a transcript comment-wake can read.
                print(
                    f"{path}: not a Claude Code or Codex transcript (no line in a known "
                    "format); check the path",
                    file=sys.stderr,
                )
                status = 1
    return status


def _print_text(report: FileReport) -> None:
    print(f"{report.path}")
    print(
        f"  format {report.format}, {report.lines} lines ({report.unreadable} unreadable, "
        f"{report.ignored} of types that hold no posts), "
        f"{report.tool_calls} tool calls ({report.unpaired} without a result), "
        f"{len(report.posts)} posts"
    )
    for post in report.posts:
        pr = post.pr if post.pr is not None else "current branch (no PR named)"
        print(f"  - line {post.line}: {post.tool} to {pr}")
        body = post.body if post.body is not None else "unknown"
        print(f"    body: {json.dumps(body, ensure_ascii=False)}")
        if post.links:
            verdict = "count" if post.links_count else "do not count"
            print(f"    links ({verdict}): {', '.join(post.links)}")
        else:
            print("    links: none")
