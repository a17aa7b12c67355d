"""Where comment-wake keeps its state: one directory with the store and the default inbox.

The first that is set wins: ``--state-dir``, ``$COMMENT_WAKE_STATE_DIR``, the config's
``state_dir``, then the XDG state directory (``$XDG_STATE_HOME/comment-wake``, else
``~/.local/state/comment-wake``), which is what ``platformdirs.user_state_dir`` gives on
Linux, written here rather than added as a dependency.

Everything under it is private, whatever the umask: directories 0700, files 0600 (the store
holds comment bodies of private pull requests).  ``private_dir`` creates a directory so;
``tighten_tree`` takes group and other permissions off what an older version, a copy or a
loose umask left behind.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from pathlib import Path

__all__ = [
    "APP_NAME",
    "PRIVATE_DIR_MODE",
    "PRIVATE_FILE_MODE",
    "STATE_DB",
    "STATE_DIR_ENV",
    "inbox_root",
    "private_dir",
    "resolve_state_dir",
    "store_path",
    "store_target",
    "tighten_tree",
    "xdg_state_dir",
]

APP_NAME = "comment-wake"
STATE_DIR_ENV = "COMMENT_WAKE_STATE_DIR"
STATE_DB = "state.db"
PRIVATE_DIR_MODE = 0o700
"""The mode of every directory under the state directory and the inboxes."""
PRIVATE_FILE_MODE = 0o600
"""The mode of every file under the state directory and the inboxes."""


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


def store_target(state_dir: Path, url: str | None = None) -> Path | str:
    """Where the store is: ``[store] url`` (a PostgreSQL server shared by a fleet) when
    set, else the SQLite file in the state directory.  The state directory holds the
    local lock, the inboxes, the host id and the caches in both cases."""
    return url if url else store_path(state_dir)


def inbox_root(state_dir: Path) -> Path:
    """The inbox publisher's default root inside the state directory."""
    return state_dir / "inbox"


def private_dir(path: Path) -> Path:
    """Create ``path`` and any missing parents as 0700, whatever the umask; a directory that
    exists already is left as it is (``tighten_tree`` fixes one)."""
    missing: list[Path] = []
    here = Path(path)
    while not here.exists() and here != here.parent:
        missing.append(here)
        here = here.parent
    for folder in reversed(missing):
        try:
            folder.mkdir(mode=PRIVATE_DIR_MODE)
        except FileExistsError:
            continue  # made meanwhile by another process: its mode is its maker's
        os.chmod(folder, PRIVATE_DIR_MODE)
    return Path(path)


def tighten_tree(root: Path) -> tuple[Path, ...]:
    """Take group and other permissions off ``root`` and everything under it (directories
    become 0700 and files 0600 at most; symbolic links are neither followed nor changed).
    Returns the paths that were looser; a missing ``root`` has none."""
    changed: list[Path] = []

    def tighten(path: Path) -> None:
        try:
            info = os.lstat(path)
        except FileNotFoundError:
            return
        if stat.S_ISLNK(info.st_mode) or not stat.S_IMODE(info.st_mode) & 0o077:
            return
        limit = PRIVATE_DIR_MODE if stat.S_ISDIR(info.st_mode) else PRIVATE_FILE_MODE
        os.chmod(path, stat.S_IMODE(info.st_mode) & limit)
        changed.append(path)

    tighten(root)
    if Path(root).is_dir() and not Path(root).is_symlink():
        for top, dirs, files in os.walk(root):
            for name in (*dirs, *files):
                tighten(Path(top) / name)
    return tuple(changed)
