"""comment-wake: a trusted person's comment on a pull request wakes the agent that owns it.

The names below are the entry points a session manager embedding comment-wake needs
(docs/embedding.md): ``open_app`` builds and opens the whole app; each subpackage
(``app``, ``events``, ``wake``, ``service``, ``ownpost``, ``delivery``, ``registry``,
``daemon``, ``config``, ``hints``, ``replay``) has its own fuller API.  They load on first use, so
``import comment_wake`` (and the command line) stays cheap.
"""

from __future__ import annotations

# Nothing is imported at run time: the ``comment-wake`` script imports this package before
# its entry point can catch Ctrl-C (``__main__.run``), so the less it loads, the shorter the
# moment in which Ctrl-C prints a traceback (issue 25, item 18).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from .app import App, open_app
    from .config import AppConfig, load_config, parse_config
    from .daemon import Daemon
    from .delivery import take
    from .events import Event
    from .registry import CallbackSpec, Registry
    from .wake import PR_REVIEW_MONITOR_TOOL_DESCRIPTION, WORKER_PROMPT

__all__ = [
    "PR_REVIEW_MONITOR_TOOL_DESCRIPTION",
    "WORKER_PROMPT",
    "App",
    "AppConfig",
    "CallbackSpec",
    "Daemon",
    "Event",
    "Registry",
    "load_config",
    "open_app",
    "parse_config",
    "take",
]

_HOME = {
    "PR_REVIEW_MONITOR_TOOL_DESCRIPTION": "wake",
    "WORKER_PROMPT": "wake",
    "App": "app",
    "AppConfig": "config",
    "CallbackSpec": "registry",
    "Daemon": "daemon",
    "Event": "events",
    "Registry": "registry",
    "load_config": "config",
    "open_app": "app",
    "parse_config": "config",
    "take": "delivery",
}


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module 'comment_wake' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f".{home}", __name__), name)
    globals()[name] = value
    return value
