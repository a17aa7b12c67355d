"""The app's store writes that depend on what they read hold on an engine whose writers do
not serialise (PostgreSQL, READ COMMITTED): each takes its lock before its first read, or
is one conditional statement."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import msgspec
import pytest

from comment_wake.store import (
    ContentLimits,
    PollRequest,
    _requests,
    clear_poll_request,
    delete_record,
    open_sync_store,
    poll_requests,
    put_record,
    read_record,
    request_poll,
    spend_content,
)
from review_monitor import PrRef
from review_monitor.store import SyncStore, WriteTx

T0 = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
T1 = datetime(2026, 12, 1, 12, 5, tzinfo=UTC)
PR = PrRef("octo", "repo", 7)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SyncStore]:
    db = open_sync_store(tmp_path / "state.db")
    yield db
    db.close()


def test_spending_content_takes_the_identitys_bucket_lock_before_it_reads_the_level(
    store: SyncStore, write_txs: list[list[tuple[str, str]]]
) -> None:
    spend_content(store, "github.com/octocat", ContentLimits(), T0)
    assert [("lock", "content:github.com/octocat")] == [events[0] for events in write_txs]


def test_a_record_rewritten_since_it_was_read_is_not_deleted_by_value(store: SyncStore) -> None:
    with store.write(at=T0) as tx:
        put_record(tx, "ns", "k", b"read")
        put_record(tx, "ns", "k", b"rewritten")
    with store.write(at=T0) as tx:
        deleted = delete_record(tx, "ns", "k", value=b"read")
    assert (False, b"rewritten") == (deleted, read_record(store, "ns", "k"))


def test_a_record_still_holding_the_value_read_is_deleted_by_value(store: SyncStore) -> None:
    with store.write(at=T0) as tx:
        put_record(tx, "ns", "k", b"read")
    with store.write(at=T0) as tx:
        deleted = delete_record(tx, "ns", "k", value=b"read")
    assert (True, None) == (deleted, read_record(store, "ns", "k"))


def test_a_poll_request_made_between_the_read_and_the_delete_stays(
    store: SyncStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    request_poll(store, PR, at=T0)
    (served,) = poll_requests(store)
    newer = msgspec.json.encode(PollRequest(PR.host, PR.owner, PR.name, PR.number, T1))
    read = _requests.get_record

    def read_then_another_writer_commits(tx: WriteTx, namespace: str, key: str) -> bytes | None:
        # What PostgreSQL's READ COMMITTED lets a delete see: a request written by a
        # transaction that committed after this one read.
        blob = read(tx, namespace, key)
        put_record(tx, namespace, key, newer)
        return blob

    monkeypatch.setattr(_requests, "get_record", read_then_another_writer_commits)
    cleared = clear_poll_request(store, served, at=T0)
    assert (False, [T1]) == (cleared, [r.requested_at for r in poll_requests(store)])
