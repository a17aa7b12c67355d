"""The composition root: ``open_app`` builds comment-wake from a config and injected parts.

The daemon, the replay, the demo, the test rigs and a session manager that embeds
comment-wake all build it here (docs/embedding.md).  ``App.status()`` and
``App.explain()`` answer in-process what ``comment-wake status --json`` and
``comment-wake explain --json`` print.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from comment_wake._lazy import lazy_exports

if TYPE_CHECKING:
    from ._explain import Explanation, RuleLine
    from ._refusal import REFUSED_FOR, REFUSED_ROUNDS, TokenRefusedError
    from ._root import DRY_RUN_NEEDS_SQLITE, HINT_DELAY, App, open_app, open_monitor
    from ._state import DAEMON_STATE_KEY, DaemonState, FaultLine, PollFigures
    from ._status import (
        HostLeaseLine,
        InboxLine,
        ParkedLine,
        PrStatusLine,
        QueueLine,
        StatusReport,
    )

__all__ = [
    "DAEMON_STATE_KEY",
    "DRY_RUN_NEEDS_SQLITE",
    "HINT_DELAY",
    "REFUSED_FOR",
    "REFUSED_ROUNDS",
    "App",
    "DaemonState",
    "Explanation",
    "FaultLine",
    "HostLeaseLine",
    "InboxLine",
    "ParkedLine",
    "PollFigures",
    "PrStatusLine",
    "QueueLine",
    "RuleLine",
    "StatusReport",
    "TokenRefusedError",
    "open_app",
    "open_monitor",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    globals(),
    {
        "._explain": ("Explanation", "RuleLine"),
        "._refusal": ("REFUSED_FOR", "REFUSED_ROUNDS", "TokenRefusedError"),
        "._root": ("DRY_RUN_NEEDS_SQLITE", "HINT_DELAY", "App", "open_app", "open_monitor"),
        "._state": ("DAEMON_STATE_KEY", "DaemonState", "FaultLine", "PollFigures"),
        "._status": (
            "HostLeaseLine",
            "InboxLine",
            "ParkedLine",
            "PrStatusLine",
            "QueueLine",
            "StatusReport",
        ),
    },
)
