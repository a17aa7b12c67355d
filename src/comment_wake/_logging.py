"""The app's logging: JSON lines off a terminal, readable text on one, and never a token.

The libraries only ``getLogger(__name__)``; the app calls ``configure_logging`` once.  The
handler's ``RedactFilter`` rewrites every record before any formatter sees it: the
discovered token (``add_secret`` once it is known) and anything shaped like a GitHub
token becomes ``[redacted]``, in the message, its arguments, the traceback and any extra
field.  The formatters redact their final line again, so a field added later cannot
slip through either.
"""

from __future__ import annotations

import json
import logging
import re
import sys
import threading
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any, Literal, TextIO

__all__ = [
    "REDACTED",
    "TOKEN_SHAPE",
    "JsonFormatter",
    "RedactFilter",
    "TextFormatter",
    "configure_logging",
    "quiet_libraries",
    "redact",
]

REDACTED = "[redacted]"

# Classic tokens are a prefix and 36 base62 characters; fine-grained ones are
# github_pat_ and 82 characters of [A-Za-z0-9_].  Matching from 16 on also catches a
# truncated or mistyped token.
TOKEN_SHAPE = re.compile(r"(?:gh[pousr]_[A-Za-z0-9]{16,}|github_pat_[A-Za-z0-9_]{16,})")

# A "secret" this short would blank ordinary words out of every line; no real token is.
_MIN_SECRET = 8

# The attributes every LogRecord has; anything else came in through ``extra=``.
_STANDARD = frozenset(
    set(vars(logging.LogRecord("n", logging.INFO, "p", 1, "m", None, None)))
    | {"message", "asctime"}
)


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """``text`` with each secret and each token-shaped word replaced by ``[redacted]``."""
    for secret in sorted(set(secrets), key=len, reverse=True):
        if len(secret) >= _MIN_SECRET:
            text = text.replace(secret, REDACTED)
    return TOKEN_SHAPE.sub(REDACTED, text)


class RedactFilter(logging.Filter):
    """Rewrites each record so no secret and no token-shaped text reaches a formatter."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        super().__init__()
        self._lock = threading.Lock()
        self._secrets: frozenset[str] = frozenset(s for s in secrets if s)

    def add_secret(self, secret: str) -> None:
        """Redact ``secret`` from now on (the token, once it has been found)."""
        if secret:
            with self._lock:
                self._secrets = self._secrets | {secret}

    @property
    def secrets(self) -> frozenset[str]:
        return self._secrets

    def redact(self, text: str) -> str:
        return redact(text, self._secrets)

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a bad format string must not lose the line
            message = f"{record.msg!r} {record.args!r}"
        record.msg = self.redact(message)
        record.args = None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = self.redact(record.exc_text)
        # The traceback text now stands for the exception; the object itself (whose
        # args may hold a token) must not be formatted again by another handler.
        record.exc_info = None
        if record.stack_info:
            record.stack_info = self.redact(record.stack_info)
        for name, value in list(vars(record).items()):
            if name not in _STANDARD:
                setattr(record, name, self._clean(value))
        return True

    def _clean(self, value: object) -> object:
        if isinstance(value, str):
            return self.redact(value)
        if isinstance(value, bool | int | float) or value is None:
            return value
        return self.redact(str(value))


def _extras(record: logging.LogRecord) -> dict[str, Any]:
    return {k: v for k, v in vars(record).items() if k not in _STANDARD and not k.startswith("_")}


class JsonFormatter(logging.Formatter):
    """One JSON object a line: ``ts``, ``level``, ``logger``, ``message``, extras, ``exc``."""

    def __init__(self, redactor: RedactFilter | None = None) -> None:
        super().__init__()
        self._redactor = redactor or RedactFilter()

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        for key, value in _extras(record).items():
            line.setdefault(key, value)
        if record.exc_text:
            line["exc"] = record.exc_text
        if record.stack_info:
            line["stack"] = record.stack_info
        return self._redactor.redact(json.dumps(line, ensure_ascii=False, default=str))


class TextFormatter(logging.Formatter):
    """``HH:MM:SS level logger: message key=value ...`` for a person at a terminal."""

    def __init__(self, redactor: RedactFilter | None = None) -> None:
        super().__init__()
        self._redactor = redactor or RedactFilter()

    def format(self, record: logging.LogRecord) -> str:
        at = datetime.fromtimestamp(record.created).strftime("%H:%M:%S")
        text = f"{at} {record.levelname.lower():<7} {record.name}: {record.getMessage()}"
        extras = _extras(record)
        if extras:
            text += " " + " ".join(f"{k}={v}" for k, v in extras.items())
        if record.exc_text:
            text += "\n" + record.exc_text
        if record.stack_info:
            text += "\n" + record.stack_info
        return self._redactor.redact(text)


_HANDLER_MARK = "_comment_wake_handler"


# Each library's logger and the lowest level it may log at.  httpx and httpcore log every
# request URL at INFO and DEBUG; a URL can name a comment's author (a permission lookup)
# or carry a receiver's query-string secret.  The GitHub client logs its own faults with
# the route only.  psycopg-pool warns at each failed attempt to connect and at each retry;
# the store reports an unreachable server itself, once, as ``StoreUnavailableError``
# (a short command's one line, the daemon's stall), so the pool's warnings only repeat it.
_QUIET_LIBRARIES = {
    "httpx": logging.WARNING,
    "httpcore": logging.WARNING,
    "psycopg.pool": logging.ERROR,
}


def quiet_libraries() -> None:
    """Raise the chatty libraries' loggers to the level they may log at (above).  The
    daemon's ``configure_logging`` calls it; a short command, which configures no
    logging, calls it before it opens the store, so the pool's warnings never reach
    stderr through Python's last-resort handler either."""
    for name, level in _QUIET_LIBRARIES.items():
        logging.getLogger(name).setLevel(level)


def configure_logging(
    log_format: Literal["auto", "json", "text"] = "auto",
    level: str = "info",
    *,
    stream: TextIO | None = None,
    secrets: Iterable[str] = (),
) -> RedactFilter:
    """Send the root logger to ``stream`` (stderr), replacing a handler installed before.

    ``auto`` writes JSON lines unless the stream is a terminal.  Returns the filter, so
    the daemon can ``add_secret(token)`` once it has found the token.
    """
    out = sys.stderr if stream is None else stream
    use_json = log_format == "json" or (log_format == "auto" and not _is_tty(out))
    redactor = RedactFilter(secrets)
    handler = logging.StreamHandler(out)
    handler.addFilter(redactor)
    handler.setFormatter(JsonFormatter(redactor) if use_json else TextFormatter(redactor))
    setattr(handler, _HANDLER_MARK, True)
    root = logging.getLogger()
    for old in list(root.handlers):
        if getattr(old, _HANDLER_MARK, False):
            root.removeHandler(old)
            old.close()
    root.addHandler(handler)
    root.setLevel(level.upper())
    quiet_libraries()
    return redactor


def _is_tty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
