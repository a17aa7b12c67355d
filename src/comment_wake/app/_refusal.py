"""When a refused token stops the app: pure logic fed by the poll's events.

A token GitHub refuses (401) does not get better by asking again, and a daemon that
polls with one forever only fills its log.  ``TokenRefusal`` watches the ``Fault`` and
``PollRound`` events: once the badge poll was refused in ``REFUSED_ROUNDS`` poll rounds
in a row, or has been refused for ``REFUSED_FOR``, it says so, and the composition root
stops the app with ``TokenRefusedError`` (``comment-wake run`` exits 2 with its message).

A round in which some badge batch was read resets the count; a round that failed for
another reason (a 5xx, a timeout) neither counts nor resets it.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from comment_wake.events import Event
from review_monitor import AuthError, Fault, PollRound

__all__ = ["REFUSED_FOR", "REFUSED_ROUNDS", "TokenRefusal", "TokenRefusedError"]

REFUSED_ROUNDS = 3
"""Poll rounds in a row refused with 401 that stop the app."""

REFUSED_FOR = timedelta(minutes=2)
"""How long refusals may go on, however few rounds that was, before the app stops."""


class TokenRefusedError(AuthError):
    """GitHub kept refusing the token (401): the app stopped.  The message names the host
    and says what to fix; it never carries the token."""

    def __init__(self, host: str, *, since: datetime, rounds: int) -> None:
        self.host = host
        self.since = since
        self.rounds = rounds
        super().__init__(
            f"GitHub at {host} refused the token (HTTP 401 in {rounds} poll round(s) since "
            f"{since.strftime('%Y-%m-%d %H:%M:%SZ')}); the daemon stopped: fix GH_TOKEN, "
            "GITHUB_TOKEN or `gh auth token` and start it again"
        )


class TokenRefusal:
    """Feed it every event (``see``); it answers True once the token counts as refused."""

    def __init__(self, *, rounds: int = REFUSED_ROUNDS, lasting: timedelta = REFUSED_FOR) -> None:
        self._limit = rounds
        self._lasting = lasting
        self._in_round = False  # this round had a refusal
        self.rounds = 0  # rounds in a row with a refusal
        self.since: datetime | None = None  # the first refusal of the streak

    def see(self, event: Event) -> bool:
        """Take one event; True when the app must stop (and for every event after)."""
        if isinstance(event, Fault) and event.kind == "auth":
            self._in_round = True
            if self.since is None:
                self.since = event.at
        elif isinstance(event, PollRound):
            if self._in_round:
                self.rounds += 1
            elif event.batches > event.failed_batches or event.swept:
                self.rounds, self.since = 0, None
            self._in_round = False
        return self.refused(event.at)

    def refused(self, now: datetime) -> bool:
        """Whether the token counts as refused at ``now``."""
        if self.since is None:
            return False
        return self.rounds >= self._limit or now - self.since >= self._lasting
