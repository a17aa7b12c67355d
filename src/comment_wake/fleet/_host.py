"""This host's identity in a fleet: its ``host_id`` and the claim of its state directory.

The state directory keeps a UUID in ``host_id``, made once, the first time it is asked
for.  It is the directory's claim on its host's lease: a daemon that holds the
directory's local lock and shows the same claim is the same host restarted (the old
process is gone: the OS dropped its lock), so it takes its lease over at once, even after
SIGKILL.  A daemon from another directory that names the same ``host_id`` shows another
claim and is refused while the lease is live.  Without ``[fleet] host_id`` the UUID is
the host id too: never the hostname, since a restarted container gets a new one.
"""

from __future__ import annotations

import os
import uuid
from pathlib import Path

import msgspec

from comment_wake._paths import PRIVATE_FILE_MODE

__all__ = ["HOST_ID_FILE", "HostIdentity", "host_identity", "known_host_id"]

HOST_ID_FILE = "host_id"
"""The file in the state directory that keeps its UUID."""


class HostIdentity(msgspec.Struct, frozen=True):
    """Who this daemon is in the fleet: its host id, and its state directory's claim."""

    host_id: str
    claim: str  # the state directory's UUID


def _read(path: Path) -> str:
    text = path.read_text(encoding="ascii", errors="replace").strip()
    try:
        return str(uuid.UUID(text))
    except ValueError:
        raise ValueError(
            f"{path} does not hold a UUID; it names this host in the fleet: restore it, or "
            "remove it to give this state directory a new identity"
        ) from None


def host_identity(state_dir: Path, configured: str | None = None) -> HostIdentity:
    """``state_dir``'s claim (made on first use) and the host id: ``configured``, else
    the claim."""
    path = state_dir / HOST_ID_FILE
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_FILE_MODE)
    except FileExistsError:
        claim = _read(path)
    else:
        claim = str(uuid.uuid4())
        with os.fdopen(fd, "w", encoding="ascii") as f:
            f.write(claim + "\n")
    return HostIdentity(configured or claim, claim)


def known_host_id(state_dir: Path, configured: str | None = None) -> str | None:
    """The host id ``host_identity`` gives, without making the state directory's UUID:
    None when none is configured and the directory has none yet (a read-only command's
    view: ``status``, ``doctor``)."""
    if configured:
        return configured
    try:
        return _read(state_dir / HOST_ID_FILE)
    except (FileNotFoundError, NotADirectoryError):
        return None
