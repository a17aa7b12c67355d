"""``comment-wake replay SCENARIO.toml [--json] [--seed N] [--check]``: run a scenario
through the real service on a virtual clock and print its decisions, wakes, notices and log
lines; ``--check`` also holds it to its ``[expect]`` table (exit 1, one line per unmet
expectation on stderr)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

__all__ = ["register"]


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "replay",
        help="replay a scenario through the real service on a virtual clock",
        description="Run SCENARIO.toml (format: docs/scenarios.md) through the real "
        "comment-wake service against an in-process fake GitHub on a virtual clock, and "
        "print what it decided, in time order.",
    )
    parser.add_argument("scenario", metavar="SCENARIO.toml")
    parser.add_argument(
        "--json", action="store_true", help="one JSON object per line (the output contract)"
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of every random draw (default 0)")
    parser.add_argument(
        "--check",
        action="store_true",
        help="check the replay against the scenario's [expect] table and the output "
        "contract: exit 1 with one line per unmet expectation on stderr",
    )
    parser.set_defaults(handler=_replay)


def _replay(args: argparse.Namespace) -> int:
    import logging

    # The output is the replay's lines; library warnings (retries, malformed items) are
    # already there as log lines or do not matter to a scenario.
    logging.getLogger().addHandler(logging.NullHandler())
    from comment_wake.replay import (
        ScenarioError,
        check_expectations,
        format_json,
        format_timeline,
        load_scenario,
        run_scenario_sync,
    )

    try:
        scenario = load_scenario(args.scenario)
    except ScenarioError as exc:
        print(f"comment-wake replay: {exc}", file=sys.stderr)
        return 2
    result = run_scenario_sync(scenario, seed=args.seed)
    text = format_json(result.lines) if args.json else format_timeline(result.lines)
    sys.stdout.write(text)
    if not args.check:
        return 0
    if not scenario.expect:
        print(
            f"comment-wake replay: {args.scenario} has no [expect] table to check",
            file=sys.stderr,
        )
        return 2
    unmet = check_expectations(scenario.expect, result)
    for problem in unmet:
        print(f"{args.scenario}: {problem}", file=sys.stderr)
    return 1 if unmet else 0
