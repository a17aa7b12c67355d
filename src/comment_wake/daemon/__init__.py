"""The comment-wake daemon: the app (``comment_wake.app``) run as a process, and ``doctor``.

``Daemon`` opens the app from one ``AppConfig`` and runs it until SIGTERM or SIGINT;
``status`` and ``explain`` read what it keeps in the store (``comment_wake.app``).
"""

from ._daemon import Daemon

__all__ = ["Daemon"]
