"""Fixtures for the state store tests: a real store on each engine (SQLite, PostgreSQL),
a SQLite file for what only a file has, and notice factories."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from review_monitor import Notice, NoticeItem, NoticePr, PrRef, notice_key
from review_monitor.store import Migration, SyncStore, Tables

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
PR = PrRef(owner="octo-org", name="octo-repo", number=12)


@pytest.fixture
def t0() -> datetime:
    return T0


@pytest.fixture
def pr() -> PrRef:
    return PR


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "state" / "state.db"


@pytest.fixture
def store(any_store_target: str) -> Iterator[SyncStore]:
    """The monitor's store, once on each engine (``any_store_target``)."""
    s = SyncStore.open(any_store_target)
    yield s
    s.close()


@pytest.fixture
def sqlite_store(db_path: Path) -> Iterator[SyncStore]:
    """The monitor's store as a SQLite file at ``db_path``: what only a file has (its
    journal mode, the old ledger)."""
    s = SyncStore.open(db_path)
    yield s
    s.close()


# An application's own part, registered when it opens the store.
NOTES = Tables(
    "test.notes",
    (Migration(1, "notes", ("CREATE TABLE notes (k TEXT PRIMARY KEY, at TEXT NOT NULL)",)),),
)


@pytest.fixture
def app_store(db_path: Path) -> Iterator[SyncStore]:
    with SyncStore.open(db_path, tables=[NOTES]) as s:
        yield s


MakeNotice = Callable[..., Notice]


@pytest.fixture
def make_notice() -> MakeNotice:
    def make(
        worker: str = "w1",
        item: str = "IC_1",
        *,
        pr: PrRef = PR,
        kind: str = "comment-wake",
        text: str = "hello",
        items: tuple[str, ...] | None = None,
    ) -> Notice:
        ids = items if items is not None else (item,)
        return Notice(
            version=1,
            kind=kind,
            key=notice_key(worker, pr, kind, ids),
            worker=worker,
            pr=NoticePr(host=pr.host, repo=pr.repo, number=pr.number, url="u", title="t"),
            items=tuple(NoticeItem(i, None, f"u/{i}", "alice", "comment") for i in ids),
            text=text,
            created_at=T0,
        )

    return make
