"""Where comment-wake keeps its state: one directory with the store and the default inbox.

The first that is set wins: ``--state-dir``, ``$COMMENT_WAKE_STATE_DIR``, the config's
``state_dir``, then the XDG state directory (``$XDG_STATE_HOME/comment-wake``, else
``~/.local/state/comment-wake``), which is what ``platformdirs.user_state_dir`` gives on
Linux, written here rather than added as a dependency.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

__all__ = [
    "APP_NAME",
    "STATE_DB",
    "STATE_DIR_ENV",
    "inbox_root",
    "resolve_state_dir",
    "store_path",
    "xdg_state_dir",
]

APP_NAME = "comment-wake"
STATE_DIR_ENV = "COMMENT_WAKE_STATE_DIR"
STATE_DB = "state.db"


def xdg_state_dir(env: Mapping[str, str] | None = None, home: Path | None = None) -> Path:
    """``$XDG_STATE_HOME/comment-wake``, else ``~/.local/state/comment-wake``."""
    environ = os.environ if env is None else env
    # The XDG spec says a relative value is invalid and must be ignored.
    base = environ.get("XDG_STATE_HOME", "")
    if not base or not os.path.isabs(base):
        base = str((home or Path.home()) / ".local" / "state")
    return Path(base) / APP_NAME


def resolve_state_dir(
    cli: Path | str | None = None,
    configured: Path | str | None = None,
    *,
    env: Mapping[str, str] | None = None,
    home: Path | None = None,
) -> Path:
    """The state directory: ``cli`` > ``$COMMENT_WAKE_STATE_DIR`` > ``configured`` > XDG."""
    environ = os.environ if env is None else env
    for candidate in (cli, environ.get(STATE_DIR_ENV) or None, configured):
        if candidate is not None and str(candidate) != "":
            return Path(candidate).expanduser()
    return xdg_state_dir(environ, home)


def store_path(state_dir: Path) -> Path:
    """The monitor's SQLite store inside the state directory."""
    return state_dir / STATE_DB


def inbox_root(state_dir: Path) -> Path:
    """The inbox publisher's default root inside the state directory."""
    return state_dir / "inbox"
