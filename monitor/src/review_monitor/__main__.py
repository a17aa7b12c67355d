"""``python -m review_monitor queries``: print every GraphQL document the project sends."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from ._queries import all_documents


def _print_queries(_args: argparse.Namespace) -> int:
    chunks = [f"# name: {name}\n{document.strip()}" for name, document in all_documents()]
    sys.stdout.write("\n---\n".join(chunks) + "\n")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m review_monitor",
        description="Tools of the PR review monitor.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    queries = sub.add_parser(
        "queries",
        help="print every GraphQL document the project sends, to check against GitHub's schema",
    )
    queries.set_defaults(handler=_print_queries)
    args = parser.parse_args(argv)
    code: int = args.handler(args)
    return code


if __name__ == "__main__":
    sys.exit(main())
