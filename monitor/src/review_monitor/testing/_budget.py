"""GitHub's hourly rate-limit budget, the ``x-ratelimit-*`` headers it answers with, and the
secondary limit on content creation."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from datetime import datetime, timedelta

__all__ = ["Budget", "ContentLimit"]

_HOUR = timedelta(hours=1)


@dataclass
class Budget:
    limit: int
    used: int = 0
    reset_at: datetime | None = None

    def roll(self, now: datetime) -> None:
        """Start a new hour if the last one is over (or none has started)."""
        if self.reset_at is None or now >= self.reset_at:
            self.used = 0
            self.reset_at = now + _HOUR

    @property
    def remaining(self) -> int:
        return max(0, self.limit - self.used)

    def headers(self, resource: str) -> dict[str, str]:
        reset = int(self.reset_at.timestamp()) if self.reset_at else 0
        return {
            "x-ratelimit-limit": str(self.limit),
            "x-ratelimit-remaining": str(self.remaining),
            "x-ratelimit-used": str(self.used),
            "x-ratelimit-reset": str(reset),
            "x-ratelimit-resource": resource,
        }


_MINUTE = timedelta(minutes=1)


@dataclass
class ContentLimit:
    """GitHub's secondary limit on content creation: at most ``per_minute`` content-creating
    requests in any minute and ``per_hour`` in any hour (GitHub documents 80 and 500).
    FakeGitHub counts the creations it made (a refused request makes nothing)."""

    per_minute: int = 80
    per_hour: int = 500
    made: deque[datetime] = field(default_factory=deque)

    def wait(self, now: datetime) -> timedelta | None:
        """How long until one more creation is allowed; None when it is allowed now."""
        while self.made and self.made[0] <= now - _HOUR:
            self.made.popleft()
        waits: list[timedelta] = []
        if len(self.made) >= self.per_hour:
            waits.append(self.made[-self.per_hour] + _HOUR - now)
        in_minute = [t for t in self.made if t > now - _MINUTE]
        if len(in_minute) >= self.per_minute:
            waits.append(in_minute[-self.per_minute] + _MINUTE - now)
        return max(waits) if waits else None

    def count(self, now: datetime) -> None:
        self.made.append(now)
