"""The comment-wake daemon and what reads its records: ``status``, ``explain``, ``doctor``.

``Daemon`` assembles the monitor, the comment wake, the delivery loop, the optional
webhook hints and the periodic prune from one ``AppConfig``; ``RecordingSink`` keeps every
decision with its evidence in the store, which ``read_status`` and ``explain_comment`` read
back (short WAL reads, safe while the daemon runs).
"""

from ._daemon import DAEMON_STATE_KEY, HINT_DELAY, Daemon, DaemonState, PollFigures
from ._recorder import ItemIndex, Observer, PermissionLog, RecordingSink
from ._records import (
    DECISIONS,
    DecisionRecord,
    PermissionEvidence,
    RateEvidence,
    decode_record,
    namespace_of,
)

__all__ = [
    "DAEMON_STATE_KEY",
    "DECISIONS",
    "HINT_DELAY",
    "Daemon",
    "DaemonState",
    "DecisionRecord",
    "ItemIndex",
    "Observer",
    "PermissionEvidence",
    "PermissionLog",
    "PollFigures",
    "RateEvidence",
    "RecordingSink",
    "decode_record",
    "namespace_of",
]
