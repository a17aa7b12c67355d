"""The comment-wake service: the async shell that runs the wake core on every badge poll.

``CommentWake`` is a ``review_monitor`` listener named ``"comment-wake"``; its ``run()``
task serves the permission-retry and rate-limit timers.  Bindings and transcripts come
from a ``BindingSource``; decisions, wakes and log lines go to a ``WakeSink``.
"""

from ._ports import NO_EVIDENCE, BindingSource, WakeSink
from ._service import LISTENER_NAME, CommentWake

__all__ = ["LISTENER_NAME", "NO_EVIDENCE", "BindingSource", "CommentWake", "WakeSink"]
