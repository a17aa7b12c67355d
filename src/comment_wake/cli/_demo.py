"""``comment-wake demo``: watch every rule at work in under 30 seconds, no GitHub needed."""

from __future__ import annotations

import argparse
import functools
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from comment_wake._paths import private_dir

if TYPE_CHECKING:
    from comment_wake.demo import DemoEvent, DemoResult

__all__ = ["register"]

_WIDTH = 9


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    p = subparsers.add_parser(
        "demo",
        help="watch comment-wake decide a scripted story (FakeGitHub on loopback, ~20 s)",
        description="Run the real daemon against FakeGitHub served on 127.0.0.1 through a "
        "scripted story: a trusted comment from a phone, a bot, a stranger, the worker's "
        "own post, a burst held by the rate limit, an approval, a merge.  Prints each "
        "decision with its reason and each notice as the worker takes it from its inbox; "
        "the state directory is kept and its path printed.",
    )
    p.add_argument("--json", action="store_true", help="one JSON object per line")
    p.add_argument(
        "--dir",
        type=Path,
        default=None,
        help="where to keep the state directory and transcript (default: a new temporary "
        "directory)",
    )
    p.set_defaults(handler=_demo)


def _text_line(out: TextIO, e: DemoEvent) -> None:
    if e.kind == "story":
        out.write(f"\n{e.at:6.1f}s  == {e.text}\n")
    else:
        out.write(f"{e.at:6.1f}s  {e.kind:<{_WIDTH}} {e.text}\n")
    if e.kind == "notice":
        for line in str(e.data.get("notice", "")).splitlines():
            out.write(f"{'':10}| {line}".rstrip() + "\n")
    out.flush()


def _json_line(out: TextIO, e: DemoEvent) -> None:
    out.write(json.dumps({"at": e.at, "type": e.kind, "text": e.text, **e.data}) + "\n")
    out.flush()


def _summary(out: TextIO, result: DemoResult, as_json: bool) -> None:
    if as_json:
        out.write(
            json.dumps(
                {
                    "type": "summary",
                    "ok": result.ok,
                    "failures": list(result.failures),
                    "seconds": result.seconds,
                    "notices": result.notices,
                    "state_dir": str(result.state_dir),
                    "inbox": str(result.inbox),
                    "transcript": str(result.transcript),
                    "config": str(result.config),
                    "pr": result.pr,
                    "comments": dict(result.comments),
                    "ids": dict(result.ids),
                }
            )
            + "\n"
        )
        return
    out.write("\n")
    if result.ok:
        out.write(
            f"Every rule held: {result.notices} notices reached the worker in {result.seconds}s.\n"
        )
    for failure in result.failures:
        out.write(f"FAILED: {failure}\n")
    out.write(
        f"The worker's inbox (taken notices are under taken/): {result.inbox}\n"
        f"The worker's Claude Code transcript: {result.transcript}\n"
        f"The daemon's state (store, inbox): {result.state_dir}\n"
    )
    where = f"--config {result.config} --state-dir {result.state_dir}"
    out.write(f"Look closer: comment-wake status {where}\n")
    stranger = result.ids.get("c3")
    if stranger is not None:
        out.write(f"Why c3 woke nobody: comment-wake explain {where} {result.pr} {stranger}\n")
        out.write(
            "Any other comment: the same command with the id the timeline shows beside its "
            f"label ({', '.join(f'{k} {v}' for k, v in result.ids.items())})\n"
        )


def _demo(args: argparse.Namespace) -> int:
    import anyio

    from comment_wake.demo import StoryError, load_story, play

    try:
        story = load_story()
    except StoryError as exc:
        print(f"comment-wake demo: the story is broken: {exc}", file=sys.stderr)
        return 2
    out = sys.stdout
    emit = functools.partial(_json_line if args.json else _text_line, out)
    if not args.json:
        out.write(f"comment-wake demo: {story.title}\n")
    workdir = args.dir
    if workdir is not None:
        private_dir(workdir)
    result = anyio.run(functools.partial(play, story, emit, workdir=workdir))
    _summary(out, result, args.json)
    return 0 if result.ok else 1
