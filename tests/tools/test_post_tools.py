"""The posting tools over a real SQLite store: the rows ``reply``, ``review`` and
``progress`` write, and what they refuse, before the daemon sends anything."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from comment_wake._post_marker import marker
from comment_wake.registry import InboxSpec, Registry
from comment_wake.store import (
    delivering,
    fail_post,
    open_sync_store,
    outcomes,
    posts,
    progress_post,
    record_posted,
)
from comment_wake.tools import ToolLimits, ToolRefused, WorkerTools
from comment_wake.wake import WakeConfig
from review_monitor import NOTICE_VERSION, Notice, NoticeItem, NoticePr, PrRef
from review_monitor.github import Posted
from review_monitor.store import SyncStore
from review_monitor.testing import FixedClock

PR = PrRef("octo", "repo", 7)
T0 = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
REVIEW_COMMENT = NoticeItem(
    "PRRC_kwDOAlice01",
    1001,
    "https://github.com/octo/repo/pull/7#discussion_r1001",
    "alice",
    "review-comment",
)
COMMENT = NoticeItem(
    "IC_kwDOAlice02",
    1002,
    "https://github.com/octo/repo/pull/7#issuecomment-1002",
    "alice",
    "comment",
)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SyncStore]:
    db = open_sync_store(tmp_path / "state.db")
    yield db
    db.close()


@pytest.fixture
def clock() -> FixedClock:
    return FixedClock(T0)


@pytest.fixture
def head(checkout: tuple[Path, str]) -> tuple[Path, str]:
    return checkout


@pytest.fixture
def registry(
    store: SyncStore, clock: FixedClock, tmp_path: Path, head: tuple[Path, str]
) -> Registry:
    reg = Registry(store, inbox_root=tmp_path / "inbox", clock=clock)
    reg.add_orchestrator("lead", InboxSpec())
    reg.bind(
        "w1",
        PR,
        orchestrator="lead",
        publisher=InboxSpec(),
        post_tools=True,
        workdir=str(head[0]),
    )
    reg.bind("w2", PrRef("octo", "other", 3), orchestrator="lead", publisher=InboxSpec())
    return reg


def tools_for(
    worker: str, store: SyncStore, registry: Registry, clock: FixedClock, **limits: object
) -> WorkerTools:
    return WorkerTools(
        worker,
        store=store,
        registry=registry,
        clock=clock,
        wake=WakeConfig(),
        limits=ToolLimits(**limits),  # type: ignore[arg-type]
    )


@pytest.fixture
def tools(store: SyncStore, registry: Registry, clock: FixedClock) -> WorkerTools:
    return tools_for("w1", store, registry, clock)


def deliver(store: SyncStore, item: NoticeItem) -> None:
    notice = Notice(
        version=NOTICE_VERSION,
        kind="comment-wake",
        key=f"k-{item.id}",
        worker="w1",
        pr=NoticePr(PR.host, PR.repo, PR.number, "https://github.com/octo/repo/pull/7", "t"),
        items=(item,),
        text="...",
        created_at=T0,
    )
    with store.write(at=T0) as tx:
        delivering(1, notice)(tx)


def test_the_posting_tools_are_refused_unless_turned_on(
    store: SyncStore, registry: Registry, clock: FixedClock
) -> None:
    with pytest.raises(ToolRefused, match="bind --post-tools"):
        tools_for("w2", store, registry, clock).progress("half done")


def test_reply_to_a_review_comment_goes_in_its_thread(tools: WorkerTools, store: SyncStore) -> None:
    deliver(store, REVIEW_COMMENT)
    tools.reply(REVIEW_COMMENT.url, "Renamed it.")
    (post,) = posts(store)
    assert ("reply", "review-comment", 1001, False) == (
        post.tool,
        post.target.comment_kind,
        post.target.comment_database_id,
        post.body.startswith("Replying to"),
    )


def test_reply_to_an_issue_comment_links_it(tools: WorkerTools, store: SyncStore) -> None:
    deliver(store, COMMENT)
    tools.reply(COMMENT.id, "Renamed it.")
    (post,) = posts(store)
    assert f"Replying to {COMMENT.url}" == post.body.splitlines()[0]


def test_every_post_ends_with_the_agent_line_and_its_marker(
    tools: WorkerTools, store: SyncStore
) -> None:
    result = tools.progress("half done")
    (post,) = posts(store)
    last_two = post.body.splitlines()[-2:]
    assert (
        "<sub>Posted by the AI agent `w1` through comment-wake, not by a person.</sub>",
        marker(result["key"]),
    ) == tuple(last_two)


def test_reply_addressed_records_the_outcome(tools: WorkerTools, store: SyncStore) -> None:
    deliver(store, COMMENT)
    tools.reply(COMMENT.id, "Done.", addressed="done")
    (row,) = outcomes(store, worker="w1")
    assert "done" == row.outcome


def test_reply_to_a_comment_not_delivered_is_refused(tools: WorkerTools) -> None:
    with pytest.raises(ToolRefused, match="was not delivered to worker w1"):
        tools.reply("IC_kwDOSomeoneElse", "Hi.")


def test_reply_to_an_own_post_is_allowed(
    tools: WorkerTools, store: SyncStore, clock: FixedClock
) -> None:
    first = tools.progress("half done")
    posted = Posted(
        database_id=5005,
        node_id="IC_kwDOOwnPost5",
        html_url="https://github.com/octo/repo/pull/7#issuecomment-5005",
        created_at=T0,
    )
    with store.write(at=T0) as tx:
        record_posted(tx, first["key"], posted, next_at=T0)
    result = tools.reply("IC_kwDOOwnPost5", "And the rest is done too.")
    assert posted.html_url == result["comment"]


def test_a_text_holding_a_marker_is_refused(tools: WorkerTools) -> None:
    with pytest.raises(ToolRefused, match="holds a comment-wake marker"):
        tools.progress(f"see {marker('0' * 32)}")


def test_the_hourly_post_cap_refuses_the_next_post(
    store: SyncStore, registry: Registry, clock: FixedClock
) -> None:
    tools = tools_for("w1", store, registry, clock, posts_per_hour=2)
    deliver(store, COMMENT)
    tools.reply(COMMENT.id, "one")
    tools.reply(COMMENT.id, "two")
    with pytest.raises(ToolRefused, match="2 posts in the last hour"):
        tools.reply(COMMENT.id, "three")


def test_review_of_the_checked_out_head_is_queued_with_its_lines(
    tools: WorkerTools, store: SyncStore, head: tuple[Path, str]
) -> None:
    tools.review("Looks sound.", [{"path": "widget.py", "line": 1, "body": "Rename x?"}], head[1])
    (post,) = posts(store)
    assert ("review", head[1], ("widget.py",)) == (
        post.tool,
        post.target.commit,
        tuple(line.path for line in post.target.lines),
    )


def test_review_with_lines_and_no_summary_gets_the_agent_line_as_summary(
    tools: WorkerTools, store: SyncStore, head: tuple[Path, str]
) -> None:
    tools.review("", [{"path": "widget.py", "line": 1, "body": "Rename x?"}], head[1])
    (post,) = posts(store)
    assert post.body.startswith("<sub>Posted by the AI agent `w1`")


def test_review_of_another_commit_is_refused(tools: WorkerTools, head: tuple[Path, str]) -> None:
    with pytest.raises(ToolRefused, match=f"your checkout's HEAD is {head[1]}"):
        tools.review("Looks sound.", [], "c" * 40)


def test_review_line_with_an_unknown_field_is_refused(
    tools: WorkerTools, head: tuple[Path, str]
) -> None:
    with pytest.raises(ToolRefused, match="line comment 1"):
        tools.review(
            "x", [{"path": "widget.py", "line": 1, "body": "b", "event": "APPROVE"}], head[1]
        )


def test_progress_keeps_one_comment_and_only_the_latest_text_waits(
    tools: WorkerTools, store: SyncStore, clock: FixedClock
) -> None:
    first = tools.progress("step 0")
    posted = Posted(
        database_id=6006,
        node_id="IC_kwDOProgress6",
        html_url="https://github.com/octo/repo/pull/7#issuecomment-6006",
        created_at=T0,
    )
    with store.write(at=T0) as tx:
        record_posted(tx, first["key"], posted, next_at=T0 + timedelta(minutes=5))
    for n in range(1, 11):
        tools.progress(f"step {n}")
    with store.read() as tx:
        post = progress_post(tx, "w1", PR)
    assert post is not None
    assert (1, "step 10", T0 + timedelta(minutes=5)) == (
        len(posts(store)),
        (post.pending_body or "").splitlines()[0],
        post.next_attempt_at,
    )


def test_status_lists_the_posts_with_a_failures_reason(
    tools: WorkerTools, store: SyncStore
) -> None:
    key = tools.progress("half done")["key"]
    with store.write(at=T0) as tx:
        fail_post(tx, key, "locked")
    (line,) = tools.pr_review_monitor("status")["posts"]
    assert (key, "progress", "failed", "locked") == (
        line["key"],
        line["tool"],
        line["status"],
        line["failure"],
    )


POST_LOCK = ("lock", "post-cap:w1")


def test_reply_takes_the_workers_post_lock_before_it_counts_the_hour(
    tools: WorkerTools, store: SyncStore, write_txs: list[list[tuple[str, str]]]
) -> None:
    deliver(store, COMMENT)
    write_txs.clear()
    tools.reply(COMMENT.id, "Done.")
    assert [POST_LOCK] == [events[0] for events in write_txs]


def test_review_takes_the_workers_post_lock_before_it_counts_the_hour(
    tools: WorkerTools, head: tuple[Path, str], write_txs: list[list[tuple[str, str]]]
) -> None:
    tools.review("Looks sound.", [], head[1])
    assert [POST_LOCK] == [events[0] for events in write_txs]


@pytest.mark.parametrize("calls", [1, 2], ids=["create", "edit"])
def test_progress_takes_the_workers_post_lock_before_it_looks_for_its_comment(
    tools: WorkerTools, write_txs: list[list[tuple[str, str]]], calls: int
) -> None:
    for n in range(calls):
        write_txs.clear()
        tools.progress(f"step {n}")
    assert [POST_LOCK] == [events[0] for events in write_txs]
