"""``comment-wake store copy --to URL``: one host's SQLite store moved into PostgreSQL
whole, its host id stamped, in one transaction; refused while its daemon runs or when the
target has a live owner of one of its PRs; a second copy writes nothing."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import msgspec
import pytest

from comment_wake._paths import store_path
from comment_wake.cli import _common, main
from comment_wake.registry import InboxSpec, Registry
from comment_wake.store import (
    delivering,
    insert_post,
    open_sync_store,
    outcomes,
    posts,
    put_record,
    records_under,
)
from review_monitor import NOTICE_VERSION, Notice, NoticeItem, NoticePr, PrRef
from review_monitor.store import (
    Lease,
    OutboxStatus,
    PrOwner,
    SyncStore,
    acquire_lease,
    claim_pr,
    read_owner,
)
from review_monitor.testing import FixedClock

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
HOST = "laptop-7"
PR = PrRef("octo", "repo", 7)
OLD_PR = PrRef("octo", "other", 3)
DECISIONS = "comment-wake/decisions/github.com/octo/repo#7"
ALL_STATUSES: tuple[OutboxStatus, ...] = ("pending", "delivered", "parked", "handed-off", "merged")


def _item(n: int) -> NoticeItem:
    return NoticeItem(
        f"IC_{n}", n, f"https://github.com/octo/repo/pull/7#issuecomment-{n}", "al", "comment"
    )


def _notice(worker: str, n: int, kind: str = "comment-wake") -> Notice:
    return Notice(
        version=NOTICE_VERSION,
        kind=kind,
        key=f"{kind}-{n}",
        worker=worker,
        pr=NoticePr(PR.host, PR.repo, PR.number, "https://github.com/octo/repo/pull/7", "T"),
        items=(_item(n),),
        text="...",
        created_at=T0,
    )


def _registry(store: SyncStore, tmp_path: Path) -> Registry:
    return Registry(store, inbox_root=tmp_path / "inbox", clock=FixedClock(T0))


@pytest.fixture
def state_dir(tmp_path: Path) -> Path:
    """A single host's store: an orchestrator, two workers (one archived), a mark,
    pending, delivered and handed-off notices with attempts, decision records, an outcome
    and a post."""
    state = tmp_path / "state"
    state.mkdir()
    store = open_sync_store(store_path(state))
    registry = _registry(store, tmp_path)
    registry.add_orchestrator("lead", InboxSpec())
    registry.bind("w1", PR, orchestrator="lead", publisher=InboxSpec())
    registry.bind("w2", OLD_PR, orchestrator="lead", publisher=InboxSpec())
    registry.archive("w2")
    store.commit(PR, "comment-wake", mark=(3, b"the mark"), at=T0)
    pending, delivered, gone = store.enqueue(
        [_notice("w1", 1), _notice("w1", 2), _notice("w2", 3)], at=T0
    )
    store.record_attempt(pending, at=T0, outcome="busy", retry_at=T0 + timedelta(minutes=1))
    store.mark_delivered(delivered, at=T0, also=delivering(delivered, _notice("w1", 2)))
    store.hand_off(gone, _notice("lead", 3, kind="handoff"), at=T0, detail="session ended")
    with store.write(at=T0) as tx:
        put_record(tx, DECISIONS, "IC_1", b'{"decided": "wake"}')
        insert_post(tx, key="post-1", worker="w1", pr=PR, tool="reply", body="On it.")
    store.close()
    (tmp_path / "config.toml").write_text("")
    return state


def _copy(state_dir: Path, url: str, *more: str) -> int:
    config = state_dir.parent / "config.toml"
    words = ["store", "copy", "--to", url, "--state-dir", str(state_dir), "--config", str(config)]
    return main([*words, "--host-id", HOST, *more])


def _keys(store: SyncStore) -> dict[int, str]:
    return {e.seq: e.key for e in store.entries(statuses=ALL_STATUSES)}


def _outbox(store: SyncStore) -> list[tuple[Any, ...]]:
    """The outbox by key: worker, status, where it was routed (by key), its attempts."""
    entries = store.entries(statuses=ALL_STATUSES)
    keys = _keys(store)
    return sorted(
        (
            e.key,
            e.worker,
            e.status,
            keys.get(e.routed_to) if e.routed_to is not None else None,
            [(a.outcome, a.detail) for a in store.attempts(e.seq)],
        )
        for e in entries
    )


def _contents(store: SyncStore, tmp_path: Path) -> dict[str, Any]:
    with store.read() as tx:
        owner = read_owner(tx, PR)
    return {
        "outbox": _outbox(store),
        "mark": store.load_mark(PR, "comment-wake"),
        "decisions": records_under(store, "comment-wake/decisions/"),
        "outcomes": [
            (o.subject_id, o.worker, o.outcome, _keys(store).get(o.seq))
            for o in outcomes(store, worker="w1")
        ],
        "posts": [(p.key, p.worker, p.status) for p in posts(store)],
        "owner": None if owner is None else owner.worker,
    }


def test_a_store_is_copied_whole_with_its_host_id_stamped(
    state_dir: Path, empty_postgres_url: str, tmp_path: Path
) -> None:
    # Into a database with no store yet, the first copy's case: the copy creates it.
    assert 0 == _copy(state_dir, empty_postgres_url)
    source = open_sync_store(store_path(state_dir))
    target = open_sync_store(empty_postgres_url)
    try:
        stamped = [
            msgspec.structs.replace(w, host_id=HOST) for w in _registry(source, tmp_path).list()
        ]
        assert (stamped, _contents(source, tmp_path)) == (
            list(_registry(target, tmp_path).list()),
            _contents(target, tmp_path),
        )
    finally:
        source.close()
        target.close()


def test_the_copied_orchestrator_and_pr_owner_carry_the_host_id(
    state_dir: Path, postgres_url: str, tmp_path: Path
) -> None:
    _copy(state_dir, postgres_url)
    target = open_sync_store(postgres_url)
    try:
        with target.read() as tx:
            owner = read_owner(tx, PR)
        lead = _registry(target, tmp_path).orchestrator("lead")
        assert (HOST, HOST) == (None if lead is None else lead.host_id, owner and owner.host_id)
    finally:
        target.close()


def test_the_copy_moves_the_registry_version(state_dir: Path, postgres_url: str) -> None:
    target = open_sync_store(postgres_url)
    before = target.registry_version()
    _copy(state_dir, postgres_url)
    try:
        assert before < target.registry_version()
    finally:
        target.close()


def test_the_copy_says_what_it_copied_and_what_to_do_next(
    state_dir: Path, postgres_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    _copy(state_dir, postgres_url)
    said = capsys.readouterr().out
    assert (True, True, True) == (
        "outbox: 4 row(s)" in said,
        f"host id stamped: {HOST}" in said,
        "point [store] url at the server and start the daemon" in said,
    )


def test_a_copy_is_refused_while_the_daemon_holds_the_store(
    state_dir: Path, postgres_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with Lease.acquire(store_path(state_dir)):
        status = _copy(state_dir, postgres_url)
    said = capsys.readouterr().err.strip().splitlines()
    assert (2, 1) == (status, len(said))


def _live_owner_elsewhere(url: str) -> None:
    target = open_sync_store(url)
    try:
        with target.write(at=T0) as tx:
            claim_pr(tx, PR, "desk-2", "wx")
            acquire_lease(
                tx, "host:desk-2", "instance", now=datetime.now(UTC), ttl=timedelta(hours=1)
            )
    finally:
        target.close()


def test_a_copy_is_refused_when_the_target_has_a_live_owner_of_a_pr(
    state_dir: Path, postgres_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    _live_owner_elsewhere(postgres_url)
    status = _copy(state_dir, postgres_url)
    said = capsys.readouterr().err
    assert (2, True) == (status, "github.com/octo/repo#7 has a live owner" in said)


def test_a_refused_copy_writes_nothing(state_dir: Path, postgres_url: str, tmp_path: Path) -> None:
    _live_owner_elsewhere(postgres_url)
    _copy(state_dir, postgres_url)
    target = open_sync_store(postgres_url)
    try:
        with target.read() as tx:
            owner = read_owner(tx, PR)
        assert ((), (), PrOwner("desk-2", "wx", 1)) == (
            _registry(target, tmp_path).list(),
            target.entries(),
            owner,
        )
    finally:
        target.close()


def test_a_second_copy_writes_nothing_and_says_so(
    state_dir: Path, postgres_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    _copy(state_dir, postgres_url)
    target = open_sync_store(postgres_url)
    before = target.registry_version()
    capsys.readouterr()
    status = _copy(state_dir, postgres_url)
    try:
        assert (0, before, True) == (
            status,
            target.registry_version(),
            "nothing to copy" in capsys.readouterr().out,
        )
    finally:
        target.close()


def test_a_copy_to_an_unreachable_server_fails_with_one_line(
    state_dir: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(_common, "COMMAND_CONNECT_TIMEOUT", 0.3)  # a refused port: no wait
    status = _copy(state_dir, "postgresql://cw@127.0.0.1:1/postgres")
    said = capsys.readouterr().err.strip().splitlines()
    assert (1, 1) == (status, len(said))


def test_a_copy_leaves_the_local_store_as_it_was(state_dir: Path, postgres_url: str) -> None:
    before = store_path(state_dir).read_bytes()
    _copy(state_dir, postgres_url)
    assert before == store_path(state_dir).read_bytes()


def test_a_url_with_a_password_is_refused_without_showing_it(
    state_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status = _copy(state_dir, "postgresql://cw:s3cret-pw@127.0.0.1:1/postgres")
    said = capsys.readouterr().err
    assert (2, True, False) == (status, "PGPASSWORD" in said, "s3cret-pw" in said)


def test_outbox_seqs_are_new_in_the_target_and_what_points_at_them_follows(
    state_dir: Path, postgres_url: str, tmp_path: Path
) -> None:
    target = open_sync_store(postgres_url)
    target.enqueue([_notice("elsewhere", 99)], at=T0)  # the target's seqs are taken
    _copy(state_dir, postgres_url)
    source = open_sync_store(store_path(state_dir))
    try:
        theirs = _contents(target, tmp_path)
        theirs["outbox"] = [e for e in _outbox(target) if e[0] != "comment-wake-99"]
        assert _contents(source, tmp_path) == theirs
    finally:
        source.close()
        target.close()


def test_a_copy_is_refused_when_an_id_is_in_the_target_with_other_values(
    state_dir: Path, postgres_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = open_sync_store(postgres_url)
    try:
        _registry(target, tmp_path).add_orchestrator("lead", InboxSpec(root="/elsewhere"))
        status = _copy(state_dir, postgres_url)
        said = capsys.readouterr().err
        assert (2, True, ()) == (
            status,
            "app_records comment-wake/orchestrators/lead is in the target" in said,
            _registry(target, tmp_path).list(),
        )
    finally:
        target.close()
