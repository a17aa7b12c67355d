"""GitHub's hourly rate-limit budget and the ``x-ratelimit-*`` headers it answers with."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

__all__ = ["Budget"]

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
