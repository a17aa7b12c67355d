"""The wake core against a simple reference model, over random sequences of events.

A hypothesis state machine drives ``WakeSim`` (the core behind an in-memory GitHub) with
comments and reviews by writers, non-writers and bots, verdicts, blank comments, the
worker's own posts, late listings, floods, deletes, polls and timers at random times,
restarts (the mark round-trips through ``encode_mark``/``decode_mark`` on every step;
a restart also drops the in-memory service), permission faults, and merges, closes and
reopens.  GitHub lists each connection by creation time, as the real one does.

The model does not re-implement the core.  It knows who wrote what, and predicts only
the losses the rules allow:

* ``deleted``: the comment was deleted before it was delivered;
* ``flood``: at a poll, before any poll had it in reach, it lay beyond the listing
  window plus the gap read's ``gap_pages`` pages of 100 (the gap bound);
* ``late``: it was listed after a comment ``floor_lag`` newer had been seen, or after
  ``handled_capacity`` at least as new, or after a flood raised the floor over it;
* ``closed``: the core passed it over or dropped it while the PR was merged or closed,
  or it was still waiting when the run ended with the PR closed;
* ``lookup``: its author's lookups were made to fail at least once more than the
  retry schedule allows.

Safety holds after every step: no comment is delivered twice, nothing but a writer's
comment (not a bot's, a non-writer's, a verdict, a blank comment or the worker's own
post) is ever delivered, no comment gets two final decisions, and the wakes keep the
rate limit (1 minute apart, 6 in any 60 minutes, 24 in any 24 hours).  At the end,
after the timers have run out, every writer's comment the core did not deliver must
match one of the predictions above.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Literal

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from comment_wake.wake import Decision, WakeConfig
from comment_wake.wake.testing import SimItem, WakeSim

T0 = datetime(2025, 6, 2, 9, 0, tzinfo=UTC)
VIEWER = "alice"
PERMISSIONS = {"alice": "admin", "bob": "write", "carol": "admin", "mallory": "read"}
WRITERS = frozenset({"alice", "bob", "carol"})
BOTS = {"lint[bot]": "User", "dependabot": "Bot"}
AUTHORS = ("alice", "bob", "carol", "mallory", "eve", "lint[bot]", "dependabot")
FINAL = ("wake", "skip", "drop")
State = Literal["OPEN", "CLOSED", "MERGED"]


@dataclass
class ModelItem:
    """What the model knows about one comment or review."""

    id: str
    kind: Literal["comment", "review"]
    author: str
    created_at: datetime
    deliverable: bool  # a writer's comment that must wake the worker unless a loss applies
    # Loss predictions, set as the run goes.
    deleted: bool = False
    reached: bool = False  # some poll had it within the window plus the gap bound
    flood: bool = False
    late: bool = False
    fail_budget: int = 0  # lookups of its author made to fail since it was written
    excuses: set[str] = field(default_factory=set)


class WakeModel(RuleBasedStateMachine):
    """Random events against the core; see the module docstring."""

    def __init__(self) -> None:
        super().__init__()
        self.now = T0
        self.items: dict[str, ModelItem] = {}
        self.order = itertools.count()
        self.ids = itertools.count()
        self.rank: dict[str, int] = {}
        self.decisions: list[Decision] = []
        self.decided_while: dict[tuple[str, str], State] = {}  # (comment, outcome) -> state
        self.wake_times: list[datetime] = []
        # What earlier polls saw, for the "late" prediction.
        self.seen_created: list[datetime] = []
        self.seen_max = T0
        self.flood_high: datetime | None = None
        self.states: list[tuple[datetime, State]] = [(T0, "OPEN")]  # the PR's state changes

    # -- set-up ----------------------------------------------------------------------

    @initialize(gap_pages=st.sampled_from([0, 1, 3]))
    def start(self, gap_pages: int) -> None:
        self.config = WakeConfig(gap_pages=gap_pages)
        self.sim = self._new_sim(mark=None, items={})
        self._poll()  # the first look: an empty PR, so nothing is a baseline

    def _new_sim(self, mark: bytes | None, items: dict[str, SimItem]) -> WakeSim:
        sim = WakeSim(config=self.config, mark=mark, viewer=VIEWER)
        sim.items = items
        sim.permissions.update(PERMISSIONS)
        return sim

    # -- GitHub's side ---------------------------------------------------------------

    @rule(
        author=st.sampled_from(sorted(WRITERS)),
        shape=st.sampled_from(["comment", "COMMENTED"]),
        lateness=st.sampled_from([0, 0, 0, 3, 40]),
        poll=st.booleans(),
    )
    def writer_comments(self, author: str, shape: str, lateness: int, poll: bool) -> None:
        """The common case, drawn more often: a writer's comment, maybe listed a little late."""
        self.write(author, shape, blank=False, own=False, lateness=lateness, poll=poll)

    @rule(
        author=st.sampled_from(AUTHORS),
        shape=st.sampled_from(["comment", "COMMENTED", "APPROVED", "CHANGES_REQUESTED"]),
        blank=st.booleans(),
        own=st.booleans(),
        lateness=st.sampled_from([0, 0, 0, 3, 40, 400]),
        poll=st.booleans(),
    )
    def write(
        self, author: str, shape: str, blank: bool, own: bool, lateness: int, poll: bool
    ) -> None:
        self._advance(5)
        kind: Literal["comment", "review"] = "comment" if shape == "comment" else "review"
        item_id = f"{'IC' if kind == 'comment' else 'PRR'}_{next(self.ids)}"
        created = self.now - timedelta(seconds=lateness)
        body = "<!-- only hidden text -->" if blank else f"Please look at step {item_id}."
        author_type = BOTS.get(author, "User")
        if kind == "comment":
            self.sim.comment(item_id, author, created, body, author_type=author_type)
        else:
            self.sim.review(item_id, author, created, body, state=shape, author_type=author_type)
        is_own = own and author == VIEWER
        if is_own:
            self.sim.own[item_id] = "link printed by gh pr comment"
        deliverable = (
            author in WRITERS
            and author not in BOTS
            and shape in ("comment", "COMMENTED")
            and not blank
            and not is_own
        )
        self._added(ModelItem(item_id, kind, author, created, deliverable))
        if poll:
            self._poll()

    @rule(
        shape=st.sampled_from([("comment", "mallory"), ("review", "lint[bot]")]),
        count=st.sampled_from([4, 12, 25, 120]),
    )
    def flood(self, shape: tuple[str, str], count: int) -> None:
        kind, author = shape
        connection: Literal["comment", "review"] = "comment" if kind == "comment" else "review"
        self._advance(5)
        for n in range(count):
            item_id = f"{'IC' if kind == 'comment' else 'PRR'}_f{next(self.ids)}"
            created = self.now + timedelta(seconds=n)
            if kind == "comment":
                self.sim.comment(item_id, author, created, f"spam {n}")
            else:
                self.sim.review(item_id, author, created, "nit", author_type=BOTS[author])
            self._added(ModelItem(item_id, connection, author, created, deliverable=False))
        self.now += timedelta(seconds=count)

    @precondition(lambda self: bool(self.sim.items))
    @rule(pick=st.integers(min_value=0))
    def delete_one(self, pick: int) -> None:
        self._advance(5)
        ids = list(self.sim.items)
        victim = ids[pick % len(ids)]
        self.sim.delete(victim)
        self.items[victim].deleted = True

    @precondition(lambda self: any("_f" in i for i in self.sim.items))
    @rule()
    def delete_floods(self) -> None:
        self._advance(5)
        for item_id in [i for i in self.sim.items if "_f" in i]:
            self.sim.delete(item_id)
            self.items[item_id].deleted = True

    @rule(login=st.sampled_from(sorted(WRITERS)), failures=st.integers(1, 5))
    def permission_fault(self, login: str, failures: int) -> None:
        self.sim.lookup_failures[login] = self.sim.lookup_failures.get(login, 0) + failures
        for item in self.items.values():
            if item.author == login:
                item.fail_budget += failures

    @rule(state=st.sampled_from(["OPEN", "CLOSED", "MERGED"]), poll=st.booleans())
    def set_state(self, state: State, poll: bool) -> None:
        self._advance(5)
        self.sim.state = state
        self.states.append((self.now, state))
        if poll:
            self._poll()

    # -- the service's side ----------------------------------------------------------

    @rule(seconds=st.sampled_from([10, 45, 61, 200, 700, 3600]))
    def wait_then_poll(self, seconds: int) -> None:
        self._advance(seconds)
        self._poll()

    @rule(seconds=st.sampled_from([30, 120, 600]))
    def wait(self, seconds: int) -> None:
        self._advance(seconds)

    @rule()
    def restart(self) -> None:
        """A new service on the same store: only the encoded mark survives."""
        self._advance(5)
        old = self.sim
        self.sim = self._new_sim(mark=old.mark, items=old.items)
        self.sim.lookup_failures = old.lookup_failures
        self.sim.own = old.own
        self.sim.state = old.state
        self._poll()  # the service polls as it starts

    # -- the checks ------------------------------------------------------------------

    @invariant()
    def nothing_is_delivered_twice(self) -> None:
        woken = [d.comment for d in self.decisions if d.outcome == "wake"]
        assert len(woken) == len(set(woken)), woken

    @invariant()
    def only_a_writers_comment_is_delivered(self) -> None:
        woken = {d.comment for d in self.decisions if d.outcome == "wake"}
        assert [] == [i for i in woken if not self.items[i].deliverable]

    @invariant()
    def a_comment_gets_at_most_one_final_decision(self) -> None:
        finals = [d.comment for d in self.decisions if d.outcome in FINAL]
        assert len(finals) == len(set(finals)), finals

    @invariant()
    def a_comment_pushed_out_unseen_is_never_delivered_later(self) -> None:
        woken = {d.comment for d in self.decisions if d.outcome == "wake"}
        assert [] == [i for i in woken if self.items[i].flood]

    @invariant()
    def wakes_keep_the_rate_limit(self) -> None:
        times = self.wake_times
        gaps = [b - a for a, b in itertools.pairwise(times)]
        assert all(g >= self.config.wake_min_gap for g in gaps), times
        for cap, window in (
            (self.config.wakes_per_hour, self.config.wake_hour_window),
            (self.config.wakes_per_day, self.config.wake_day_window),
        ):
            assert all(sum(1 for w in times if t - window < w <= t) <= cap for t in times)

    def teardown(self) -> None:
        if not hasattr(self, "sim"):
            return
        # Let the held wakes and permission retries run out, then look once more.
        self._advance(2 * 24 * 3600)
        self._poll()
        self._advance(2 * 24 * 3600)
        assert [] == self._late_retries()
        woken = {d.comment for d in self.decisions if d.outcome == "wake"}
        finals = {d.comment: d for d in self.decisions if d.outcome in FINAL}
        unexplained = []
        for item in self.items.values():
            if not item.deliverable or item.id in woken:
                continue
            excuses = self._excuses(item, finals.get(item.id))
            if not excuses:
                decision = finals.get(item.id)
                unexplained.append((item, decision))
        assert [] == unexplained

    def _late_retries(self) -> list[tuple[str, datetime, datetime | None]]:
        """Retries that ran late or never (comment, due, when it ran): after the k-th
        failed lookup the comment is decided again at most ``retries[k-1]`` later (sooner
        when another comment's lookup of the same login answers first), unless the PR was
        merged or closed meanwhile (the retry pauses)."""
        schedule = self.sim.monitor.permission_retries
        late = []
        by_comment: dict[str, list[Decision]] = {}
        for d in self.decisions:
            by_comment.setdefault(d.comment, []).append(d)
        for comment, decided in by_comment.items():
            retries = [n for n, d in enumerate(decided) if d.outcome == "retry"]
            for k, n in enumerate(retries):
                due = decided[n].at + schedule[min(k, len(schedule) - 1)]
                if not self._open_throughout(decided[n].at, due):
                    continue
                ran = decided[n + 1].at if n + 1 < len(decided) else None
                if ran is None or ran > due:
                    late.append((comment, due, ran))
        return late

    def _open_throughout(self, start: datetime, end: datetime) -> bool:
        """The PR was open from ``start`` to ``end``, whether or not the core had seen it."""
        before = [state for at, state in self.states if at <= start]
        during = [state for at, state in self.states if start < at <= end]
        return all(state == "OPEN" for state in [before[-1], *during])

    def _excuses(self, item: ModelItem, final: Decision | None) -> set[str]:
        excuses = set()
        if item.deleted:
            excuses.add("deleted")
        if item.flood:
            excuses.add("flood")
        if item.late:
            excuses.add("late")
        retries = len(self.sim.monitor.permission_retries)
        if final is not None and final.reason == "lookup-failed" and item.fail_budget > retries:
            excuses.add("lookup")
        # Passed over or dropped while the model had the PR merged or closed.
        closed_then = final is not None and (
            self.decided_while.get((final.comment, final.outcome), "OPEN") != "OPEN"
        )
        if final is not None and final.reason == "pr-closed" and closed_then:
            excuses.add("closed")
        if final is None and self.sim.state != "OPEN":
            excuses.add("closed")  # still waiting for a retry that the closed PR paused
        return excuses

    # -- helpers ---------------------------------------------------------------------

    def _added(self, item: ModelItem) -> None:
        """Record a new item and keep GitHub's listing order (by creation time)."""
        self.items[item.id] = item
        self.rank[item.id] = next(self.order)
        item.fail_budget = self.sim.lookup_failures.get(item.author, 0)
        newer = sum(1 for t in self.seen_created if t >= item.created_at)
        if (
            item.created_at <= self.seen_max - self.config.floor_lag
            or newer >= self.config.handled_capacity
            or (self.flood_high is not None and item.created_at <= self.flood_high)
        ):
            item.late = True
        self.sim.items = dict(
            sorted(
                self.sim.items.items(),
                key=lambda kv: (kv[1].item.created_at, self.rank[kv[0]]),
            )
        )

    def _advance(self, seconds: int) -> None:
        """Let time pass; the service's timer fires at each due time on the way."""
        until = self.now + timedelta(seconds=seconds)
        while (due := self.sim.due()) is not None and due <= until:
            self.now = max(self.now, due)
            self._record(lambda: self.sim.tick(due))
            after = self.sim.due()
            assert after is None or after > due, f"the timer at {due} did not move"
        self.now = until

    def _poll(self) -> None:
        self._predict_reach()
        self._record(lambda: self.sim.poll(self.now))
        for sim_item in self.sim.items.values():
            self.seen_created.append(sim_item.item.created_at)
            self.seen_max = max(self.seen_max, sim_item.item.created_at)

    def _predict_reach(self) -> None:
        """Which items this poll can reach: the window plus the gap bound, newest first."""
        overflow = False
        for kind, window in (
            ("comment", self.sim.comments_window),
            ("review", self.sim.reviews_window),
        ):
            listed = [i for i, s in self.sim.items.items() if s.item.kind == kind]
            reach = window + 100 * self.config.gap_pages
            for depth, item_id in enumerate(reversed(listed)):
                item = self.items[item_id]
                if depth < reach:
                    item.reached = True
                elif not item.reached:
                    item.flood = True
                    overflow = True
        if overflow:
            newest = max(s.item.created_at for s in self.sim.items.values())
            self.flood_high = newest if self.flood_high is None else max(self.flood_high, newest)

    def _record(self, call: Callable[[], object]) -> None:
        before = len(self.sim.decisions)
        notices_before = len(self.sim.notices)
        call()
        new = self.sim.decisions[before:]
        self.decisions += new
        for d in new:
            self.decided_while[(d.comment, d.outcome)] = self.sim.state
        # A wake too long for one notice goes out in parts, all at once: one wake each.
        new_notices = self.sim.notices[notices_before:]
        self.wake_times += [n.created_at for n in new_notices if n.part == 1]


WakeModel.TestCase.settings = settings(
    max_examples=100,
    stateful_step_count=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
test_core_matches_the_reference_model = WakeModel.TestCase
