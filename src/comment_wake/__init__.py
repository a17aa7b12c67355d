"""comment-wake: a trusted person's comment on a pull request wakes the agent that owns it.

The names below are the entry points a session manager embedding comment-wake needs; each
subpackage (``wake``, ``service``, ``ownpost``, ``delivery``, ``registry``, ``daemon``,
``config``, ``hints``, ``replay``) has its own fuller API.  They load on first use, so
``import comment_wake`` (and the command line) stays cheap.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .config import AppConfig, load_config
    from .daemon import Daemon
    from .delivery import CallbackPublisher, DeliveryLoop, InboxPublisher, take
    from .registry import Registry
    from .service import CommentWake
    from .wake import PR_REVIEW_MONITOR_TOOL_DESCRIPTION, WORKER_PROMPT, WakeConfig

__all__ = [
    "PR_REVIEW_MONITOR_TOOL_DESCRIPTION",
    "WORKER_PROMPT",
    "AppConfig",
    "CallbackPublisher",
    "CommentWake",
    "Daemon",
    "DeliveryLoop",
    "InboxPublisher",
    "Registry",
    "WakeConfig",
    "load_config",
    "take",
]

_HOME = {
    "PR_REVIEW_MONITOR_TOOL_DESCRIPTION": "wake",
    "WORKER_PROMPT": "wake",
    "AppConfig": "config",
    "CallbackPublisher": "delivery",
    "CommentWake": "service",
    "Daemon": "daemon",
    "DeliveryLoop": "delivery",
    "InboxPublisher": "delivery",
    "Registry": "registry",
    "WakeConfig": "wake",
    "load_config": "config",
    "take": "delivery",
}


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module 'comment_wake' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{home}", __name__), name)
    globals()[name] = value
    return value
