"""The outbox of posts: what the wake reads of a PR, and pruning settled posts with their
id records."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from comment_wake.store import (
    due_posts,
    insert_post,
    next_post_at,
    posts,
    pr_posts,
    prune_posts,
    record_posted,
)
from review_monitor import PrRef
from review_monitor.github import Posted
from review_monitor.store import SyncStore

PR = PrRef("octo", "repo", 7)
T0 = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
KEY = "0123456789abcdef0123456789abcdef"
POSTED = Posted(
    database_id=5, node_id="IC_kwDOPost5", html_url="https://github.com/o/r/pull/7#c", created_at=T0
)


@pytest.fixture
def store(any_store: SyncStore) -> SyncStore:
    """The app's store, once on each engine."""
    return any_store


def _queue(store: SyncStore, tool: str = "reply") -> None:
    with store.write(at=T0) as tx:
        insert_post(tx, key=KEY, worker="w1", pr=PR, tool=tool, body="hi")  # type: ignore[arg-type]


def _known(store: SyncStore) -> tuple[list[str], list[str]]:
    with store.read() as tx:
        ids, _, intents = pr_posts(tx, PrRef("Octo", "Repo", 7), since=T0 - timedelta(hours=2))
    return list(ids), list(intents)


def test_an_intent_is_known_until_its_id_is_recorded(store: SyncStore) -> None:
    _queue(store)
    before = _known(store)
    with store.write(at=T0) as tx:
        record_posted(tx, KEY, POSTED, next_at=T0)
    assert (([], [KEY]), (["IC_kwDOPost5"], [])) == (before, _known(store))


def test_pruning_deletes_a_settled_post_and_its_id_record(store: SyncStore) -> None:
    _queue(store)
    with store.write(at=T0) as tx:
        record_posted(tx, KEY, POSTED, next_at=T0)
    gone = prune_posts(store, before=T0 + timedelta(days=1))
    assert (1, (), ([], [])) == (gone, posts(store), _known(store))


def test_pruning_keeps_a_progress_comment(store: SyncStore) -> None:
    _queue(store, "progress")
    with store.write(at=T0) as tx:
        record_posted(tx, KEY, POSTED, next_at=T0)
    assert (0, 1) == (prune_posts(store, before=T0 + timedelta(days=1)), len(posts(store)))


def test_a_fleet_host_sends_only_its_own_workers_posts(store: SyncStore) -> None:
    _queue(store)
    later = T0 + timedelta(minutes=1)
    mine = [p.worker for p in due_posts(store, later, workers={"w1"})]
    others = due_posts(store, later, workers={"w2"})
    assert (["w1"], (), None, T0) == (
        mine,
        others,
        next_post_at(store, workers=()),
        next_post_at(store, workers={"w1"}),
    )
