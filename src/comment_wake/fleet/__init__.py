"""Fleet mode: many hosts' daemons on one PostgreSQL store and one GitHub identity.

``[store] url`` selects PostgreSQL (``StoreConfig``); ``[fleet]`` names this host
(``FleetConfig``, ``host_identity``).  docs/fleet.md has the whole story.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from comment_wake._lazy import lazy_exports

if TYPE_CHECKING:
    from ._config import FleetConfig, StoreConfig
    from ._host import HOST_ID_FILE, HostIdentity, host_identity, known_host_id
    from ._janitor import HOST_LOST, Janitor, JanitorMove, janitor_moves, lost_hosts
    from ._lease import HostLease, host_lease_name, open_host_lease

__all__ = [
    "HOST_ID_FILE",
    "HOST_LOST",
    "FleetConfig",
    "HostIdentity",
    "HostLease",
    "Janitor",
    "JanitorMove",
    "StoreConfig",
    "host_identity",
    "host_lease_name",
    "janitor_moves",
    "known_host_id",
    "lost_hosts",
    "open_host_lease",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    globals(),
    {
        "._config": ("FleetConfig", "StoreConfig"),
        "._host": ("HOST_ID_FILE", "HostIdentity", "host_identity", "known_host_id"),
        "._janitor": ("HOST_LOST", "Janitor", "JanitorMove", "janitor_moves", "lost_hosts"),
        "._lease": ("HostLease", "host_lease_name", "open_host_lease"),
    },
)
