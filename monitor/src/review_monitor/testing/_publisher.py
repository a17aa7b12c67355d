"""An in-memory ``Publisher`` for tests: records every attempt, answers as scripted."""

from __future__ import annotations

from collections import deque

import msgspec

from review_monitor._notice import Notice
from review_monitor._publisher import Busy, Delivered, Gone, PublishOutcome, Refused

__all__ = ["InMemoryPublisher", "PublishAttempt"]


class PublishAttempt(msgspec.Struct, frozen=True):
    """One call of ``publish``: the notice and the outcome it got."""

    notice: Notice
    outcome: PublishOutcome


class InMemoryPublisher:
    """Answers ``Delivered()`` unless scripted otherwise.

    ``script(...)`` queues outcomes (or exceptions to raise) answered in order, one per
    ``publish`` call; when the queue is empty the default outcome is used again.
    """

    def __init__(self, default: PublishOutcome | None = None) -> None:
        self.default: PublishOutcome = default if default is not None else Delivered()
        self.attempts: list[PublishAttempt] = []
        self.raised: list[tuple[Notice, BaseException]] = []
        self._script: deque[PublishOutcome | BaseException] = deque()

    def script(self, *answers: PublishOutcome | BaseException) -> None:
        self._script.extend(answers)

    def busy(self, times: int = 1, reason: str = "mid-turn") -> None:
        self.script(*[Busy(reason)] * times)

    def gone(self, reason: str = "session ended") -> None:
        self.script(Gone(reason))

    def refused(self, reason: str = "bad configuration") -> None:
        self.script(Refused(reason))

    @property
    def delivered(self) -> list[Notice]:
        """Notices that were answered ``Delivered``, in order."""
        return [a.notice for a in self.attempts if isinstance(a.outcome, Delivered)]

    @property
    def delivered_keys(self) -> list[str]:
        return [n.key for n in self.delivered]

    async def publish(self, notice: Notice) -> PublishOutcome:
        answer = self._script.popleft() if self._script else self.default
        if isinstance(answer, BaseException):
            self.raised.append((notice, answer))
            raise answer
        self.attempts.append(PublishAttempt(notice, answer))
        return answer
