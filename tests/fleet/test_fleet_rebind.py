"""Two fleet daemons on one PostgreSQL store (issue 28, "a re-bind elsewhere carries the
mark and the untaken notices over"): host h1's worker has a notice it took and one it
never took in its inbox; h1 stops; the PR is bound on h2 to another worker, who gets the
untaken one (and not the taken one); the PR's mark followed it, so a new comment wakes
the new worker once and nothing is decided twice.

The story runs once per module (``moved``); each test reads its own part of the outcome.
Leases last 30 s: nothing here waits on a lapse but h2's campaign for the reader's lease
once h1 stops, which the minute on h2 covers; 1 s leases would only cost renewals (a
store round trip every 0.3 s of virtual time, on each host).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

import anyio
import pytest
from _notice_limit import check_notices_fit_a_hook
from _postgres import PostgresServer, fresh_schema

from comment_wake.app import App
from comment_wake.delivery import take
from comment_wake.registry import InboxSpec

from .conftest import PR, Fleet, Inboxes, daemon, new_fleet

MINUTE = timedelta(minutes=1)
LIFE = timedelta(seconds=30)
# A comment's wait: two of the default poll intervals (60 s); it reaches the inbox
# within one.
SEEN = 2 * MINUTE


async def _run(fleet: Fleet, span: timedelta) -> None:
    """Let the daemons run ``span`` of virtual time, one deadline at a time."""
    end = fleet.clock.now() + span
    while fleet.clock.now() < end:
        due = fleet.clock.next_deadline()
        await fleet.clock.advance_to(min(end, due) if due is not None else end)


def _bind(app: App, worker: str) -> Path:
    """Bind ``worker`` to PR on ``app``'s host, its notices to its inbox there; the inbox
    root."""
    assert app.registry is not None
    app.registry.add_orchestrator("o1", InboxSpec())
    app.registry.bind(worker, PR, orchestrator="o1", publisher=InboxSpec())
    return app.registry.inbox_root


def _items(root: Path, worker: str) -> list[list[str]]:
    """What the hook takes from ``worker``'s inbox now: each notice's item ids."""
    return [[i.id for i in n.items] for n in take(root, worker)]


@dataclass
class Moved:
    """What each worker's hook took, and the comments posted."""

    first: str  # taken on h1
    second: str  # delivered on h1, never taken
    taken_on_h1: list[list[str]]
    on_h2: list[list[str]]
    third: str  # posted once the PR was on h2
    later_on_h2: list[list[str]]


async def _move(fleet: Fleet) -> Moved:
    inboxes = Inboxes()
    async with daemon(fleet, "h2", inboxes, ttl=LIFE) as two:
        async with (
            daemon(fleet, "h1", inboxes, ttl=LIFE) as one,
            anyio.create_task_group() as tg,
        ):
            root_one = _bind(one, "w1")
            tg.start_soon(one.run)
            await _run(fleet, MINUTE)  # the baseline: h1 reads the PR at once
            first = fleet.fake.post_comment(PR, "alice", "Please rebase onto main.")
            await _run(fleet, SEEN)
            taken = _items(root_one, "w1")  # the hook takes it
            await _run(fleet, 30 * timedelta(seconds=1))  # h1 records the take
            second = fleet.fake.post_comment(PR, "alice", "And fix the typo.")
            await _run(fleet, SEEN)  # delivered into w1's inbox, never taken
            tg.cancel_scope.cancel()  # h1 stops
        assert two.registry is not None
        two.registry.unbind("w1")
        root_two = _bind(two, "w2")
        async with anyio.create_task_group() as tg:
            tg.start_soon(two.run)
            await _run(fleet, MINUTE)  # h2 reads once h1's reader lease lapses (30 s)
            on_h2 = _items(root_two, "w2")
            third = fleet.fake.post_comment(PR, "alice", "Thanks, one more thing.")
            await _run(fleet, SEEN)
            tg.cancel_scope.cancel()
    return Moved(first, second, taken, on_h2, third, _items(root_two, "w2"))


@pytest.fixture(scope="module")
def moved(
    tmp_path_factory: pytest.TempPathFactory, postgres_server: PostgresServer
) -> Iterator[Moved]:
    """The story, run once for the module's tests (on a schema and a directory of its
    own), with the suite's check that every notice fits a hook."""
    with fresh_schema(postgres_server) as url:
        with pytest.MonkeyPatch.context() as patch:
            check_notices_fit_a_hook(patch)
            outcome = anyio.run(_move, new_fleet(tmp_path_factory.mktemp("rebind"), url))
        yield outcome


def test_a_notice_never_taken_on_a_stopped_host_reaches_the_worker_rebound_elsewhere(
    moved: Moved,
) -> None:
    assert ([[moved.first]], [[moved.second]]) == (moved.taken_on_h1, moved.on_h2)


def test_the_prs_mark_follows_it_so_a_new_comment_wakes_the_new_worker_once(
    moved: Moved,
) -> None:
    # Verifies what already worked (marks are keyed by the PR): the handled comments are
    # not decided again on h2, and its floor and rate windows hold there.
    assert [[moved.third]] == moved.later_on_h2
