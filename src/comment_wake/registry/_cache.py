"""The registry cache: the registered ids and their inbox roots, in a local file.

In fleet mode the store is a PostgreSQL server, and a hook's ``inbox take`` must stay
fast and work while the server is away: it never opens the store.  The daemon writes
this file in the state directory whenever the registry version it sees moves (at start
and at each reload of its ``RegistryBook``), atomically (a temporary file renamed over
it) and 0600; ``inbox take`` checks its id against it and finds the inbox root there.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from comment_wake._paths import PRIVATE_FILE_MODE

from ._model import InboxSpec, OrchestratorRecord, WorkerRecord

if TYPE_CHECKING:
    from ._snapshot import RegistrySnapshot

__all__ = [
    "REGISTRY_CACHE",
    "CachedId",
    "RegistryCache",
    "read_registry_cache",
    "write_registry_cache",
]

REGISTRY_CACHE = "registry-cache.json"
"""The cache's file in the state directory."""


class CachedId(msgspec.Struct, frozen=True):
    """A registered worker or orchestrator, as ``inbox take`` needs it."""

    kind: str  # "worker" or "orchestrator"
    inbox_root: str | None = None  # its inbox binding's root, when it names one


class RegistryCache(msgspec.Struct, frozen=True):
    """Every registered id (archived workers too), as of registry ``version``."""

    version: int
    ids: dict[str, CachedId]


def _entry(record: WorkerRecord | OrchestratorRecord) -> CachedId:
    kind = "worker" if isinstance(record, WorkerRecord) else "orchestrator"
    spec = record.publisher
    root = spec.root if isinstance(spec, InboxSpec) and spec.root else None
    return CachedId(kind, None if root is None else str(root))


def registry_cache(snapshot: RegistrySnapshot) -> RegistryCache:
    """The cache of ``snapshot``; a worker id wins over an orchestrator's, as
    ``inbox take`` looks a worker up first."""
    ids = {o.id: _entry(o) for o in snapshot.orchestrators()}
    ids.update((w.worker, _entry(w)) for w in snapshot.workers())
    return RegistryCache(snapshot.version, dict(sorted(ids.items())))


def write_registry_cache(state_dir: Path, snapshot: RegistrySnapshot) -> None:
    """Write ``snapshot``'s cache to ``state_dir`` atomically, 0600."""
    data = msgspec.json.encode(registry_cache(snapshot))
    fd, tmp = tempfile.mkstemp(prefix=f".{REGISTRY_CACHE}.", dir=state_dir)
    try:
        os.fchmod(fd, PRIVATE_FILE_MODE)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, state_dir / REGISTRY_CACHE)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def read_registry_cache(state_dir: Path) -> RegistryCache | None:
    """The cache in ``state_dir``; None when there is none yet.  ``ValueError`` when it
    cannot be read."""
    try:
        data = (state_dir / REGISTRY_CACHE).read_bytes()
    except FileNotFoundError:
        return None
    try:
        return msgspec.json.decode(data, type=RegistryCache)
    except msgspec.DecodeError as exc:
        raise ValueError(
            f"the registry cache {state_dir / REGISTRY_CACHE} is damaged ({exc}); the daemon "
            "writes it again when the registry changes"
        ) from None
