"""``comment-wake run | status | explain | doctor | unpark``.

``run`` is the daemon (until SIGTERM or SIGINT; exit 0 after a clean stop, 1 when another
daemon owns the store or the daemon fails, 2 for a configuration or token problem, also
when GitHub keeps refusing the token while it runs).
``status`` and ``explain`` read the store in short transactions, so they are safe while
the daemon runs; ``doctor`` checks a setup before a first run (exit 1 if a check fails).
"""

from __future__ import annotations

import argparse
import functools
import os
import sqlite3
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from comment_wake._paths import inbox_root, store_target
from comment_wake.cli._common import (
    add_location_options,
    load_location,
    open_command_store,
    open_registry,
    registered,
)
from comment_wake.cli._errors import failure_line
from comment_wake.config import ConfigError

if TYPE_CHECKING:
    from comment_wake.config import AppConfig
    from comment_wake.registry import TranscriptReach
    from review_monitor import PrRef
    from review_monitor.store import SyncStore

# Each command imports what it runs when it runs (the daemon, the status and explain
# readers, the doctor's checks), so building the parser for another command, a hook's
# ``inbox take`` above all, costs none of it (issue 26: a fast command line).

__all__ = ["register"]


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    run = subparsers.add_parser(
        "run",
        help="run the daemon against GitHub",
        description="Poll the watched pull requests, wake their workers on trusted comments "
        "and deliver the notices, until SIGTERM or SIGINT.  The token comes from GH_TOKEN, "
        "GITHUB_TOKEN, then `gh auth token`.",
    )
    add_location_options(run)
    run.add_argument(
        "--dry-run",
        action="store_true",
        help="decide and log everything on a copy of the store; deliver nothing, react to "
        "nothing, and leave the real store untouched",
    )
    run.set_defaults(handler=_run)

    status = subparsers.add_parser(
        "status",
        help="what the daemon is doing: per PR, per worker, the API budget",
        description="Per watched PR the floor, comments handled, wakes left, held comments "
        "and permission retries; the outbox per worker; the last poll and the API budget.",
    )
    add_location_options(status)
    status.add_argument("--json", action="store_true", help="one JSON object")
    status.set_defaults(handler=_status)

    explain = subparsers.add_parser(
        "explain",
        help="why a comment did or did not wake its worker",
        description="The outcome and its reason, then each rule in order with its verdict "
        "and the evidence recorded when the daemon decided (the permission answer, the "
        "own-post match, the rate limit).  Name the comment by its URL alone, or give the "
        "pull request and the comment's GraphQL id, database id or URL.",
    )
    add_location_options(explain)
    explain.add_argument(
        "pr",
        metavar="PR",
        help="the pull request (owner/name#N, owner/name/pull/N or its URL); or, alone, "
        "the comment's URL",
    )
    explain.add_argument(
        "comment",
        metavar="COMMENT",
        nargs="?",
        help="the comment's GraphQL id, database id or URL",
    )
    explain.add_argument("--json", action="store_true", help="the records and rules as JSON")
    explain.set_defaults(handler=_explain)

    doctor = subparsers.add_parser(
        "doctor",
        help="check the token, access, transcripts and publishers before a first run",
        description="One line per check, ok, WARN or FAIL with what to fix; exit 1 when "
        "any check fails.",
    )
    add_location_options(doctor)
    doctor.set_defaults(handler=_doctor)

    unpark = subparsers.add_parser(
        "unpark",
        help="send a worker's parked notices again (after fixing its publisher)",
        description="A notice a publisher refused (bad configuration) is parked, never "
        "retried on its own.  Once the binding is fixed, this puts the worker's parked "
        "notices back at the head of its queue; a running daemon sends them within its "
        "delivery poll interval.  A parked notice whose PR is bound to another worker now "
        "(a re-bind after its host was lost) goes to that worker instead, and the parked "
        "notices of WORKER's PR left for an earlier worker come to WORKER.",
    )
    add_location_options(unpark)
    unpark.add_argument("worker", metavar="WORKER", help="the worker (or orchestrator) id")
    unpark.set_defaults(handler=_unpark)


def _load(args: argparse.Namespace, name: str) -> tuple[AppConfig, Path] | None:
    try:
        return load_location(args)
    except ConfigError as exc:
        print(f"comment-wake {name}: {exc}", file=sys.stderr)
        return None


