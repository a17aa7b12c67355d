"""The comment-wake core: pure, no I/O, the time is an argument.

Theory of operation
-------------------
``step`` is called with a PR's badge (on every poll, and on a timer with the last
badge) and returns the PR's new mark, the decisions, the notices and the reads it
still needs.  The service does those reads and calls ``step`` again with more facts;
only a step whose ``needs`` is empty is final.  Reads are asked for only when a rule
needs them, in the rules' order, so a bot costs no detail read and a blank comment no
permission lookup.

What is new (docs/trust-rules.md, "What counts as new").  Everything created at or
before the floor is old and never decided again.  Above the floor every comment
decided for good is kept by id (``handled``), so a comment is new when it is above the
floor and unknown.  The floor trails the newest handled comment by ``floor_lag``, the
grace for a comment GitHub lists late; when more than ``handled_capacity`` comments
are handled above it, it rises until that many remain, so the id set stays bounded and
a flood-and-delete can never replay a forgotten comment.  The seen set itself (what is
new, the floor's rise, the kept ids, the retry schedule) is ``review_monitor``'s, shared
with the monitor's notices (``unseen``, ``settle_seen``, ``lag_floor``, ``retry_delay``).

Floods.  A connection that came back full (``has_previous_page``) is whole only from
its oldest listed item.  When that is after the floor, and not continuous with what the
last look saw for good (everything it listed, less the ``floor_lag`` in which GitHub may
still list a comment late), the core asks for a gap read back to where that look saw
everything, and never below the floor.  The read is bounded by ``gap_pages`` pages of 100
at the configured poll interval, scaled up with the interval in force (the budget
governor may stretch it, and more can be posted between two polls), and by what is left
of ``gap_pages_per_hour`` on this PR (the mark keeps the last hour's spend).  Only one
connection's gap is asked for at a time, so the two share what is left of the hour.
When the gap cannot be read (``gap_pages = 0``, the seed's behaviour) or the bound is
hit, the new comments listed are decided first, and only then does the floor rise to
where the listing is whole, stopping just below the oldest comment decided in this step
(P8): a comment listed but older than where another full window starts is still
delivered, and a comment pushed out unseen is never delivered later.  A bound hit is a
warning with the pages and comments read, the bound, the hour's spend and the times the
read reached and should have reached; with the read off it is the seed's info line.
In fleet mode the service may defer a gap read after its first page (``Facts.deferred_gaps``:
the identity's gap bucket or shared budget refused the next page).  A deferred read is not
a bound hit: nothing is pushed out, the floor stays below where the read had to reach
(keeping up to ``_DEFERRED_CAPACITY`` times ``handled_capacity`` ids meanwhile), the
connection keeps its last proof so the next look asks for the same read, the span is
recorded as a deferred ``FloodGap``, and the mark's ``gap_retry_at`` brings a timed look
one poll interval later.

Trust.  Each new comment runs through the rules table (``_rules.RULES``) in order: bound,
open, author, minimized, bot, verdict, exists, blank, skip-marker, mention, rereview,
own-post, login, write access, then shown.  The bot rule passes a trusted bot's issue
comment with a note (``trusted-bot``), which the wake carries as its reason and which
puts the comment in the bots' rate-limit lane.  A review read to its first page may pass
the text rules (blank, skip-marker, mention) on that page alone; they decide again once
it is read whole.  Each rule declares the reads it may ask for, so the detail is read
just before the first rule that needs it; the decision records the names of the rules
the comment passed.  The permission answer's ``trusted`` is the one trust decision.  A
failed lookup is retried on ``permission_retries`` (kept in the mark with the comment's
detail, never read again; the retry resumes at the write-access rule) and given up with
one warning that names neither author nor text.

Rate limit.  Trusted comments wake the worker at once when the PR's wake times allow,
together with any held ones; otherwise they are held and go out together later.  People
and trusted bots have a lane each, with its own wake times (``wakes``, ``bot_wakes``) and
caps: one lane held never holds the other, and a wake counts in people's windows when it
carries a person's comment, else in the bots'.
Held comments are dropped when the PR merges or closes; pending retries pause while
the PR is not eligible and resume when it is again.  A wake time recorded after ``now``
(the clock stepped backwards) counts as made ``now``, so the wait it causes is bounded
by the windows' lengths.

Release.  When the rate limit lets held comments go (or an operator releases them,
``release=True``), they are read once more first, in one fresh detail query
(``Needs.rereads``), and run through the rules again with what that read found: deleted
is ``drop`` (``deleted``), minimized ``skip`` (``minimized``), an edit wakes with the
current text, and the permission rule asks again (the service's cache answers only
within its lifetime).  The own-post rule is not asked again: it judged how the comment
was posted.  A lookup that fails then keeps the comment held, retried on
``permission_retries``; a failed re-read commits nothing, so it stays held.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

import msgspec

from review_monitor import BadgeItem, ItemDetail, MonitorConfig, Notice, PageInfo, PrStatus
from review_monitor.seen import (
    Seen,
    history_until,
    lag_floor,
    retry_delay,
    settle_seen,
    unseen,
)

from ._config import WakeConfig
from ._mark import GapSpend, Handled, Held, Pending, WakeMark
from ._model import (
    Binding,
    Connection,
    Decision,
    Facts,
    FloodGap,
    GapNeed,
    LogLine,
    Needs,
    Outcome,
    Reason,
    Step,
)
from ._rate import prune_wakes, release_at
from ._render import build_notices
from ._rules import RULE_NAMES, RULES, Ask, Failed, Note, Stop, Subject, closed_detail

__all__ = ["finish", "next_due", "step"]

_TICK = timedelta(microseconds=1)
_NO_FACTS = Facts()
_HOUR = timedelta(hours=1)
_MIN_GAP_RETRY = timedelta(seconds=10)  # a deferred gap read waits at least this
_DEFERRED_CAPACITY = 16  # times ``handled_capacity`` kept by id while a gap waits


# The rules every trusted comment passed (it is held or woken only after all of them), and
# where a comment waiting for a permission retry resumes: the first rule whose read can
# fail, with every rule before it passed.
_ALL_PASSED = RULE_NAMES
_RETRY_FROM = next(i for i, r in enumerate(RULES) if "permission" in r.needs)
_PASSED_BEFORE_RETRY = RULE_NAMES[:_RETRY_FROM]


# What one run of the rules says about one comment; ``rules`` the names it passed.
@dataclass(frozen=True, slots=True)
class _Skip:
    reason: Reason
    detail: str = ""
    rules: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class _Need:
    details: str | None = None
    rest: str | None = None
    own_post: str | None = None
    permission: str | None = None
    reread: str | None = None


@dataclass(frozen=True, slots=True)
class _Trusted:
    detail: ItemDetail
    trusted_bot: bool = False  # the bot rule passed it as a trusted bot's


@dataclass(frozen=True, slots=True)
class _Failed:
    detail: ItemDetail
    status: int | None
    rules: tuple[str, ...] = ()


class _Gone:
    """Deleted between the badge and the detail read: nothing to decide."""


_Judged = _Skip | _Need | _Trusted | _Failed | _Gone


@dataclass(slots=True)
class _Ctx:
    binding: Binding
    status: PrStatus
    facts: Facts
    config: WakeConfig
    monitor: MonitorConfig
    now: datetime
    operator: bool = False  # an operator's release request (``comment-wake release``)
    interval: timedelta | None = None
    decisions: list[tuple[BadgeItem, Decision]] = field(default_factory=list)
    logs: list[LogLine] = field(default_factory=list)
    # The ids of the comments trusted in this step as trusted bots' (their own windows).
    bots: set[str] = field(default_factory=set)

    @property
    def eligible(self) -> bool:
        return self.binding.is_bound and self.status.is_open

    def decide(
        self,
        item: BadgeItem,
        outcome: Outcome,
        reason: Reason,
        detail: str = "",
        rules: tuple[str, ...] = (),
    ) -> None:
        decision = Decision(self.now, self.status.pr, item.id, outcome, reason, detail, rules)
        self.decisions.append((item, decision))


def step(
    binding: Binding,
    mark: WakeMark | None,
    status: PrStatus | None,
    facts: Facts = _NO_FACTS,
    *,
    config: WakeConfig,
    monitor: MonitorConfig,
    now: datetime,
    rng: random.Random | None = None,
    release: bool = False,
    interval: timedelta | None = None,
) -> Step:
    """Work out one PR at ``now`` from its badge and what has been read so far.

    ``status`` None (no badge yet) changes nothing.  ``rng`` draws the fence nonces;
    pass a seeded one for a deterministic replay, None for ``secrets``.  ``release``: an
    operator asked to release the held comments now; they go out whatever the rate limit
    says (reason ``operator-release``), after the same re-read as any release, and the
    wake counts in the PR's windows.
    ``interval`` is the poll interval in force (the budget governor's, which may be
    stretched); the gap read's bound grows with it.  None: the configured ``poll_interval``.
    """
    mark = mark if mark is not None else WakeMark()
    if status is None:
        return Step(mark=mark)
    if status.pr != binding.pr:
        raise ValueError(f"the badge is for {status.pr} but the binding is for {binding.pr}")
    ctx = _Ctx(binding, status, facts, config, monitor, now, interval=interval, operator=release)
    if not mark.baseline_done:
        result = _first_look(ctx, mark, rng)
    elif _watched_again(binding, mark):
        result = _rebaseline(ctx, mark, rng)
    else:
        result = _look(ctx, mark, rng)
    if result.done and result.mark.watched_since != binding.watched_since:
        # Remember which watch this mark belongs to (an identity, compared for equality
        # only, so clocks that disagree or step back never matter).
        kept = msgspec.structs.replace(result.mark, watched_since=binding.watched_since)
        result = msgspec.structs.replace(result, mark=kept)
    return result


def _watched_again(binding: Binding, mark: WakeMark) -> bool:
    """The mark was last written under another watch than the binding's: the PR was
    unwatched (the worker's own ``pr_review_monitor unwatch``, or an archive) and is
    watched again.  A mark that names no watch (written before this was kept) or a
    binding without one is taken as the same watch."""
    return (
        binding.watched_since is not None
        and mark.watched_since is not None
        and mark.watched_since != binding.watched_since
    )


def _rebaseline(ctx: _Ctx, mark: WakeMark, rng: random.Random | None) -> Step:
    """A watch started again begins from a fresh first look at its own start, so comments
    posted while the PR was unwatched never wake its worker (only PRs bound to a live,
    watching worker fire).  Whatever the old mark still held is dropped as at the unwatch,
    when the service has not yet done so; what it decided stays decided."""
    ended = finish(ctx.binding, mark, None, config=ctx.config, now=ctx.now)
    decided = frozenset(d.comment for d in ended.decisions)
    kept = WakeMark(
        floor=ended.mark.floor,
        handled=ended.mark.handled,
        own_posts=mark.own_posts,
        wakes=mark.wakes,
        bot_wakes=mark.bot_wakes,
        gap_spent=mark.gap_spent,
    )
    fresh = _first_look(ctx, kept, rng, skip=decided)
    if not fresh.done:
        return fresh
    return msgspec.structs.replace(fresh, decisions=(*ended.decisions, *fresh.decisions))


def next_due(mark: WakeMark) -> datetime | None:
    """When ``step`` must run again with the last badge: the earliest permission retry
    or held-wake release.  None while the PR is not eligible (timers pause)."""
    if not mark.active:
        return None
    due = [p.retry_at for p in mark.pending]
    if mark.held and mark.held_until is not None:
        due.append(mark.held_until)
    if mark.gap_retry_at is not None:
        due.append(mark.gap_retry_at)
    return min(due, default=None)


def finish(
    binding: Binding,
    mark: WakeMark,
    status: PrStatus | None,
    *,
    config: WakeConfig,
    now: datetime,
) -> Step:
    """Final decisions for what the mark still holds, when the PR stops being watched:
    held comments are dropped and pending retries skipped (``pr-closed`` when the last
    badge shows the PR merged or closed, ``unbound`` otherwise)."""
    closed = status is not None and not status.is_open
    reason: Reason = "pr-closed" if closed else "unbound"
    decided = [
        (h.item, Decision(now, binding.pr, h.item.id, "drop", reason, rules=_ALL_PASSED))
        for h in mark.held
    ]
    decided += [
        (p.item, Decision(now, binding.pr, p.item.id, "skip", reason, rules=_PASSED_BEFORE_RETRY))
        for p in mark.pending
    ]
    handled = [Handled(item.id, item.created_at) for item, _ in decided]
    floor, kept = _settle(mark.floor, (), [*mark.handled, *handled], (), config)
    new_mark = msgspec.structs.replace(
        mark, floor=floor, handled=kept, held=(), held_until=None, pending=(), active=False
    )
    return Step(mark=new_mark, decisions=_ordered(decided))


# -- the first look ----------------------------------------------------------------


def _first_look(
    ctx: _Ctx, mark: WakeMark, rng: random.Random | None, skip: frozenset[str] = frozenset()
) -> Step:
    """The first look at a watch: what was created at or before its start, less the
    clock-skew allowance (``history_until``), is history, decided ``baseline``; what came
    after is new and goes through a look like any later one, as if a look at that instant
    had seen everything before it.  So a comment made between ``bind`` and the first poll
    wakes the worker, and those of days of downtime after the bind are read back within the
    gap bound and held by the rate limit as usual.  A binding with no watch time takes
    everything listed as history (``_baseline``, the seed's rule).

    ``mark`` carries what an earlier watch of the PR decided (a rebaseline): its floor and
    handled ids stay, so nothing it decided is decided again; ``skip`` are ids decided in
    this step already."""
    cutoff = history_until(ctx.binding.watched_since)
    if cutoff is None:
        return _baseline(ctx, mark, skip)
    known = skip | {h.id for h in mark.handled}
    for item in [*ctx.status.comments, *ctx.status.reviews]:
        if item.created_at <= cutoff and item.id not in known:
            ctx.decide(item, "skip", "baseline")
    start = WakeMark(
        baseline_done=True,
        floor=_max_time(cutoff, mark.floor),
        handled=mark.handled,
        own_posts=mark.own_posts,
        wakes=mark.wakes,
        bot_wakes=mark.bot_wakes,
        gap_spent=mark.gap_spent,
    )
    return _look(ctx, start, rng)


def _baseline(ctx: _Ctx, mark: WakeMark, skip: frozenset[str] | set[str] = frozenset()) -> Step:
    """Everything listed at the first look is history: decided ``baseline``, never woken
    (``skip``: ids already decided in this step)."""
    status = ctx.status
    listing = [*status.comments, *status.reviews]
    for item in listing:
        if item.id not in skip:
            ctx.decide(item, "skip", "baseline")
    newest = max((i.created_at for i in listing), default=ctx.now)
    handled = [Handled(i.id, i.created_at) for i in listing]
    whole_from = _unseen_before(status, mark)
    raises = (newest - ctx.config.floor_lag, whole_from)
    floor, kept = _settle(None, raises, handled, (), ctx.config)
    new_mark = WakeMark(
        baseline_done=True,
        floor=floor,
        handled=kept,
        comments_seen_to=_newest(status.comments, None),
        reviews_seen_to=_newest(status.reviews, None),
        comments_proven_at=ctx.now,
        reviews_proven_at=ctx.now,
        comments_listed=tuple(i.id for i in status.comments),
        reviews_listed=tuple(i.id for i in status.reviews),
        active=ctx.eligible,
        own_posts=_own_post_state(ctx, mark),
        wakes=mark.wakes,  # a watch started again keeps the PR's rate-limit windows
        bot_wakes=mark.bot_wakes,
    )
    return Step(mark=new_mark, decisions=_ordered(ctx.decisions))


def _unseen_before(status: PrStatus, mark: WakeMark) -> datetime | None:
    """Where a badge's listing becomes whole, ignoring continuity and gap reads."""
    views = [
        _oldest_if_full(status.comments, status.comments_page),
        _oldest_if_full(status.reviews, status.reviews_page),
    ]
    found = [v for v in views if v is not None]
    if found:
        return max(found)
    if not status.comments_page.has_previous_page and not status.reviews_page.has_previous_page:
        return status.person_comments_from
    return None


def _oldest_if_full(items: Sequence[BadgeItem], page: PageInfo) -> datetime | None:
    if not page.has_previous_page or not items:
        return None
    return min(i.created_at for i in items)


# -- a later look --------------------------------------------------------------------


def _look(ctx: _Ctx, mark: WakeMark, rng: random.Random | None) -> Step:
    look = _listing(ctx, mark)
    listing, whole_from = look.items, look.whole_from
    known = {h.id for h in mark.handled}
    known |= {h.item.id for h in mark.held} | {p.item.id for p in mark.pending}
    legacy = set(mark.legacy_ids)
    relearned = [Handled(i.id, i.created_at) for i in listing if i.id in legacy]
    floor = mark.floor
    before: dict[Connection, datetime | None] = {
        "comments": mark.comments_pushed_before,
        "reviews": mark.reviews_pushed_before,
    }
    new = [i for i in unseen(listing, floor, known | legacy) if not _pushed_out(i, before)]
    judged = [(item, _judge(item, ctx)) for item in new]
    retried = [(p, _judge_pending(p, ctx)) for p in mark.pending]
    due_held = _due_held(ctx, mark)
    rechecked = [(h, _recheck(h, ctx)) for h in due_held]
    needs = _needs(
        look.needs,
        [j for _, j in judged],
        [j for _, j in retried if j is not None],
        [j for _, j in rechecked],
    )
    if needs:
        return Step(mark=mark, needs=needs)

    finished: list[BadgeItem] = []
    ready: list[tuple[BadgeItem, ItemDetail]] = []
    pending: list[Pending] = []
    for item, verdict in judged:
        _apply(ctx, item, verdict, 0, finished, ready, pending)
    for p, retry in retried:
        if retry is None:
            pending.append(p)
        else:
            _apply(ctx, p.item, retry, p.failures, finished, ready, pending)
    if not ctx.status.is_open and not ctx.binding.is_bound:
        # A closed PR that nobody owns any more will not reopen into a wake.
        for p in pending:
            closed = closed_detail(ctx.status)
            ctx.decide(p.item, "skip", "pr-closed", closed, _PASSED_BEFORE_RETRY)
            finished.append(p.item)
        pending = []

    released: list[tuple[BadgeItem, ItemDetail]] = []
    rechecking = {h.item.id for h in due_held}
    still_held = [h for h in mark.held if h.item.id not in rechecking]
    for h, verdict in rechecked:
        _apply_recheck(ctx, h, verdict, finished, released, still_held)
    held, held_until, wakes, bot_wakes, notices = _wake(
        ctx, mark, still_held, released, ready, finished, rng
    )

    open_items = [h.item for h in held] + [p.item for p in pending]
    decided_now = [i for i, j in judged if not isinstance(j, _Gone)]
    gap_spent = _gap_spent(ctx, mark, look.flood_pages)
    gaps: tuple[FloodGap, ...] = ()
    if whole_from is not None and (floor is None or whole_from > floor):
        if look.hits:
            hour = sum(g.pages for g in gap_spent)
            ctx.logs.extend(_bound_line(ctx, h, hour) for h in look.hits)
        else:
            ctx.logs.append(_flood_line(floor, whole_from))
        gaps = _flood_gaps(ctx, floor, look)
        if decided_now:
            whole_from = min(whole_from, min(i.created_at for i in decided_now) - _TICK)
    else:
        whole_from = None
    if look.deferred:
        ctx.logs.extend(_deferred_line(ctx, h) for h in look.deferred.values())
        gaps = (*gaps, *_deferred_gaps(ctx, look))
        if whole_from is not None and look.hold is not None:
            whole_from = min(whole_from, look.hold)  # the deferred span stays above it
    handled = [*mark.handled, *relearned, *(Handled(i.id, i.created_at) for i in finished)]
    lagged = _lag_floor(handled, ctx.config)
    if lagged is not None and look.hold is not None:
        lagged = min(lagged, look.hold)  # the floor waits for a deferred late check
    raises = (lagged, whole_from)
    # While a deferred gap waits, the floor must stay below it, so the comments the
    # flood listed are kept by id up to ``_DEFERRED_CAPACITY`` times the usual bound
    # (past that, the floor rises as it always did, and the span is lost as a flood gap).
    capacity = ctx.config.handled_capacity * (_DEFERRED_CAPACITY if look.deferred else 1)
    new_floor, kept = _settle(floor, raises, handled, open_items, ctx.config, capacity)
    new_mark = WakeMark(
        baseline_done=True,
        floor=new_floor,
        handled=kept,
        # A deferred connection keeps what its last proof saw, so the next look finds
        # the same break in its listing and asks for the gap read again.
        comments_seen_to=(
            mark.comments_seen_to
            if "comments" in look.deferred
            else _newest(ctx.status.comments, mark.comments_seen_to)
        ),
        reviews_seen_to=(
            mark.reviews_seen_to
            if "reviews" in look.deferred
            else _newest(ctx.status.reviews, mark.reviews_seen_to)
        ),
        comments_proven_at=ctx.now if "comments" in look.proven else mark.comments_proven_at,
        reviews_proven_at=ctx.now if "reviews" in look.proven else mark.reviews_proven_at,
        comments_listed=(
            mark.comments_listed
            if "comments" in look.deferred
            else tuple(i.id for i in ctx.status.comments)
        ),
        reviews_listed=(
            mark.reviews_listed
            if "reviews" in look.deferred
            else tuple(i.id for i in ctx.status.reviews)
        ),
        late_checked_at=ctx.now if look.late_checked else mark.late_checked_at,
        comments_pushed_before=_max_time(mark.comments_pushed_before, look.pushed.get("comments")),
        reviews_pushed_before=_max_time(mark.reviews_pushed_before, look.pushed.get("reviews")),
        wakes=wakes,
        bot_wakes=bot_wakes,
        held=tuple(held),
        held_until=held_until,
        pending=tuple(pending),
        active=ctx.eligible,
        own_posts=_own_post_state(ctx, mark),
        gap_spent=gap_spent,
        gap_retry_at=_gap_retry_at(ctx) if look.deferred else None,
    )
    return Step(
        mark=new_mark,
        decisions=_ordered(ctx.decisions),
        notices=tuple(notices),
        logs=tuple(ctx.logs),
        gaps=gaps,
    )


def _pushed_out(item: BadgeItem, before: Mapping[Connection, datetime | None]) -> bool:
    limit = before["comments" if item.kind == "comment" else "reviews"]
    return limit is not None and item.created_at < limit


@dataclass(frozen=True, slots=True)
class _BoundHit:
    """A gap read that stopped at its bound before reaching ``stop``."""

    connection: Connection
    bound: int  # the pages it was allowed
    pages: int  # the pages it read
    items: int  # the items it read
    reached: datetime | None  # the oldest time it read back to
    stop: datetime  # where it had to reach
    listed_from: datetime  # the oldest item of the badge's full window


def _gap_pages(ctx: _Ctx) -> int:
    """``gap_pages`` at the configured poll interval, scaled up with the one in force."""
    base = ctx.monitor.poll_interval
    interval = ctx.interval if ctx.interval is not None else base
    if interval <= base or base <= timedelta(0):
        return ctx.config.gap_pages
    return math.ceil(ctx.config.gap_pages * (interval / base))


def _hour_spent(ctx: _Ctx, mark: WakeMark) -> tuple[GapSpend, ...]:
    return tuple(g for g in mark.gap_spent if g.at > ctx.now - _HOUR)


def _gap_spent(ctx: _Ctx, mark: WakeMark, pages: int) -> tuple[GapSpend, ...]:
    """The mark's hourly ledger of flood pages, with the ``pages`` this look read."""
    kept = _hour_spent(ctx, mark)
    return (*kept, GapSpend(ctx.now, pages)) if pages else kept


def _flood_gaps(ctx: _Ctx, floor: datetime | None, look: _Listing) -> tuple[FloodGap, ...]:
    """The spans this look leaves unread, one a connection pushed out (a badge without
    page info names no connection: its comments stand for both)."""
    hits = {h.connection: h for h in look.hits}
    pushed: dict[Connection, datetime | None] = {**look.pushed}
    if not pushed:
        pushed["comments"] = look.whole_from
    out = []
    for name, end in pushed.items():
        if end is None or (floor is not None and end <= floor):
            continue
        hit = hits.get(name)
        out.append(
            FloodGap(
                at=ctx.now,
                pr=ctx.status.pr,
                connection=name,
                start=hit.stop if hit is not None else floor,
                end=end,
                pages_read=hit.pages if hit is not None else 0,
                pages_allowed=hit.bound if hit is not None else 0,
            )
        )
    return tuple(out)


def _deferred_gaps(ctx: _Ctx, look: _Listing) -> tuple[FloodGap, ...]:
    """The spans a deferred gap read left unread for now, recorded as such."""
    return tuple(
        FloodGap(
            at=ctx.now,
            pr=ctx.status.pr,
            connection=name,
            start=hit.stop,
            end=min(hit.reached or hit.listed_from, hit.listed_from),
            pages_read=hit.pages,
            pages_allowed=hit.bound,
            deferred=True,
        )
        for name, hit in look.deferred.items()
    )


def _gap_retry_at(ctx: _Ctx) -> datetime:
    """When a deferred gap read is tried again: one poll interval on (the one in force)."""
    interval = ctx.interval if ctx.interval is not None else ctx.monitor.poll_interval
    return ctx.now + max(interval, _MIN_GAP_RETRY)


@dataclass(slots=True)
class _Listing:
    """What one look lists, once the gap reads it asked for are in."""

    items: list[BadgeItem]  # the badge's and the gap reads' items
    needs: list[GapNeed]  # the gap reads still needed
    # From when the listing is whole, when that leaves a gap nobody will read.
    whole_from: datetime | None = None
    pushed: dict[Connection, datetime] = field(default_factory=dict)  # per connection
    hits: list[_BoundHit] = field(default_factory=list)  # reads whose bound left a gap
    proven: set[Connection] = field(default_factory=set)  # whole back to the last proof
    flood_pages: int = 0  # pages read after a flood (the hourly cap counts these)
    late_checked: bool = False  # this look read the late-listing check's page
    # Where a deferred late-listing check will read back to: the floor waits there, so a
    # comment listed late in the meantime is still above it when the check comes.
    hold: datetime | None = None
    # Fleet mode: the flood gap reads deferred (pages beyond the first refused), each
    # with where it had to reach back to; the floor waits there too (``hold``).
    deferred: dict[Connection, _BoundHit] = field(default_factory=dict)


def _listing(ctx: _Ctx, mark: WakeMark) -> _Listing:
    """The items to look at (badge plus gap reads) and what the look proved of them.

    Per connection, a full window that does not reach back to what the last proof saw
    (``_continuous``) is one of two things.  It shares an id with the last look's
    listing: nothing was pushed out since, and only a comment GitHub listed late can hide
    behind it, so the late-listing check reads one page behind it, at most once per
    ``floor_lag`` on the PR, and spends nothing of the hourly cap (a steady conversation
    never does).  Or it shares none: a flood, read back within ``gap_pages`` and what is
    left of ``gap_pages_per_hour``.  Whatever neither read covers is pushed out and
    becomes a ``FloodGap``.
    """
    status = ctx.status
    out = _Listing([], [])
    items: dict[str, BadgeItem] = {}
    scaled = _gap_pages(ctx)
    # What the hourly cap leaves; the connections are read one after the other, in this
    # order, and each is allowed what the ones before it left.
    left = ctx.config.gap_pages_per_hour - sum(g.pages for g in _hour_spent(ctx, mark))
    views = _views(ctx, mark)
    late_turn = _late_turn(ctx, mark, views)
    whole: list[datetime] = []
    for view in views:
        name, listed, page = view.connection, view.listed, view.page
        gap = ctx.facts.gaps.get(name)
        for item in (*(gap.items if gap is not None else ()), *listed):
            items[item.id] = item
        oldest = _oldest_if_full(listed, page)
        if oldest is None or _continuous(oldest, mark.floor, view.seen_to, view.settled):
            out.proven.add(name)
            continue
        # Below ``seen_to`` and ``settled`` the last proof saw everything; above either,
        # a comment pushed out or listed late may hide behind the full window.
        stop = _max_time(mark.floor, _min_time(view.seen_to, view.settled))
        readable = mark.floor is not None and ctx.config.gap_pages > 0 and page.start_cursor
        if view.late and not readable:
            out.proven.add(name)  # no read can look behind it (the seed's behaviour)
            continue
        if view.late and name != late_turn:
            out.hold = _min_time(out.hold, stop)  # a later check reads back to ``stop``
            continue
        bound = 1 if view.late else max(0, min(scaled, left))
        if gap is not None:
            if view.late:
                out.late_checked = True
            else:
                left -= gap.pages
                out.flood_pages += gap.pages
            if gap.complete:
                out.proven.add(name)
            elif not view.late and name in ctx.facts.deferred_gaps:
                # Deferred, not given up: nothing is pushed out, the floor stays below
                # ``stop`` and the mark keeps this connection's last proof, so a later
                # look (the mark's ``gap_retry_at``) asks for the same read again.
                assert stop is not None
                out.hold = _min_time(out.hold, stop)
                out.deferred[name] = _BoundHit(
                    name, bound, gap.pages, len(gap.items), gap.reached, stop, oldest
                )
            else:
                reached = min((i.created_at for i in gap.items), default=oldest)
                out.pushed[name] = min(gap.reached or reached, reached, oldest)
                assert stop is not None  # a gap is asked for only with a floor
                out.hits.append(
                    _BoundHit(name, bound, gap.pages, len(gap.items), gap.reached, stop, oldest)
                )
        elif readable:
            assert stop is not None
            assert page.start_cursor is not None
            if out.needs:
                continue  # asked for once the read before it is done
            if bound > 0:
                out.needs.append(GapNeed(name, page.start_cursor, stop, bound))
            else:
                out.pushed[name] = oldest
                out.hits.append(_BoundHit(name, 0, 0, 0, None, stop, oldest))
        else:
            out.pushed[name] = oldest
    out.proven |= out.pushed.keys()  # the floor rises over what was pushed out
    whole.extend(out.pushed.values())
    if not status.comments_page.has_previous_page and not status.reviews_page.has_previous_page:
        # A badge without page info: trust its own "whole from" time, as the seed did.
        pcf = status.person_comments_from
        seen = _max_time(mark.comments_seen_to, mark.reviews_seen_to)
        settled = _min_time(views[0].settled, views[1].settled)
        if pcf is not None and not _continuous(pcf, mark.floor, seen, settled):
            whole.append(pcf)
    out.items = list(items.values())
    out.whole_from = max(whole, default=None)
    return out


@dataclass(frozen=True, slots=True)
class _View:
    """One connection as the badge lists it, with what the mark knows of it."""

    connection: Connection
    listed: tuple[BadgeItem, ...]
    page: PageInfo
    seen_to: datetime | None
    settled: datetime | None  # the last proof's time less ``floor_lag``
    # A full window past the last proof that shares an id with the last look's listing:
    # nothing was pushed out since, only a comment listed late can hide behind it.
    late: bool


def _views(ctx: _Ctx, mark: WakeMark) -> tuple[_View, _View]:
    status, lag = ctx.status, ctx.config.floor_lag
    connections: tuple[tuple[Connection, tuple[BadgeItem, ...], PageInfo, datetime | None], ...] = (
        ("comments", status.comments, status.comments_page, mark.comments_seen_to),
        ("reviews", status.reviews, status.reviews_page, mark.reviews_seen_to),
    )
    proofs = (mark.comments_proven_at, mark.reviews_proven_at)
    lasts = (mark.comments_listed, mark.reviews_listed)
    views = []
    for (name, listed, page, seen_to), proven_at, last in zip(
        connections, proofs, lasts, strict=True
    ):
        settled = None if proven_at is None else proven_at - lag
        oldest = _oldest_if_full(listed, page)
        late = (
            oldest is not None
            and not _continuous(oldest, mark.floor, seen_to, settled)
            and not set(last).isdisjoint(i.id for i in listed)
        )
        views.append(_View(name, listed, page, seen_to, settled, late))
    return views[0], views[1]


def _late_turn(ctx: _Ctx, mark: WakeMark, views: Sequence[_View]) -> Connection | None:
    """The connection whose late-listing check may read its page in this look: at most one
    a ``floor_lag`` on a PR, the one proven longest ago (so neither waits for ever)."""
    last = mark.late_checked_at
    if last is not None and last <= ctx.now < last + ctx.config.floor_lag:
        return None
    late = [v for v in views if v.late]
    if not late:
        return None
    return min(late, key=lambda v: (v.settled is not None, v.settled or ctx.now)).connection


def _continuous(
    oldest: datetime, floor: datetime | None, seen_to: datetime | None, settled: datetime | None
) -> bool:
    """The listing reaches back to the floor, or to what the last look saw for good.

    GitHub may list a comment up to ``floor_lag`` after its creation (the grace the
    floor keeps), so what the last look saw covers the gap behind a full window only up
    to ``settled`` (that look's time less ``floor_lag``); a comment created later may
    have been listed late, behind the window, after that look.  ``settled`` None: the
    mark predates ``listed_at``, and only the floor counts.
    """
    if floor is not None and oldest <= floor:
        return True
    return seen_to is not None and settled is not None and oldest <= min(seen_to, settled)


# -- the rules -----------------------------------------------------------------------


def _judge(item: BadgeItem, ctx: _Ctx) -> _Judged:
    """A new comment through the rules in order, up to the first that decides or needs a
    read."""
    judged = _run_rules(item, None, ctx, start=0, due=True)
    assert judged is not None  # a due run always decides or asks
    return judged


def _judge_pending(p: Pending, ctx: _Ctx) -> _Judged | None:
    """A comment waiting for a permission retry; None: keep waiting."""
    if not ctx.eligible:
        return None
    return _run_rules(p.item, p.detail, ctx, start=_RETRY_FROM, due=ctx.now >= p.retry_at)


def _run_rules(
    item: BadgeItem,
    detail: ItemDetail | None,
    ctx: _Ctx,
    *,
    start: int,
    due: bool,
    reread: bool = False,
) -> _Judged | None:
    """``RULES[start:]`` in order, the rules before ``start`` passed already.

    The detail is read before the first rule that needs it (a comment deleted since the
    badge is ``_Gone``).  Not ``due`` (a retry not yet due): a read still missing or
    failed means keep waiting (None), while an answer already read decides.  ``reread``:
    a held comment at its release, ``detail`` its fresh read (None: deleted, which the
    ``exists`` rule decides); the own-post rule passes as it did before.
    """
    passed = list(RULE_NAMES[:start])
    noted: set[str] = set()
    if detail is not None and detail.more_inline is not None and not reread:
        # A retry kept a review read to its first page: the whole read, once done, wins,
        # and the text rules passed on the first page only decide again on all of it.
        detail = ctx.facts.details.get(item.id, detail)
        if detail.more_inline is None:
            again = _text_rules_again(item, detail, ctx, start)
            if again is not None:
                return again
    for rule in RULES[start:]:
        if reread and "own-post" in rule.needs:
            passed.append(rule.name)
            continue
        if "details" in rule.needs and detail is None and not reread:
            if item.id in ctx.facts.gone:
                return _Gone()
            detail = ctx.facts.details.get(item.id)
            if detail is None:
                return _Need(details=item.id)
        subject = Subject(item, detail, ctx.binding, ctx.status, ctx.facts, ctx.config, ctx.monitor)
        verdict = rule.check(subject)
        if verdict is None or isinstance(verdict, Note):
            passed.append(rule.name)
            if verdict is not None:
                noted.add(verdict.reason)
        elif isinstance(verdict, Stop):
            return _Skip(verdict.reason, verdict.detail, tuple(passed))
        elif isinstance(verdict, Ask):
            if verdict.need not in rule.needs:
                raise AssertionError(f"rule {rule.name} asked for {verdict.need} undeclared")
            if not due:
                return None
            if verdict.need == "intent-body":
                return _Need(details=verdict.key)
            if verdict.need == "own-post":
                return _Need(own_post=verdict.key)
            if verdict.need == "rest":
                return _Need(rest=verdict.key)
            return _Need(permission=verdict.key)
        else:
            assert isinstance(verdict, Failed)
            if "permission" not in rule.needs:
                raise AssertionError(f"rule {rule.name} failed a read it does not make")
            assert detail is not None  # every rule that can fail comes after the detail read
            return _Failed(detail, verdict.status, tuple(passed)) if due else None
    assert detail is not None  # a comment passes "blank" only with its detail read
    return _Trusted(detail, trusted_bot="trusted-bot" in noted)


def _text_rules_again(item: BadgeItem, whole: ItemDetail, ctx: _Ctx, start: int) -> _Skip | None:
    """The rules before ``start`` that read only the text (``blank``, ``skip-marker``,
    ``mention``...) again, on a review now read whole: each passed its first page only."""
    for i, rule in enumerate(RULES[:start]):
        if rule.needs != ("details",):
            continue
        subject = Subject(item, whole, ctx.binding, ctx.status, ctx.facts, ctx.config, ctx.monitor)
        verdict = rule.check(subject)
        if isinstance(verdict, Stop):
            return _Skip(verdict.reason, verdict.detail, RULE_NAMES[:i])
    return None


def _due_held(ctx: _Ctx, mark: WakeMark) -> list[Held]:
    """The held comments to release in this step, each to be read again first: all of
    them whose lookup retry (if any) is due, once the rate limit lets them go or an
    operator released them; none while the PR is not eligible."""
    if not mark.held or not ctx.eligible:
        return []
    if ctx.operator:
        return list(mark.held)  # a lookup retry not yet due is tried now too
    # People's and trusted bots' comments each wait for their own windows.
    lanes_open = set()
    for bots, wakes in ((False, mark.wakes), (True, mark.bot_wakes)):
        release = release_at(prune_wakes(wakes, ctx.now, ctx.config), ctx.config, bots=bots)
        if release is None or ctx.now >= release:
            lanes_open.add(bots)
    return [
        h
        for h in mark.held
        if h.trusted_bot in lanes_open and (h.retry_at is None or h.retry_at <= ctx.now)
    ]


def _recheck(h: Held, ctx: _Ctx) -> _Judged:
    """A held comment at its release, through the rules again with its fresh read."""
    if h.item.id not in ctx.facts.rereads:
        return _Need(reread=h.item.id)
    fresh = ctx.facts.rereads[h.item.id]
    item = h.item
    if fresh is not None and fresh.is_minimized:
        item = msgspec.structs.replace(item, is_minimized=True)
    judged = _run_rules(item, fresh, ctx, start=0, due=True, reread=True)
    assert judged is not None  # a due run always decides or asks
    return judged


def _apply_recheck(
    ctx: _Ctx,
    h: Held,
    verdict: _Judged,
    finished: list[BadgeItem],
    released: list[tuple[BadgeItem, ItemDetail]],
    still_held: list[Held],
) -> None:
    """Release a re-read held comment with its current text, decide it, or keep it
    held when its author's permission lookup failed."""
    if isinstance(verdict, _Trusted):
        released.append((h.item, verdict.detail))
        if verdict.trusted_bot:
            ctx.bots.add(h.item.id)
    elif isinstance(verdict, _Skip):
        outcome: Outcome = "drop" if verdict.reason == "deleted" else "skip"
        ctx.decide(h.item, outcome, verdict.reason, verdict.detail, verdict.rules)
        finished.append(h.item)
    elif isinstance(verdict, _Failed):
        failures = h.failures + 1
        delay = retry_delay(failures, ctx.monitor.permission_retries)
        status = f"status {verdict.status}" if verdict.status is not None else "no answer"
        if delay is None:
            given_up = f"{failures} failed lookups at its release, last {status}"
            ctx.decide(h.item, "skip", "lookup-failed", given_up, verdict.rules)
            ctx.logs.append(
                LogLine(
                    "warning",
                    f"a permission lookup failed {failures} times; a held comment on "
                    f"{ctx.status.pr} was passed over as untrusted",
                )
            )
            finished.append(h.item)
        else:
            retry_at = ctx.now + delay
            still_held.append(
                msgspec.structs.replace(
                    h, detail=verdict.detail, failures=failures, retry_at=retry_at
                )
            )
            ctx.logs.append(
                LogLine(
                    "info",
                    f"a permission lookup for a held comment on {ctx.status.pr} failed "
                    f"({status}); it stays held, retry at {_iso(retry_at)}",
                )
            )
    else:  # pragma: no cover - a re-read run never needs more reads or finds it gone
        raise AssertionError(f"a held comment's re-read gave {verdict!r}")


def _needs(gaps: list[GapNeed], *groups: Iterable[_Judged]) -> Needs:
    wanted = [j for group in groups for j in group if isinstance(j, _Need)]
    return Needs(
        details=_unique(j.details for j in wanted),
        rest=_unique(j.rest for j in wanted),
        own_posts=_unique(j.own_post for j in wanted),
        permissions=_unique(j.permission for j in wanted),
        gaps=tuple(gaps),
        rereads=_unique(j.reread for j in wanted),
    )


def _unique(values: Iterable[str | None]) -> tuple[str, ...]:
    return tuple(sorted({v for v in values if v is not None}))


def _apply(
    ctx: _Ctx,
    item: BadgeItem,
    verdict: _Judged,
    failures: int,
    finished: list[BadgeItem],
    ready: list[tuple[BadgeItem, ItemDetail]],
    pending: list[Pending],
) -> None:
    """Turn one final rule pass into a decision, a wake candidate or a retry."""
    if isinstance(verdict, _Skip):
        ctx.decide(item, "skip", verdict.reason, verdict.detail, verdict.rules)
        finished.append(item)
    elif isinstance(verdict, _Trusted):
        ready.append((item, verdict.detail))
        if verdict.trusted_bot:
            ctx.bots.add(item.id)
    elif isinstance(verdict, _Failed):
        failures += 1
        schedule = ctx.monitor.permission_retries
        status = f"status {verdict.status}" if verdict.status is not None else "no answer"
        delay = retry_delay(failures, schedule)
        if delay is None:
            given_up = f"{failures} failed lookups, last {status}"
            ctx.decide(item, "skip", "lookup-failed", given_up, verdict.rules)
            ctx.logs.append(
                LogLine(
                    "warning",
                    f"a permission lookup failed {failures} times; a comment on "
                    f"{ctx.status.pr} was passed over as untrusted",
                )
            )
            finished.append(item)
        else:
            retry_at = ctx.now + delay
            retry = f"{status}, retry at {_iso(retry_at)}"
            ctx.decide(item, "retry", "lookup-failed", retry, verdict.rules)
            pending.append(Pending(item, verdict.detail, failures, retry_at))


# -- the wake and the rate limit -----------------------------------------------------


def _wake(
    ctx: _Ctx,
    mark: WakeMark,
    held: list[Held],
    released: list[tuple[BadgeItem, ItemDetail]],
    ready: list[tuple[BadgeItem, ItemDetail]],
    finished: list[BadgeItem],
    rng: random.Random | None,
) -> tuple[list[Held], datetime | None, tuple[datetime, ...], tuple[datetime, ...], list[Notice]]:
    """The wake, if any: ``released`` (held comments re-read at their release) and
    ``ready`` (trusted now) go out together; ``held`` stay held.

    People's comments and trusted bots' (``ctx.bots``) each go by their own windows: one
    lane held never holds the other.  What goes out in one step is one wake, counted in
    people's windows when it carries a person's comment, else in the bots' windows.
    Returns the held comments, when the first may go, and both lanes' wake times."""
    wakes = prune_wakes(mark.wakes, ctx.now, ctx.config)
    bot_wakes = prune_wakes(mark.bot_wakes, ctx.now, ctx.config)
    if not ctx.status.is_open:
        for h in held:
            ctx.decide(h.item, "drop", "pr-closed", closed_detail(ctx.status), _ALL_PASSED)
            finished.append(h.item)
        return [], None, wakes, bot_wakes, []
    if not ctx.eligible or not (held or ready or released):
        until = _held_until(held, wakes, bot_wakes, ctx) if held else None
        return held, until, wakes, bot_wakes, []
    batch: list[tuple[BadgeItem, ItemDetail]] = []
    reasons: dict[str, Reason] = {}
    for bots, lane_wakes in ((False, wakes), (True, bot_wakes)):
        lane_ready = [p for p in ready if (p[0].id in ctx.bots) == bots]
        lane_released = [p for p in released if (p[0].id in ctx.bots) == bots]
        release = release_at(lane_wakes, ctx.config, bots=bots)
        limited = release is not None and ctx.now < release
        if limited and not lane_released:
            assert release is not None
            whose = " (the trusted bots' windows)" if bots else ""
            for item, _ in lane_ready:
                why = f"until {_iso(release)}{whose}"
                ctx.decide(item, "held", "rate-limit", why, _ALL_PASSED)
            held += [Held(item, detail, ctx.now, trusted_bot=bots) for item, detail in lane_ready]
            continue
        # ``limited`` here: an operator released the held comments before the limit would.
        lane_reason: Reason = "operator-release" if limited else "trusted-bot" if bots else "writer"
        for pair in (*lane_released, *lane_ready):
            reasons[pair[0].id] = lane_reason
            batch.append(pair)
    if not batch:
        until = _held_until(held, wakes, bot_wakes, ctx) if held else None
        return held, until, wakes, bot_wakes, []
    batch.sort(key=lambda p: _order_key(p[0]))
    assert ctx.binding.worker is not None
    notices = build_notices(
        ctx.binding.worker,
        ctx.status,
        batch,
        now=ctx.now,
        rng=rng,
        posting=ctx.binding.post_tools,
    )
    for item, detail in batch:
        inline = " ".join(i.id for i in detail.inline)
        detail_text = f"inline {inline}" if inline else ""
        ctx.decide(item, "wake", reasons[item.id], detail_text, _ALL_PASSED)
        finished.append(item)
    if all(item.id in ctx.bots for item, _ in batch):
        bot_wakes = (*bot_wakes, ctx.now)  # only trusted bots': the bots' windows
    else:
        wakes = (*wakes, ctx.now)
    until = _held_until(held, wakes, bot_wakes, ctx) if held else None
    return held, until, wakes, bot_wakes, list(notices)


def _held_until(
    held: Sequence[Held], wakes: Sequence[datetime], bot_wakes: Sequence[datetime], ctx: _Ctx
) -> datetime:
    """When the first held comment may go: its lane's rate-limit release, or later for one
    whose permission lookup is waiting for its retry; ``now`` when nothing holds it."""
    people = release_at(wakes, ctx.config)
    bots = release_at(bot_wakes, ctx.config, bots=True)
    due = [_max_time(bots if h.trusted_bot else people, h.retry_at) or ctx.now for h in held]
    return min(due, default=ctx.now)


# -- the floor -----------------------------------------------------------------------


def _settle(
    floor: datetime | None,
    raises: Sequence[datetime | None],
    handled: Sequence[Seen],
    open_items: Sequence[BadgeItem],
    config: WakeConfig,
    capacity: int | None = None,
) -> tuple[datetime | None, tuple[Seen, ...]]:
    """The seen set's floor and ids (``review_monitor.settle_seen``): never past a
    comment still held or pending, at most ``capacity`` (``handled_capacity``) ids above
    the floor."""
    open_at = [i.created_at for i in open_items]
    bound = config.handled_capacity if capacity is None else capacity
    return settle_seen(floor, raises, handled, open_at, bound)


def _lag_floor(handled: Sequence[Seen], config: WakeConfig) -> datetime | None:
    return lag_floor(handled, config.floor_lag)


# -- small helpers -------------------------------------------------------------------


def _order_key(item: BadgeItem) -> tuple[datetime, str]:
    return (item.created_at, item.id)


def _ordered(decided: Sequence[tuple[BadgeItem, Decision]]) -> tuple[Decision, ...]:
    return tuple(d for _, d in sorted(decided, key=lambda p: _order_key(p[0])))


def _newest(items: Sequence[BadgeItem], before: datetime | None) -> datetime | None:
    return _max_time(before, max((i.created_at for i in items), default=None))


def _max_time(a: datetime | None, b: datetime | None) -> datetime | None:
    if a is None:
        return b
    return a if b is None else max(a, b)


def _min_time(a: datetime | None, b: datetime | None) -> datetime | None:
    if a is None:
        return b
    return a if b is None else min(a, b)


def _own_post_state(ctx: _Ctx, mark: WakeMark) -> bytes:
    state = ctx.facts.own_post_state
    return mark.own_posts if state is None else state


def _flood_line(floor: datetime | None, whole_from: datetime) -> LogLine:
    since = "the last look" if floor is None else _iso(floor)
    return LogLine(
        "info",
        f"comments created between {since} and {_iso(whole_from)} may have been skipped: "
        "the listing is whole only from the later time",
    )


def _deferred_line(ctx: _Ctx, hit: _BoundHit) -> LogLine:
    """A deferred gap read: counts and times only, never an author or text."""
    return LogLine(
        "info",
        f"the {hit.connection} gap read on {ctx.status.pr} was deferred after {hit.pages} "
        f"page(s): the identity's gap pages are spent or its shared budget is low; the "
        f"span back to {_iso(hit.stop)} stays unread above the floor and is read again "
        "at a later look",
    )


def _bound_line(ctx: _Ctx, hit: _BoundHit, hour: int) -> LogLine:
    """A gap read that hit its bound: counts and times only, never an author or text.
    ``hour``: the gap pages read on this PR in the last hour, this look's included."""
    c = ctx.config
    kind = hit.connection
    reached = _iso(hit.reached if hit.reached is not None else hit.listed_from)
    if hit.bound == 0:
        read = (
            f"the {c.gap_pages_per_hour} gap pages an hour it may read on this PR are "
            f"spent ({hour} in the last hour)"
        )
    else:
        read = (
            f"{hit.items} {kind} read in {hit.pages} of {hit.bound} pages allowed "
            f"({c.gap_pages} pages a poll, {hour} of {c.gap_pages_per_hour} pages in the "
            "last hour)"
        )
    return LogLine(
        "warning",
        f"a flood on {ctx.status.pr} outran the {kind} gap read: {read}; it reached back "
        f"to {reached}, not to {_iso(hit.stop)}, so {kind} created between "
        f"{_iso(hit.stop)} and {reached} may have been skipped",
    )


def _iso(t: datetime) -> str:
    return t.isoformat().replace("+00:00", "Z")
