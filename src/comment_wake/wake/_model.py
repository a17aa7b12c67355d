"""What goes into the core and what comes out of it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal, Protocol

import msgspec

from review_monitor import GapRead, ItemDetail, LookupFailed, Notice, PermissionAnswer, PrRef

from ._mark import WakeMark

__all__ = [
    "Binding",
    "Connection",
    "Decision",
    "Facts",
    "GapNeed",
    "KnownPosts",
    "LogLine",
    "Needs",
    "Outcome",
    "OwnPostVerdict",
    "Reason",
    "Step",
    "Trigger",
]

Trigger = Literal["any", "mention"]
"""What wakes a worker: ``any`` comment that passes the rules, or only one that mentions
the binding's handle (``mention``)."""

Outcome = Literal["wake", "held", "retry", "skip", "drop"]
"""What a decision did: ``wake``, ``held`` (rate limit), ``retry`` (lookup), ``skip`` or
``drop``."""

# Skip reasons in the order the rules run (each rule's reasons in ``RULES``, in the table's
# order, between the reasons decided before the rules and the rest; a test checks they
# agree), then the reasons of the other outcomes.
Reason = Literal[
    "baseline",
    "unbound",
    "pr-closed",
    "no-author",
    "minimized",
    "bot",
    "trusted-bot",  # wake: an issue comment by a bot in ``trusted_bots``
    "verdict",
    "own-post",
    "deleted",
    "blank",
    "skip-marker",
    "not-mentioned",
    "rereview-command",
    "invalid-login",
    "not-writer",
    "lookup-failed",
    "flood-gap",
    "writer",  # wake: written by a person with write access
    "rate-limit",  # held
    "operator-release",  # wake: held, and released by ``comment-wake release``
]
"""Why: the rule that stopped the comment, or ``writer`` / ``trusted-bot`` /
``rate-limit`` / ``operator-release`` (docs/trust-rules.md)."""

Connection = Literal["comments", "reviews"]
"""A PR's two listings the badge reads: issue comments and reviews."""


class Binding(msgspec.Struct, frozen=True):
    """Who owns a PR: the worker that watches it, and whether it may be woken."""

    pr: PrRef
    worker: str | None  # None: no worker is bound
    spawned_by: str | None = None  # the orchestrator that spawned the worker
    archived: bool = False
    watched: bool = True  # watched with pr_review_monitor
    # When the watch began, as its identity: a mark written under another watch (the PR
    # was unwatched, or its worker archived, in between) starts again from a baseline.
    watched_since: datetime | None = None
    # The binding's trigger mode and mention handle (``bind --trigger``, ``--handle``);
    # None: the ``[wake]`` table's.
    trigger: Trigger | None = None
    handle: str | None = None
    post_tools: bool = False  # its notices name ``reply`` (docs/notice.md)

    @property
    def is_bound(self) -> bool:
        """Bound to a live worker that an orchestrator spawned, and watched."""
        return (
            self.worker is not None
            and self.spawned_by is not None
            and not self.archived
            and self.watched
        )


class Decision(msgspec.Struct, frozen=True):
    """What happened to one comment or review, as the replay output prints it."""

    at: datetime
    pr: PrRef
    comment: str  # the item's GraphQL id; a review's inline comments travel with it
    outcome: Outcome
    reason: Reason
    detail: str = ""
    # The names of the trust rules (``RULES``) the comment passed, in order: empty for a
    # decision made before the rules (baseline); every rule for one held, woken or dropped
    # after passing them all.  A rule after these stopped it, unless every rule is here.
    rules: tuple[str, ...] = ()


class LogLine(msgspec.Struct, frozen=True):
    """A log line.  A warning never carries an author or any text from GitHub."""

    level: Literal["info", "warning"]
    message: str


