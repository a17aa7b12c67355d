"""The comment-wake daemon: the app (``comment_wake.app``) run as a process, and ``doctor``.

``Daemon`` opens the app from one ``AppConfig`` and runs it until SIGTERM or SIGINT;
``status`` and ``explain`` read what it keeps in the store (``comment_wake.app``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from comment_wake._lazy import lazy_exports

if TYPE_CHECKING:
    from ._daemon import Daemon

__all__ = ["Daemon"]

__getattr__, __dir__ = lazy_exports(
    __name__,
    globals(),
    {
        "._daemon": ("Daemon",),
    },
)
