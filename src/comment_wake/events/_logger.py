"""``EventLogger``: the app's log lines, written from its events (a subscriber).

The composition root subscribes one, so the JSON log (or the readable one) is made of
the same events every other subscriber gets.  Each decision is one line on
``comment_wake.service`` with the PR, the comment's node id, the outcome and the reason;
each wake one line with the worker, how many comments and the notice key; each poll
round one line on ``review_monitor.poll`` with the monitor's figures and the wakes since
the previous round.  The same facts are fields of the record (``extra=``, so the JSON
formatter writes them as keys): ``event`` (the event's type tag), ``pr``, ``host``,
``comment``, ``database_id``, ``outcome``, ``reason``, ``worker``, ``notice_key`` for a
decision; ``event``, ``pr``, ``host``, ``worker``, ``notice_key``, ``comments`` (how
many) for a wake; ``wakes`` for a round.  Never an author, never any text read from
GitHub: the events carry none.
"""

from __future__ import annotations

import logging

from review_monitor import PollRound, describe_event

from ._model import CommentDecided, Event, Noted, NoticeQueued

__all__ = ["EventLogger"]

_wake_log = logging.getLogger("comment_wake.service")
_poll_log = logging.getLogger("review_monitor.poll")


class EventLogger:
    def __init__(self) -> None:
        self._wakes = 0

    def __call__(self, event: Event) -> None:
        if isinstance(event, CommentDecided):
            detail = f": {event.detail}" if event.detail else ""
            _wake_log.info(
                "%s %s: %s (%s)%s",
                event.pr,
                event.comment,
                event.outcome,
                event.reason,
                detail,
                extra={
                    "event": "decided",
                    "pr": str(event.pr),
                    "host": event.pr.host,
                    "comment": event.comment,
                    "database_id": event.database_id,
                    "outcome": event.outcome,
                    "reason": event.reason,
                    "worker": event.worker,
                    "notice_key": event.notice_key,
                },
            )
        elif isinstance(event, NoticeQueued):
            self._wakes += 1
            _wake_log.info(
                "%s: woke worker %s with %d comment(s), notice %s",
                event.pr,
                event.worker,
                len(event.comments),
                event.notice_key[:12],
                extra={
                    "event": "queued",
                    "pr": str(event.pr),
                    "host": event.pr.host,
                    "worker": event.worker,
                    "notice_key": event.notice_key,
                    "comments": len(event.comments),
                },
            )
        elif isinstance(event, Noted):
            level = logging.WARNING if event.level == "warning" else logging.INFO
            _wake_log.log(level, "%s", event.message)
        elif isinstance(event, PollRound):
            wakes, self._wakes = self._wakes, 0
            _poll_log.info(
                "%s; %d wake(s) since the last round",
                describe_event(event),
                wakes,
                extra={"wakes": wakes},
            )