def _run(args: argparse.Namespace) -> int:
    loaded = _load(args, "run")
    if loaded is None:
        return 2
    config, state_dir = loaded
    if args.dry_run and config.store.url:
        from comment_wake.app import DRY_RUN_NEEDS_SQLITE

        print(f"comment-wake run: {DRY_RUN_NEEDS_SQLITE}", file=sys.stderr)
        return 2
    import anyio

    from comment_wake._logging import configure_logging
    from comment_wake.daemon import Daemon
    from comment_wake.hints import WebhookSecretError, load_secret
    from review_monitor import TokenNotFoundError
    from review_monitor.github import find_token

    redactor = configure_logging(config.log_format, config.log_level)
    try:
        token = find_token(config.github.host)
    except TokenNotFoundError as exc:
        print(f"comment-wake run: {exc}", file=sys.stderr)
        return 2
    redactor.add_secret(token)
    if config.webhook.enabled:
        try:
            redactor.add_secret(load_secret(config.webhook, os.environ).decode("utf-8"))
        except WebhookSecretError as exc:
            print(f"comment-wake run: {exc}", file=sys.stderr)
            return 2
    daemon = Daemon(config, state_dir, token=token, dry_run=args.dry_run)
    # A lease held by another daemon, a damaged or read-only store: ``main`` prints the
    # one line (unwrapped from anyio's ExceptionGroup) and exits 1.
    return anyio.run(daemon.serve)


def _open_store(config: AppConfig, state_dir: Path) -> SyncStore:
    # Never creates a store: a missing one is ``StoreMissingError``, one line from ``main``.
    return open_command_store(store_target(state_dir, config.store.url), create=False)


def _status(args: argparse.Namespace) -> int:
    loaded = _load(args, "status")
    if loaded is None:
        return 2
    config, state_dir = loaded
    from comment_wake.app._status import read_status, render_status
    from comment_wake.fleet import known_host_id

    store = _open_store(config, state_dir)
    try:
        report = read_status(
            store,
            config.wake,
            datetime.now(UTC),
            inbox=inbox_root(state_dir),
            host_id=known_host_id(state_dir, config.fleet.host_id),
        )
    finally:
        store.close()
    if args.json:
        sys.stdout.write(msgspec.json.encode(report).decode() + "\n")
    else:
        sys.stdout.write(render_status(report))
    return 0


def _unpark(args: argparse.Namespace) -> int:
    loaded = _load(args, "unpark")
    if loaded is None:
        return 2
    config, state_dir = loaded
    from comment_wake.delivery import ORCHESTRATOR_KINDS
    from comment_wake.registry import Registry

    store = _open_store(config, state_dir)
    try:
        registered(Registry(store, inbox_root=inbox_root(state_dir)), args.worker, state_dir)
        # A notice whose PR another worker has now goes to that worker (fleet: a re-bind
        # after its host was lost); an orchestrator's notices stay its own.
        count = store.unpark(
            args.worker, at=datetime.now(UTC), to_current_worker=True, staying=ORCHESTRATOR_KINDS
        )
    finally:
        store.close()
    print(f"{count} parked notice(s) of {args.worker} are queued again")
    return 0


def _explain(args: argparse.Namespace) -> int:
    loaded = _load(args, "explain")
    if loaded is None:
        return 2
    config, state_dir = loaded
    from comment_wake.app._explain import (
        explain_records,
        find_records,
        own_posts_matter,
        render,
    )
    from comment_wake.service import read_gaps
    from comment_wake.store import outcomes

    try:
        pr, comment = _explain_target(args.pr, args.comment, config.github.host.lower())
    except ValueError as exc:
        print(f"comment-wake explain: {exc}", file=sys.stderr)
        return 2
    store = _open_store(config, state_dir)
    try:
        records = find_records(store, pr, comment)
        ids = {r.comment for r in records}
        addressed = [o for o in outcomes(store, pr=pr) if o.subject_id in ids]
        gaps = () if records else read_gaps(store, pr)
        sources = (
            _own_post_sources(store, config, state_dir, pr) if own_posts_matter(records) else ()
        )
    finally:
        store.close()
    if args.json:
        out = [
            {
                "record": r,
                "rules": explain_records(r),
                "outcomes": addressed,
                "own_post_sources": sources,
            }
            for r in records
        ]
        sys.stdout.write(msgspec.json.encode(out).decode() + "\n")
    else:
        sys.stdout.write(render(pr, comment, records, addressed, gaps, sources))
    return 0 if records else 1


