"""``comment-wake poll PR``: read a watched PR at the daemon's next poll round.

The command records a poll request in the store and returns, as ``release`` does; the
daemon hands it to its poller, whose next round reads the PR's full badge whatever its
NOT_FOUND backoff or the sweep says, but not sooner than ``hint_min_gap`` after the PR's
last read.  Without a daemon the request waits for the next one (whose first round reads
every watched PR).  Exit 0 when the request is recorded, 1 when the PR is not watched or
there is no store, 2 for a bad PR or configuration.
"""

from __future__ import annotations

import argparse
from datetime import UTC, datetime
from typing import Any

from comment_wake._paths import store_target
from comment_wake.cli._common import add_location_options, load_location, open_command_store
from comment_wake.cli._errors import CliError
from review_monitor import PrRef

__all__ = ["register"]


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Add ``poll`` to the command line."""
    poll = subparsers.add_parser(
        "poll",
        help="read a watched pull request at the daemon's next poll round",
        description="Ask the daemon to read PR at its next poll round, even while it backs "
        "off from a PR GitHub answered not found (1, 2, 4, 8 minutes, up to "
        "missing_pr_interval) or its sweep saw no change; never sooner than hint_min_gap "
        "after the PR's last read.  Works whether or not the daemon runs: it records a "
        "request that the daemon serves (if none runs, the next one's first round reads "
        "every watched PR).  Exits 1 when PR is not watched.",
    )
    add_location_options(poll)
    poll.add_argument("pr", metavar="PR", help="the pull request, as owner/name#N")
    poll.set_defaults(handler=_poll)


def _poll(args: argparse.Namespace) -> int:
    from comment_wake.hints import matching_watch
    from comment_wake.store import request_poll
    from review_monitor import format_duration

    config, state_dir = load_location(args)
    try:
        pr = PrRef.parse(args.pr, host=config.github.host.lower())
    except ValueError as exc:
        raise CliError(str(exc), 2) from None
    store = open_command_store(store_target(state_dir, config.store.url), create=False)
    try:
        watched = matching_watch(pr, {w.pr for w in store.watches()})
        if watched is None:
            raise CliError(f"{pr} is not watched: bind a worker to it first (comment-wake bind)")
        request_poll(store, watched, at=datetime.now(UTC))
    finally:
        store.close()
    gap = format_duration(config.monitor.hint_min_gap)
    print(
        f"poll of {watched} requested: the daemon reads it at its next poll round, not "
        f"sooner than {gap} after its last read (if no daemon runs, when one starts)"
    )
    return 0
