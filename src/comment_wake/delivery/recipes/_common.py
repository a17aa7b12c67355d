"""What the recipe scripts share: reading the notice, the exit codes, running a tool."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass

import msgspec

from comment_wake.delivery import EXIT_BUSY, EXIT_DELIVERED, EXIT_GONE, EXIT_REFUSED
from comment_wake.delivery._text import SESSION_ID_PATTERN
from review_monitor import Notice

__all__ = [
    "EXIT_BUSY",
    "EXIT_DELIVERED",
    "EXIT_GONE",
    "EXIT_REFUSED",
    "EXIT_RETRY",
    "Ran",
    "fail",
    "json_lines",
    "read_notice",
    "run_tool",
    "valid_session_id",
]

EXIT_RETRY = 1  # outside the contract: the publisher raises and the loop backs off


def fail(code: int, message: str) -> int:
    print(message, file=sys.stderr)
    return code


def read_notice(data: bytes) -> Notice | None:
    try:
        return msgspec.json.decode(data, type=Notice)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None


def valid_session_id(value: str) -> bool:
    return SESSION_ID_PATTERN.fullmatch(value) is not None


@dataclass(frozen=True)
class Ran:
    code: int
    stdout: bytes
    stderr: bytes


def run_tool(argv: Sequence[str], stdin: bytes, cwd: str | None = None) -> Ran | None:
    """Run ``argv`` with ``stdin``; None when it cannot be started (a configuration fault).

    No timeout here: the command publisher kills this script's whole process group.
    """
    try:
        done = subprocess.run(list(argv), input=stdin, capture_output=True, cwd=cwd, check=False)
    except OSError:
        return None
    return Ran(done.returncode, done.stdout, done.stderr)


def json_lines(data: bytes) -> list[dict[str, object]]:
    """Every line of ``data`` that is a JSON object; any other line is skipped."""
    events = []
    for line in data.splitlines():
        try:
            value = msgspec.json.decode(line)
        except msgspec.DecodeError:
            continue
        if isinstance(value, dict):
            events.append(value)
    return events