class FloodGap(msgspec.Struct, frozen=True, kw_only=True, tag="flood-gap"):
    """A span of one connection that no look read: a flood pushed comments out of the
    listing, and the gap read could not reach back over it (its bound, the hourly cap, or
    the read turned off).  A comment created in it and never listed is never decided
    (the floor rule); this record is what ``status`` and ``explain`` show for it."""

    at: datetime
    pr: PrRef
    connection: Connection
    start: datetime | None  # where the read had to reach back to; None: unknown
    end: datetime  # the listing is whole from here
    pages_read: int
    pages_allowed: int
    reason: Literal["flood-gap"] = "flood-gap"
    # Fleet mode: the read was deferred (its pages beyond the first refused by the gap
    # bucket or a low shared budget); the span stays above the floor and a later look
    # reads it, so nothing in it is lost.
    deferred: bool = False


class GapNeed(msgspec.Struct, frozen=True):
    """Read ``connection`` backwards from ``cursor`` until ``stop`` or ``max_pages`` pages."""

    connection: Connection
    cursor: str
    stop: datetime
    max_pages: int


class Needs(msgspec.Struct, frozen=True):
    """The reads the service must still do before the step can finish."""

    details: tuple[str, ...] = ()  # item ids needing a detail read
    # Item ids read to their first page of inline comments (``ItemDetail.more_inline``)
    # whose whole text is needed now: a writer's review, after ``write-access``.
    rest: tuple[str, ...] = ()
    own_posts: tuple[str, ...] = ()  # item ids needing an own-post verdict
    permissions: tuple[str, ...] = ()  # logins, lower-cased, needing a permission lookup
    gaps: tuple[GapNeed, ...] = ()
    # Held comments to read once more before their release, in one fresh detail query
    # (never served from an earlier read).
    rereads: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(
            self.details
            or self.rest
            or self.own_posts
            or self.permissions
            or self.gaps
            or self.rereads
        )


class OwnPostVerdict(Protocol):
    """The own-post matcher's answer for one comment."""

    @property
    def own(self) -> bool: ...

    @property
    def explanation(self) -> str: ...


@dataclass(frozen=True, slots=True)
class KnownPosts:
    """The posts the worker tools made on this PR, as the ``own-post-id`` rule reads them:
    ``ids`` maps each recorded node id to its post's tool and key, ``reviews`` the
    database id of each review GitHub made to hold a reply in a review thread; ``intents``
    maps the key of each post whose id is not recorded yet to its tool and body hash."""

    ids: Mapping[str, tuple[str, str]] = field(default_factory=dict)
    reviews: Mapping[int, tuple[str, str]] = field(default_factory=dict)
    intents: Mapping[str, tuple[str, str]] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Facts:
    """What the service has read so far for this step.

    ``gone`` holds ids whose detail read found nothing (deleted since the badge).
    ``own_post_state``, when given, replaces the matcher's opaque state in the mark.
    ``rereads`` holds the fresh detail of each held comment read again at its release
    (None: deleted since).
    """

    details: Mapping[str, ItemDetail] = field(default_factory=dict)
    gone: frozenset[str] = frozenset()
    own_posts: Mapping[str, OwnPostVerdict] = field(default_factory=dict)
    permissions: Mapping[str, PermissionAnswer | LookupFailed] = field(default_factory=dict)
    gaps: Mapping[Connection, GapRead] = field(default_factory=dict)
    own_post_state: bytes | None = None
    rereads: Mapping[str, ItemDetail | None] = field(default_factory=dict)
    posts: KnownPosts = KnownPosts()
    # Fleet mode: the connections whose gap read stopped short because its pages beyond
    # the first were refused (the identity's gap bucket, or a low shared budget).  Such a
    # gap is deferred, not given up: the floor stays below it and a later look reads it.
    deferred_gaps: frozenset[Connection] = frozenset()


class Step(msgspec.Struct, frozen=True):
    """One step's result.

    While ``needs`` is non-empty nothing else is final: ``mark`` is the mark passed in
    (unchanged) and there are no decisions, notices or logs.  The service performs the
    reads, adds them to the facts and calls ``step`` again.
    """

    mark: WakeMark
    decisions: tuple[Decision, ...] = ()
    notices: tuple[Notice, ...] = ()
    logs: tuple[LogLine, ...] = ()
    gaps: tuple[FloodGap, ...] = ()
    needs: Needs = Needs()

    @property
    def done(self) -> bool:
        return not self.needs