def _own_post_sources(
    store: SyncStore, config: AppConfig, state_dir: Path, pr: PrRef
) -> tuple[TranscriptReach, ...]:
    """The transcripts the own-post rule reads for ``pr``'s worker as bound now, as this
    host reads them; in fleet mode another host's are never read, only named."""
    from comment_wake.fleet import known_host_id
    from comment_wake.registry import Registry

    registry = Registry(store, inbox_root=inbox_root(state_dir))
    worker = registry.binding(pr).worker
    if worker is None:
        return ()
    return registry.transcript_reach(worker, here=known_host_id(state_dir, config.fleet.host_id))


def _explain_target(first: str, comment: str | None, host: str) -> tuple[PrRef, str]:
    """``(pr, comment)`` from ``explain PR COMMENT`` or ``explain COMMENT_URL``."""
    from comment_wake.app._explain import COMMENT_URL_FORMS, comment_target
    from review_monitor import PrRef

    if comment is None:
        target = comment_target(first, host=host)
        if target is None:
            raise ValueError(
                f"{first!r} is not a comment's URL: give the pull request and the comment "
                f"(explain PR COMMENT), or the comment's URL alone ({COMMENT_URL_FORMS})"
            )
        return target[0], first
    pr = PrRef.parse(first, host=host)
    named = comment_target(comment, host=host)
    if named is not None and named[0] != pr:
        raise ValueError(
            f"the comment's URL is on {named[0]}, not on {pr}: give its pull request, or the "
            "URL alone"
        )
    return pr, comment


def _doctor(args: argparse.Namespace) -> int:
    loaded = _load(args, "doctor")
    if loaded is None:
        return 2
    config, state_dir = loaded
    import anyio

    from comment_wake.daemon._doctor import run_checks
    from comment_wake.fleet import known_host_id
    from review_monitor import StoreError, TokenNotFoundError
    from review_monitor.github import find_token
    from review_monitor.store import describe_fault

    token: str | None = None
    problem: str | None = None
    try:
        token = find_token(config.github.host)
    except TokenNotFoundError as exc:
        problem = str(exc)
    try:
        registry = open_registry(config, state_dir, create=False)
    except (StoreError, sqlite3.Error, OSError) as exc:
        found = failure_line(exc)
        print(f"FAIL  state store: {found[0] if found else describe_fault(exc)}")
        return 1
    try:
        store_lines = _store_lines(registry.store, config, state_dir)
        checks = anyio.run(
            functools.partial(
                run_checks,
                config,
                registry,
                token=token,
                token_problem=problem,
                now=datetime.now(UTC),
                host_id=known_host_id(state_dir, config.fleet.host_id),
            )
        )
    finally:
        registry.close()
    for line in store_lines:
        print(line)
    for c in checks:
        print(f"{c.status:<5} {c.name}: {c.message}")
    return 1 if any(c.status == "FAIL" for c in checks) else 0


def _store_lines(store: SyncStore, config: AppConfig, state_dir: Path) -> list[str]:
    """``doctor``'s lines on the store: its engine and where it is; in fleet mode this
    host's id and its lease's holder, term and expiry."""
    from comment_wake.app._status import read_host_lease
    from comment_wake.fleet import known_host_id

    lines = [f"ok    state store: {store.where} ({store.dialect})"]
    if store.dialect != "postgresql":
        return lines
    now = datetime.now(UTC)
    lease = read_host_lease(store, known_host_id(state_dir, config.fleet.host_id), now)
    if lease.host_id is None:
        lines.append(
            "ok    fleet host: no host_id yet; the daemon's first start makes one in the "
            "state directory (or set [fleet] host_id)"
        )
    elif lease.holder is None or lease.expires_at is None:
        lines.append(f"ok    fleet host: {lease.host_id}; its lease was never taken")
    else:
        state = "held" if lease.live else "lapsed"
        lines.append(
            f"ok    fleet host: {lease.host_id}; lease {state} by instance {lease.holder}, "
            f"term {lease.term}, expires {lease.expires_at.isoformat(timespec='seconds')}"
        )
    return lines
