"""Random sequences of comments, floods, deletes, polls and lookup faults against the
core's invariants: nothing decided twice, the rate limit never broken, no bot or
non-writer ever woken, and every writer's comment decided once the dust settles."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from comment_wake.wake import WakeConfig
from comment_wake.wake.testing import WakeSim

T0 = datetime(2025, 6, 2, 9, 0, tzinfo=UTC)
AUTHORS = ("bob", "carol", "mallory", "lint[bot]")
WRITERS = {"bob", "carol"}

_event = st.one_of(
    st.tuples(st.just("comment"), st.sampled_from(AUTHORS), st.integers(0, 20)),
    st.tuples(st.just("flood"), st.just("mallory"), st.integers(5, 40)),
    st.tuples(st.just("delete"), st.just(""), st.integers(0, 0)),
    st.tuples(st.just("fail"), st.sampled_from(("bob", "carol")), st.integers(1, 5)),
    st.tuples(st.just("wait"), st.just(""), st.integers(1, 300)),
    st.tuples(st.just("poll"), st.just(""), st.integers(0, 0)),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(events=st.lists(_event, max_size=30), gap_pages=st.sampled_from([0, 3]))
def test_random_sequences_keep_the_core_invariants(
    events: list[tuple[str, str, int]], gap_pages: int
) -> None:
    sim = WakeSim(config=WakeConfig(gap_pages=gap_pages))
    sim.permissions.update({"bob": "write", "carol": "admin", "mallory": "read"})
    now = T0
    sim.poll(now)
    ids = itertools.count()
    writers: list[str] = []
    for kind, who, n in events:
        now += timedelta(seconds=7)
        if kind == "comment":
            cid = f"IC_{next(ids)}"
            writers += [cid] if who in WRITERS else []
            author_type = "Bot" if who.endswith("[bot]") else "User"
            sim.comment(cid, who, now - timedelta(seconds=n), f"text {n}", author_type=author_type)
            if n % 2:  # sometimes the next poll sees it at once, sometimes with what follows
                sim.poll(now)
        elif kind == "flood":
            sim.flood(f"IC_f{next(ids)}_", n, who, now)
            now += timedelta(seconds=60)
        elif kind == "delete":
            sim.delete(*[i for i in sim.items if i.startswith("IC_f")])
        elif kind == "fail":
            sim.lookup_failures[who] = n
        else:
            now += timedelta(seconds=n)
            sim.poll(now)
        while (due := sim.due()) is not None and due <= now:
            sim.tick(now)
    for _ in range(40):  # let retries and held wakes run out
        now += timedelta(minutes=5)
        sim.lookup_failures.clear()
        sim.poll(now)

    finals = [d.comment for d in sim.decisions if d.outcome in ("wake", "skip", "drop")]
    woken_authors = {
        sim.items[c].item.author.login  # type: ignore[union-attr]
        for c in sim.woken()
        if c in sim.items
    }
    times = sorted(n.created_at for n in sim.notices)
    gaps = [b - a for a, b in itertools.pairwise(times)]
    hourly = [sum(1 for t in times if s <= t < s + timedelta(hours=1)) for s in times]
    assert len(finals) == len(set(finals))
    assert woken_authors <= WRITERS
    assert all(g >= timedelta(minutes=1) for g in gaps)
    assert all(h <= 6 for h in hourly)
    assert (None, ()) == (sim.due(), sim.current_mark().pending)  # type: ignore[union-attr]
    if gap_pages:  # every flood here fits in the gap read: no writer is ever lost
        assert [] == [c for c in writers if c not in finals]
