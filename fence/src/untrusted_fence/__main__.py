"""``python -m untrusted_fence``: fence standard input and print it."""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from collections.abc import Sequence
from typing import get_args

from ._fence import DEFAULT_MAX_CHARS, Kind, fence


def _non_negative(value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {value!r}") from None
    if number < 0:
        raise argparse.ArgumentTypeError("must not be negative")
    return number


def main(argv: Sequence[str] | None = None) -> int:
    """Fence standard input (``untrusted-fence --help``); returns the exit status."""
    parser = argparse.ArgumentParser(
        prog="untrusted-fence",
        description="Render untrusted text from stdin as GitHub does and fence it.",
    )
    parser.add_argument("--kind", choices=get_args(Kind), default="comment")
    parser.add_argument("--source", default=None, help="label of where the text came from")
    parser.add_argument("--max-chars", type=_non_negative, default=DEFAULT_MAX_CHARS)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    data = sys.stdin.buffer.read().decode("utf-8", errors="replace")
    fenced = fence(data, kind=args.kind, source=args.source, max_chars=args.max_chars)
    # One JSON object of Fenced's fields, in their order, or the fenced text.
    out = json.dumps(dataclasses.asdict(fenced), ensure_ascii=False) if args.json else fenced.text
    sys.stdout.buffer.write(out.encode("utf-8") + b"\n")
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
