"""``comment-wake release PR``: release a PR's comments held by the rate limit, now.

The command records a release request in the store and returns; the daemon's next look
at the PR applies it (so it works whether or not a daemon runs: without one, the next
daemon does).  The release goes through the same re-read of the held comments as any
release, is decided with reason ``operator-release`` and counts in the PR's rate-limit
windows.  Exit 0 when the request is recorded, 1 when nothing is held (or there is no
store), 2 for a bad PR or configuration.
"""

from __future__ import annotations

import argparse
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from comment_wake.cli._common import add_location_options, open_command_store, state_location
from comment_wake.config import ConfigError
from review_monitor import PrRef

__all__ = ["register"]

_NAME = "comment-wake release"


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Add ``release`` to the command line."""
    release = subparsers.add_parser(
        "release",
        help="release a pull request's comments held by the rate limit, now",
        description="Ask the daemon to release the comments the rate limit holds on PR "
        "now.  They are read again first (a deleted one is dropped, a minimized one or one "
        "whose author lost write access is skipped, an edited one goes with its current "
        "text); the wake counts in the PR's rate limit and is recorded with reason "
        "operator-release.  Works whether or not the daemon runs: it records a request "
        "that the daemon's next look at the PR applies.  Exits 1 when nothing is held.",
    )
    add_location_options(release)
    release.add_argument("pr", metavar="PR", help="the pull request, as owner/name#N")
    release.set_defaults(handler=_release)


def _release(args: argparse.Namespace) -> int:
    try:
        where = state_location(args)
    except ConfigError as exc:
        print(f"{_NAME}: {exc}", file=sys.stderr)
        return 2
    try:
        host = where.github_host
        pr = PrRef.parse(args.pr, **({} if host is None else {"host": host.lower()}))
    except ValueError as exc:
        print(f"{_NAME}: {exc}", file=sys.stderr)
        return 2
    target = where.store
    if isinstance(target, Path) and not target.exists():
        print(
            f"{_NAME}: no state store at {target}; nothing is held (pass --state-dir if the "
            "daemon keeps its state elsewhere)",
            file=sys.stderr,
        )
        return 1
    # The wake core's mark codec, not the core: ``release`` starts without the fence.
    from comment_wake.service import LISTENER_NAME
    from comment_wake.store import request_release
    from comment_wake.wake import MarkError, decode_mark

    store = open_command_store(target, create=not isinstance(target, str))
    try:
        stored = store.load_mark(pr, LISTENER_NAME)
        try:
            held = () if stored is None else decode_mark(stored.blob).held
        except MarkError as exc:
            print(f"{_NAME}: the wake mark of {pr} cannot be read: {exc}", file=sys.stderr)
            return 1
        if not held:
            print(f"{_NAME}: nothing is held on {pr}", file=sys.stderr)
            return 1
        request_release(store, pr, at=datetime.now(UTC))
    finally:
        store.close()
    print(
        f"release of {len(held)} held comment(s) on {pr} requested: the daemon reads them "
        "again and wakes the worker at its next look at the PR (if no daemon runs, when one "
        "starts)"
    )
    return 0
