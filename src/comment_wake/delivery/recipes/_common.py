"""What the recipe scripts share: reading the notice, the exit codes, running a tool."""

from __future__ import annotations

import fcntl
import os
import re
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import msgspec

from comment_wake._paths import private_dir, resolve_state_dir
from comment_wake.delivery import EXIT_BUSY, EXIT_DELIVERED, EXIT_GONE, EXIT_REFUSED
from comment_wake.delivery._text import SESSION_ID_PATTERN
from review_monitor import Notice

__all__ = [
    "EXIT_BUSY",
    "EXIT_DELIVERED",
    "EXIT_GONE",
    "EXIT_REFUSED",
    "EXIT_RETRY",
    "KEEP_KEYS",
    "DeliveredKeys",
    "Ran",
    "already_delivered",
    "cli_reason",
    "delivered",
    "fail",
    "fence_opener",
    "file_contains",
    "is_uuid",
    "json_lines",
    "one_line",
    "read_notice",
    "recipe_state_dir",
    "repeat",
    "run_tool",
    "session_id_warning",
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


# --- what the CLI said ------------------------------------------------------------------

_UNPRINTABLE = re.compile(r"[^\t\x20-\x7e\u00a0-\ud7ff\ue000-\ufffd]")


def one_line(text: str, limit: int = 400) -> str:
    """``text`` on one printable line, bounded: for a reason that ends up in a log."""
    flat = " ".join(_UNPRINTABLE.sub("", text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def cli_reason(stderr: bytes, events: Sequence[dict[str, object]] = ()) -> str:
    """The CLI's own reason: a ``result`` event's ``errors``, else its last ``Error:`` line
    on stderr, else stderr's last non-blank line."""
    for event in events:
        errors = event.get("errors")
        if event.get("type") == "result" and isinstance(errors, list):
            texts = [str(e) for e in errors if isinstance(e, str) and e.strip()]
            if texts:
                return one_line("; ".join(texts))
    lines = [line.strip() for line in stderr.decode("utf-8", "replace").splitlines()]
    lines = [line for line in lines if line]
    errors_ = [line for line in lines if line.startswith("Error:")]
    return one_line((errors_ or lines or [""])[-1])


# --- delivered keys -----------------------------------------------------------------------

# The outbox keeps a notice's key for ``prune_after`` (30 days by default): keep the keys a
# recipe delivered as long, so a notice published again after a crash is dropped.
KEEP_KEYS = timedelta(days=30)
_FENCE_OPENER = re.compile(r"<<<untrusted-[a-z0-9-]{1,40}-begin [0-9a-f]{20}>>>")


class DeliveredKeys:
    """The notice keys one recipe delivered, with the session each went to: JSON lines in
    ``<state dir>/recipes/<recipe>-delivered.jsonl`` (mode 0600, folder 0700)."""

    def __init__(self, state_dir: Path, recipe: str, *, keep: timedelta = KEEP_KEYS) -> None:
        self.path = state_dir / "recipes" / f"{recipe}-delivered.jsonl"
        self.keep = keep

    def _entries(self) -> list[dict[str, object]]:
        try:
            data = self.path.read_bytes()
        except OSError:
            return []
        return json_lines(data)

    def get(self, key: str) -> str | None:
        """The session a key was delivered to ("" unknown), or ``None``: not delivered."""
        for entry in reversed(self._entries()):
            if entry.get("key") == key:
                session = entry.get("session")
                return session if isinstance(session, str) else ""
        return None

    def add(self, key: str, session: str | None, now: datetime | None = None) -> None:
        now = now or datetime.now(UTC)
        private_dir(self.path.parent)
        line = msgspec.json.encode({"key": key, "session": session or "", "at": now.isoformat()})
        fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        with os.fdopen(fd, "ab") as fh:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
            fh.write(line + b"\n")
            fh.flush()
            os.fsync(fh.fileno())
            self._prune(now)

    def _prune(self, now: datetime) -> None:
        """Drop keys older than ``keep`` (under the caller's lock)."""
        entries = self._entries()
        kept = [e for e in entries if _recent(e.get("at"), now - self.keep)]
        if len(kept) == len(entries):
            return
        tmp = self.path.with_suffix(".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as fh:
            fh.write(b"".join(msgspec.json.encode(e) + b"\n" for e in kept))
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, self.path)


def _recent(at: object, floor: datetime) -> bool:
    if not isinstance(at, str):
        return False
    try:
        when = datetime.fromisoformat(at)
    except ValueError:
        return False
    return (when if when.tzinfo else when.replace(tzinfo=UTC)) >= floor


def recipe_state_dir(given: str | None) -> Path:
    """``--state-dir``, else ``$COMMENT_WAKE_STATE_DIR``, else the XDG state directory."""
    return resolve_state_dir(given)


def fence_opener(text: str) -> str | None:
    """The first fence opener in a notice's text: its nonce is fresh per notice."""
    m = _FENCE_OPENER.search(text)
    return m[0] if m else None


def file_contains(path: Path, needle: str, chunk: int = 4 << 20) -> bool:
    """Whether ``path`` holds ``needle`` (streamed; an unreadable file holds nothing)."""
    data = needle.encode("utf-8")
    try:
        with open(path, "rb") as fh:
            tail = b""
            while True:
                block = fh.read(chunk)
                if not block:
                    return False
                if data in tail + block:
                    return True
                tail = block[-len(data) :]
    except OSError:
        return False


def already_delivered(
    keys: DeliveredKeys, notice: Notice, transcript: Path | None, session: str
) -> str | None:
    """The session a repeat of ``notice`` went to, or ``None`` to deliver it.

    A key in ``keys`` is a repeat; so is a notice whose fence opener is already in the
    session's transcript (the CLI took it, and the recipe died before recording the key):
    the key is recorded then."""
    known = keys.get(notice.key)
    if known is not None:
        return known or session
    opener = fence_opener(notice.text)
    if opener is not None and transcript is not None and file_contains(transcript, opener):
        keys.add(notice.key, session)
        return session
    return None


def delivered(keys: DeliveredKeys, notice: Notice, session: str | None) -> int:
    """Record the key, print the session line, exit 0."""
    keys.add(notice.key, session)
    if session:
        print(f"session-id: {session}", flush=True)
    return EXIT_DELIVERED


def repeat(recipe: str, session: str) -> int:
    if session:
        print(f"session-id: {session}", flush=True)
    print(f"{recipe} recipe: this notice was delivered before; dropped", file=sys.stderr)
    return EXIT_DELIVERED


_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")


def is_uuid(value: str) -> bool:
    return _UUID.fullmatch(value) is not None


def session_id_warning(argv: Sequence[str]) -> str | None:
    """What ``bind`` says of a recipe argv whose ``--session-id`` is not a UUID: Claude Code
    takes it as a session title, Codex as a thread name; ``None`` for anything else."""
    recipe = next((a for a in argv if a.startswith("comment_wake.delivery.recipes.")), None)
    if recipe is None or recipe.rsplit(".", 1)[1] not in ("claude", "codex"):
        return None
    sid: str | None = None
    for i, arg in enumerate(argv):
        if arg == "--":
            break
        if arg == "--session-id" and i + 1 < len(argv):
            sid = argv[i + 1]
        elif arg.startswith("--session-id="):
            sid = arg.split("=", 1)[1]
    if sid is None or is_uuid(sid):
        return None
    if recipe.endswith(".claude"):
        return (
            f"session id {sid!r} is not a UUID: Claude Code will take it as a session title; "
            "if no session has that title, every delivery is gone (69) and goes to the "
            "orchestrator"
        )
    return (
        f"thread id {sid!r} is not a UUID: the codex recipe looks it up as a thread name in "
        "$CODEX_HOME/session_index.jsonl; if none has it, every delivery is gone (69)"
    )
