"""The identity's budget row, on both engines: a later window replaces it, the same
window keeps the lower count, an earlier window's answer is dropped."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from review_monitor._ratelimit import RateLimit
from review_monitor._store._budget import read_budget, record_budget
from review_monitor.store import SyncStore

T0 = datetime(2026, 12, 4, 9, 0, tzinfo=UTC)
RESET = T0 + timedelta(minutes=40)
ID = "github.com:octo-worker"


def _heard(store: SyncStore, remaining: int, reset_at: datetime, resource: str = "graphql") -> None:
    limit = RateLimit(resource, 5000, remaining, None, reset_at, T0)
    with store.write(at=T0) as tx:
        record_budget(tx, ID, [limit])


def _left(store: SyncStore, resource: str = "graphql") -> tuple[int | None, datetime | None]:
    with store.read() as tx:
        row = read_budget(tx, ID).get(resource)
    return (None, None) if row is None else (row.remaining, row.reset_at)


def test_the_same_window_keeps_the_lower_count(store: SyncStore) -> None:
    _heard(store, 4000, RESET)
    _heard(store, 4200, RESET + timedelta(seconds=2))
    assert (4000, RESET) == _left(store)


def test_a_lower_count_in_the_same_window_replaces_the_row(store: SyncStore) -> None:
    _heard(store, 4000, RESET)
    _heard(store, 3900, RESET)
    assert (3900, RESET) == _left(store)


def test_a_later_window_replaces_the_row(store: SyncStore) -> None:
    _heard(store, 100, RESET)
    later = RESET + timedelta(hours=1)
    _heard(store, 4990, later)
    assert (4990, later) == _left(store)


def test_an_earlier_windows_answer_is_dropped(store: SyncStore) -> None:
    later = RESET + timedelta(hours=1)
    _heard(store, 4990, later)
    _heard(store, 100, RESET)
    assert (4990, later) == _left(store)


def test_graphql_and_rest_are_kept_apart(store: SyncStore) -> None:
    _heard(store, 4000, RESET)
    _heard(store, 55, RESET, resource="core")
    assert ((4000, RESET), (55, RESET)) == (_left(store), _left(store, "core"))
