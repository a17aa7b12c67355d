"""``comment-wake inbox take WORKER``: hand a hook the worker's pending notices."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

import msgspec

from comment_wake._limits import NOTICE_TEXT_LIMIT
from comment_wake._paths import inbox_root
from comment_wake.cli._common import (
    add_location_options,
    open_registry,
    registered,
    state_location,
)
from comment_wake.cli._errors import CliError
from comment_wake.delivery import take
from comment_wake.registry import InboxSpec, OrchestratorRecord, WorkerRecord
from review_monitor import Notice

__all__ = ["register"]

INBOX_ENV = "COMMENT_WAKE_INBOX"
Registered = WorkerRecord | OrchestratorRecord


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    inbox = subparsers.add_parser(
        "inbox",
        help="read a worker's inbox (for Claude Code and Codex hooks)",
        description="Read the notices the inbox publisher wrote for a worker.",
    )
    actions = inbox.add_subparsers(dest="inbox_command", metavar="ACTION", required=True)
    take_p = actions.add_parser(
        "take",
        help="print the pending notices in order and mark them taken",
        description="Print WORKER's pending notices in delivery order, one JSON object a "
        "line, and mark them taken so they are never printed again.  Prints nothing when "
        "none is pending (exit 0); an id that is neither a registered worker nor an "
        "orchestrator exits 2, or 1 with --text or --stop-hook: a hook's command never "
        "exits 2, which Claude Code reads as 'block'.",
    )
    take_p.add_argument(
        "worker", metavar="WORKER", help="a registered worker's (or orchestrator's) id"
    )
    take_p.add_argument(
        "--root",
        type=Path,
        default=None,
        help="the inbox root (default: $COMMENT_WAKE_INBOX, else the root of WORKER's "
        "inbox binding, else STATE_DIR/inbox)",
    )
    add_location_options(take_p)
    shape = take_p.add_mutually_exclusive_group()
    shape.add_argument(
        "--text",
        action="store_true",
        help="print only each notice's text, separated by a blank line (for a hook that "
        "injects plain text, such as UserPromptSubmit); whole notices only, at most "
        f"{NOTICE_TEXT_LIMIT} characters, the rest stay pending",
    )
    shape.add_argument(
        "--stop-hook",
        action="store_true",
        help='print {"decision": "block", "reason": <the texts>} when notices are pending '
        "(the Stop hook answer of Claude Code and Codex); nothing otherwise; whole notices "
        f"only, at most {NOTICE_TEXT_LIMIT} characters of text, the rest stay pending",
    )
    take_p.set_defaults(handler=_take)


def _root(args: argparse.Namespace, bound_root: str | None, state_dir: Path) -> Path:
    """``--root``, else ``$COMMENT_WAKE_INBOX``, else the root the id's inbox binding names
    (``bound_root``), else ``STATE_DIR/inbox``: where the daemon writes this id's
    notices."""
    if args.root is not None:
        return Path(args.root)
    explicit = os.environ.get(INBOX_ENV)
    if explicit:
        return Path(explicit).expanduser()
    if bound_root:
        return Path(bound_root)
    return inbox_root(state_dir)


def _bound_root(record: Registered) -> str | None:
    spec = record.publisher
    return str(spec.root) if isinstance(spec, InboxSpec) and spec.root else None


def _cached_root(worker: str, state_dir: Path) -> str | None:
    """Fleet mode: the id's inbox root from the registry cache the daemon keeps in the
    state directory; the store (a PostgreSQL server) is never opened, so the hook stays
    fast and works while the server is away."""
    from comment_wake.registry import read_registry_cache

    try:
        cache = read_registry_cache(state_dir)
    except (ValueError, OSError) as exc:
        raise CliError(str(exc)) from None
    if cache is None:
        raise CliError(
            f"no registry cache in {state_dir}: with [store] url set, `inbox take` reads "
            "the registry cache the daemon writes there; start the daemon on this host "
            "(comment-wake run) with the same --state-dir"
        )
    found = cache.ids.get(worker)
    if found is None:
        raise CliError(
            f"no worker or orchestrator {worker!r} is registered (as of the daemon's "
            f"registry cache in {state_dir}); see `comment-wake list` (and check --state-dir)",
            2,
        )
    return found.inbox_root


def _take(args: argparse.Namespace) -> int:
    # The id must be registered in the store the location options name (a typo in a hook
    # is exit 2, not silence); the store is only read, never created.
    where = state_location(args)
    state_dir = where.state_dir
    if where.store_url is not None:
        bound = _cached_root(args.worker, state_dir)
    else:
        with open_registry(None, state_dir, create=False) as registry:
            bound = _bound_root(registered(registry, args.worker, state_dir))
    root = _root(args, bound, state_dir)
    hook = bool(args.text or args.stop_hook)

    def too_long(notice: Notice) -> None:
        print(
            f"comment-wake inbox take: notice {notice.key[:16]} is {len(notice.text)} "
            f"characters, over a hook's {NOTICE_TEXT_LIMIT}: left pending, not taken "
            "(read it with `comment-wake inbox take WORKER` without --text)",
            file=sys.stderr,
        )

    try:
        notices = take(
            root,
            args.worker,
            limit=NOTICE_TEXT_LIMIT if hook else None,
            too_long=too_long if hook else None,
        )
    except ValueError as exc:
        print(f"comment-wake inbox take: {exc}", file=sys.stderr)
        return 1 if hook else 2
    except OSError as exc:
        print(f"comment-wake inbox take: cannot read the inbox: {exc}", file=sys.stderr)
        return 1
    out = sys.stdout
    if not notices:
        return 0
    if args.text:
        out.write("\n\n".join(n.text.rstrip("\n") for n in notices) + "\n")
    elif args.stop_hook:
        reason = "\n\n".join(n.text.rstrip("\n") for n in notices)
        out.write(msgspec.json.encode({"decision": "block", "reason": reason}).decode() + "\n")
    else:
        for notice in notices:
            out.write(msgspec.json.encode(notice).decode() + "\n")
    out.flush()
    return 0
