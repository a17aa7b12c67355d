"""CommentWake with real parts: the store in tmp_path, the client on FakeGitHub, the real
permissions, a virtual clock and a recording sink.  Every fault commits nothing or exactly
what the rules allow, says so in one line that names no author and quotes no text, and
the next look decides correctly."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Concatenate, ParamSpec, TypeVar

import anyio
import pytest

from comment_wake.ownpost import TranscriptSource
from comment_wake.service.testing import ServiceRig
from comment_wake.wake import NOTICE_KIND, WakeConfig, decode_mark
from review_monitor import LookupFailed, PermissionAnswer, PermissionChecker
from review_monitor.store import Store, SyncStore
from review_monitor.testing import Fault

pytestmark = pytest.mark.anyio

MARK = "MARKER-7f3a"
MINUTE = timedelta(minutes=1)


def _leaks(rig: ServiceRig, caplog: pytest.LogCaptureFixture) -> list[str]:
    """Log text naming the author or quoting the body: the sink's lines and the Python
    logging of comment-wake and the monitor (its client logs routes, never logins)."""
    ours = [
        r.getMessage()
        for r in caplog.records
        if r.name.startswith(("comment_wake", "review_monitor"))
    ]
    texts = [line.message for line in rig.events.lines] + ours
    return [t for t in texts if MARK in t or "bob" in t.lower() or "octo-user" in t.lower()]


def _warnings(rig: ServiceRig) -> list[str]:
    return [line.message for line in rig.events.lines if line.level == "warning"]


def _comment(rig: ServiceRig, node_id: str, author: str = "bob", body: str = "") -> datetime:
    at = rig.clock.now()
    rig.fake.post_comment(rig.pr, author, body or f"Please rebase. {MARK}", node_id=node_id, at=at)
    return at


async def _baseline(rig: ServiceRig) -> None:
    await rig.poll()
    await rig.clock.advance(timedelta(seconds=10))


async def test_one_look_commits_the_mark_and_the_notice_then_tells_the_sink(
    rig: ServiceRig,
) -> None:
    await _baseline(rig)
    created = _comment(rig, "IC_1")
    await rig.clock.advance(MINUTE)
    await rig.poll()
    assert [("IC_1", "wake", "writer")] == rig.events.outcomes()
    assert [("IC_1",)] == rig.events.wakes
    assert created == rig.events.decisions[0].created_at
    entries = rig.store.sync.entries(statuses=("pending",))
    assert [(NOTICE_KIND, "w-1")] == [(e.notice.kind, e.notice.worker) for e in entries]
    assert MARK in entries[0].notice.text
    blob = rig.stored_mark()
    assert blob is not None
    mark = decode_mark(blob)
    assert (rig.clock.now(),) == mark.wakes
    assert "IC_1" in {h.id for h in mark.handled}


async def test_a_quiet_second_look_writes_nothing_and_tells_nothing(rig: ServiceRig) -> None:
    await _baseline(rig)
    _comment(rig, "IC_1")
    await rig.clock.advance(MINUTE)
    await rig.poll()
    told = len(rig.events.events)
    await rig.clock.advance(MINUTE)
    await rig.poll()
    assert told == len(rig.events.events)


# -- faults in the reads ---------------------------------------------------------------


async def test_a_detail_read_fault_commits_nothing_and_warns_once_without_author_or_text(
    rig: ServiceRig, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    await _baseline(rig)
    before = rig.stored_mark()
    _comment(rig, "IC_1")
    await rig.clock.advance(MINUTE)
    rig.fake.inject(Fault(status=502, kind="detail"))
    await rig.poll()
    assert before == rig.stored_mark()
    assert [] == rig.events.decisions
    assert () == rig.store.sync.entries(statuses=("pending",))
    assert 1 == len(_warnings(rig))
    assert "comment details" in _warnings(rig)[0]
    assert [] == _leaks(rig, caplog)


async def test_after_a_detail_read_fault_the_next_poll_decides(rig: ServiceRig) -> None:
    await _baseline(rig)
    _comment(rig, "IC_1")
    await rig.clock.advance(MINUTE)
    rig.fake.inject(Fault(status=502, kind="detail"))
    await rig.poll()
    await rig.clock.advance(MINUTE)
    await rig.poll()
    assert [("IC_1", "wake", "writer")] == rig.events.outcomes()


async def _flood_past_the_window(rig: ServiceRig) -> None:
    """bob's comment, then 12 of mallory's: the badge (last 10) no longer lists bob's."""
    await _baseline(rig)
    _comment(rig, "IC_bob")
    for n in range(12):
        await rig.clock.advance(timedelta(seconds=1))
        _comment(rig, f"IC_m{n}", "mallory", f"spam {n}")
    await rig.clock.advance(MINUTE)


async def test_a_gap_read_fault_commits_nothing_and_warns_once_without_author_or_text(
    rig: ServiceRig, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    await _flood_past_the_window(rig)
    before = rig.stored_mark()
    rig.fake.inject(Fault(status=502, kind="gap"))
    await rig.poll()
    assert before == rig.stored_mark()
    assert [] == rig.events.decisions
    assert ["gap"] == [w for w in ("gap",) if w in " ".join(_warnings(rig))]
    assert 1 == len(_warnings(rig))
    assert [] == _leaks(rig, caplog)


async def test_after_a_gap_read_fault_the_next_poll_reads_the_gap_and_wakes(
    rig: ServiceRig,
) -> None:
    await _flood_past_the_window(rig)
    rig.fake.inject(Fault(status=502, kind="gap"))
    await rig.poll()
    await rig.clock.advance(MINUTE)
    await rig.poll()
    woken = [c for c, outcome, _ in rig.events.outcomes() if outcome == "wake"]
    skipped = {r for _, outcome, r in rig.events.outcomes() if outcome == "skip"}
    assert (["IC_bob"], {"not-writer"}) == (woken, skipped)


async def test_the_gap_bound_grows_with_the_poll_interval_in_force(tmp_path: Path) -> None:
    rig = ServiceRig(tmp_path, config=WakeConfig(gap_pages=1))
    rig.fake.set_permission(rig.pr.repo, "bob", "write")
    rig.interval = 2 * MINUTE  # the governor stretched the 60 s poll: two pages, not one
    await _baseline(rig)
    _comment(rig, "IC_bob")
    for n in range(150):  # 140 behind the window: a second page reaches bob's
        await rig.clock.advance(timedelta(milliseconds=100))
        _comment(rig, f"IC_m{n}", "mallory", f"spam {n}")
    await rig.clock.advance(MINUTE)
    await rig.poll()
    await rig.aclose()
    woken = [c for c, outcome, _ in rig.events.outcomes() if outcome == "wake"]
    assert ["IC_bob"] == woken


async def test_a_failed_permission_lookup_commits_a_retry_and_logs_nothing_yet(
    rig: ServiceRig,
) -> None:
    await _baseline(rig)
    _comment(rig, "IC_1")
    await rig.clock.advance(MINUTE)
    rig.fake.inject(Fault(status=502, kind="permission"))
    await rig.poll()
    blob = rig.stored_mark()
    assert blob is not None
    assert ["IC_1"] == [p.item.id for p in decode_mark(blob).pending]
    assert [("IC_1", "retry", "lookup-failed")] == rig.events.outcomes()
    assert rig.clock.now() + MINUTE == rig.wake.due(rig.pr)
    assert [] == rig.events.lines


async def test_a_failed_permission_lookup_is_retried_on_schedule_then_delivered(
    rig: ServiceRig,
) -> None:
    await _baseline(rig)
    _comment(rig, "IC_1")
    await rig.clock.advance(MINUTE)
    rig.fake.inject(Fault(status=503, kind="permission"))
    await rig.poll()
    await rig.clock.advance(timedelta(seconds=30))
    await rig.poll()  # before the retry is due: no lookup, no decision
    assert 1 == rig.fake.count("permission")
    due = rig.wake.due(rig.pr)
    assert due is not None
    await rig.clock.advance_to(due)
    await rig.poll()
    assert [("IC_1", "retry", "lookup-failed"), ("IC_1", "wake", "writer")] == (
        rig.events.outcomes()
    )


async def test_a_lookup_that_keeps_failing_gives_up_with_one_warning_without_author_or_text(
    rig: ServiceRig, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    await _baseline(rig)
    _comment(rig, "IC_1")
    await rig.clock.advance(MINUTE)
    rig.fake.inject(Fault(status=502, kind="permission", times=4))
    await rig.poll()
    while (due := rig.wake.due(rig.pr)) is not None:
        await rig.clock.advance_to(due)
        await rig.poll()
    retries = [("IC_1", "retry", "lookup-failed")] * 3
    assert [*retries, ("IC_1", "skip", "lookup-failed")] == rig.events.outcomes()
    assert 1 == len(_warnings(rig))
    assert [] == _leaks(rig, caplog)


# -- the own-post scan -----------------------------------------------------------------

_POSTED = f"Rebased onto main. {MARK}"


def _transcript(rig: ServiceRig, posted_at: datetime) -> str:
    """A Codex rollout in which the worker posted ``_POSTED`` to this PR."""
    t = posted_at.strftime("%Y-%m-%dT%H:%M:%S.000Z")
    lines: list[dict[str, Any]] = [
        {
            "timestamp": t,
            "type": "session_meta",
            "payload": {"id": "0198f0aa-w1", "cwd": "/home/dev/src/octo-repo"},
        },
        {
            "timestamp": t,
            "type": "event_msg",
            "payload": {"type": "user_message", "message": "Work on PR #12.", "images": []},
        },
        {
            "timestamp": t,
            "type": "response_item",
            "payload": {
                "type": "function_call",
                "name": "exec_command",
                "arguments": json.dumps({"cmd": f'gh pr comment 12 --body "{_POSTED}"'}),
                "call_id": "call_0",
            },
        },
        {
            "timestamp": t,
            "type": "response_item",
            "payload": {
                "type": "function_call_output",
                "call_id": "call_0",
                "output": "Process exited with code 0\nOutput:\n",
            },
        },
    ]
    return "".join(json.dumps(line) + "\n" for line in lines)


async def _own_post_rig(rig: ServiceRig, path: Path, broken: str) -> datetime:
    """The worker posts as the user's login (octo-user); its transcript is ``broken``."""
    rig.fake.set_permission(rig.pr.repo, "octo-user", "admin")
    rig.bindings.sources["w-1"] = [TranscriptSource(str(path), "worker")]
    if broken == "directory":
        path.mkdir()
    await _baseline(rig)
    posted = rig.clock.now()
    await rig.clock.advance(timedelta(seconds=5))
    _comment(rig, "IC_own", "octo-user", _POSTED)
    await rig.clock.advance(MINUTE)
    return posted


@pytest.mark.parametrize("broken", ["missing", "directory"])
async def test_an_unreadable_transcript_commits_nothing_and_warns_once_without_author_or_text(
    rig: ServiceRig, tmp_path: Path, caplog: pytest.LogCaptureFixture, broken: str
) -> None:
    caplog.set_level(logging.DEBUG)
    await _own_post_rig(rig, tmp_path / "w-1.jsonl", broken)
    before = rig.stored_mark()
    await rig.poll()
    assert (before, []) == (rig.stored_mark(), rig.events.decisions)
    assert 1 == len(_warnings(rig))
    assert "transcript" in _warnings(rig)[0]
    assert [] == _leaks(rig, caplog)


async def test_once_the_transcript_is_readable_the_next_poll_passes_over_the_own_post(
    rig: ServiceRig, tmp_path: Path
) -> None:
    path = tmp_path / "w-1.jsonl"
    posted = await _own_post_rig(rig, path, "missing")
    await rig.poll()
    path.write_text(_transcript(rig, posted), encoding="utf-8")
    await rig.clock.advance(MINUTE)
    await rig.poll()
    assert [("IC_own", "skip", "own-post")] == rig.events.outcomes()


# -- one look at a time, restarts, kill-safety -------------------------------------------


class _Gated:
    """Permissions whose lookups wait for ``gate``: a look held half-way."""

    def __init__(self, inner: PermissionChecker) -> None:
        self.inner = inner
        self.gate = anyio.Event()
        self.waiting = 0

    async def lookup(self, repo: str, login: str, now: datetime) -> PermissionAnswer | LookupFailed:
        self.waiting += 1
        await self.gate.wait()
        return await self.inner.lookup(repo, login, now)


async def test_a_timer_look_waits_while_a_poll_steps_the_same_pr(rig: ServiceRig) -> None:
    gated = _Gated(rig.permissions)
    rig.wake = rig.service(gated)
    await _baseline(rig)
    _comment(rig, "IC_1")
    await rig.clock.advance(MINUTE)
    calls = rig.bindings.calls
    async with anyio.create_task_group() as tg:
        tg.start_soon(rig.poll)
        await rig.clock.settle()
        assert 1 == gated.waiting
        tg.start_soon(rig.wake.look, rig.pr, rig.clock.now())
        await rig.clock.settle()
        assert calls + 1 == rig.bindings.calls  # the second look has not begun
        gated.gate.set()
    assert calls + 2 == rig.bindings.calls
    assert [("IC_1", "wake", "writer")] == rig.events.outcomes()


async def test_a_restart_rebuilds_the_retry_timer_from_the_mark_at_the_first_poll(
    rig: ServiceRig,
) -> None:
    await _baseline(rig)
    _comment(rig, "IC_1")
    await rig.clock.advance(MINUTE)
    rig.fake.inject(Fault(status=502, kind="permission"))
    await rig.poll()
    due = rig.wake.due(rig.pr)
    restarted = rig.restart()
    assert None is restarted.due(rig.pr)
    await rig.clock.advance(timedelta(seconds=20))
    await rig.poll()
    assert due == restarted.due(rig.pr)


async def test_after_a_restart_the_rebuilt_timer_fires_and_delivers(rig: ServiceRig) -> None:
    await _baseline(rig)
    _comment(rig, "IC_1")
    await rig.clock.advance(MINUTE)
    rig.fake.inject(Fault(status=502, kind="permission"))
    await rig.poll()
    restarted = rig.restart()
    await rig.clock.advance(timedelta(seconds=20))
    await rig.poll()
    due = restarted.due(rig.pr)
    assert due is not None
    async with anyio.create_task_group() as tg:
        tg.start_soon(restarted.run)
        await rig.clock.advance_to(due)
        tg.cancel_scope.cancel()
    assert ("IC_1", "wake", "writer") == rig.events.outcomes()[-1]
    assert due == rig.events.decisions[-1].at


_P = ParamSpec("_P")
_T = TypeVar("_T")


class _CommitFails(Store):
    """The process dies inside the commit: the transaction never happens."""

    fail = True

    async def call(
        self, fn: Callable[Concatenate[SyncStore, _P], _T], /, *args: _P.args, **kwargs: _P.kwargs
    ) -> _T:
        if self.fail and fn is SyncStore.commit:
            raise RuntimeError("killed inside the commit")
        return await super().call(fn, *args, **kwargs)


async def test_when_the_commit_raises_the_sink_has_heard_nothing(rig: ServiceRig) -> None:
    await _baseline(rig)
    store = _CommitFails(rig.store.sync)
    rig.store = store
    rig.wake = rig.service()
    before = rig.stored_mark()
    _comment(rig, "IC_1")
    await rig.clock.advance(MINUTE)
    with pytest.raises(RuntimeError):
        await rig.poll()
    assert ([], before) == (rig.events.events, rig.stored_mark())
    assert () == rig.store.sync.entries(statuses=("pending",))


async def test_after_a_failed_commit_the_next_look_decides_once(rig: ServiceRig) -> None:
    await _baseline(rig)
    store = _CommitFails(rig.store.sync)
    rig.store = store
    rig.wake = rig.service()
    _comment(rig, "IC_1")
    await rig.clock.advance(MINUTE)
    with pytest.raises(RuntimeError):
        await rig.poll()
    store.fail = False
    await rig.poll()
    await rig.poll()
    assert [("IC_1", "wake", "writer")] == rig.events.outcomes()
    assert 1 == len(rig.store.sync.entries(statuses=("pending",)))


# -- unbinding and archiving -------------------------------------------------------------


async def _one_held(rig: ServiceRig) -> None:
    """IC_1 wakes the worker; IC_2, a few seconds later, is held by the rate limit."""
    await _baseline(rig)
    _comment(rig, "IC_1")
    await rig.clock.advance(timedelta(seconds=30))
    await rig.poll()
    await rig.clock.advance(timedelta(seconds=5))
    _comment(rig, "IC_2", "carol")
    await rig.clock.advance(timedelta(seconds=10))
    await rig.poll()
    assert ("IC_2", "held", "rate-limit") == rig.events.outcomes()[-1]


async def test_archiving_the_worker_drops_a_held_comment_at_the_next_poll(
    rig: ServiceRig,
) -> None:
    await _one_held(rig)
    rig.unbind(archived=True)
    await rig.clock.advance(timedelta(seconds=5))
    await rig.poll()
    assert ("IC_2", "drop", "unbound") == rig.events.outcomes()[-1]
    blob = rig.stored_mark()
    assert blob is not None
    assert ((), None) == (decode_mark(blob).held, rig.wake.due(rig.pr))


async def test_an_archived_workers_held_comment_is_dropped_by_its_timer_without_a_poll(
    rig: ServiceRig,
) -> None:
    await _one_held(rig)
    due = rig.wake.due(rig.pr)
    assert due is not None
    rig.unbind(archived=True)  # the watch goes with it: no more polls
    async with anyio.create_task_group() as tg:
        tg.start_soon(rig.wake.run)
        await rig.clock.advance_to(due)
        tg.cancel_scope.cancel()
    assert ("IC_2", "drop", "unbound") == rig.events.outcomes()[-1]
    assert [("IC_1",)] == rig.events.wakes


async def test_unbinding_the_worker_decides_a_pending_retry_at_its_timer(rig: ServiceRig) -> None:
    await _baseline(rig)
    _comment(rig, "IC_1")
    await rig.clock.advance(MINUTE)
    rig.fake.inject(Fault(status=502, kind="permission"))
    await rig.poll()
    due = rig.wake.due(rig.pr)
    assert due is not None
    rig.unbind(archived=False)
    async with anyio.create_task_group() as tg:
        tg.start_soon(rig.wake.run)
        await rig.clock.advance_to(due)
        tg.cancel_scope.cancel()
    assert ("IC_1", "skip", "unbound") == rig.events.outcomes()[-1]
    assert 1 == rig.fake.count("permission")  # no second lookup for an unbound worker


async def test_after_a_restart_a_look_without_a_badge_finishes_an_unbound_pr(
    rig: ServiceRig,
) -> None:
    await _one_held(rig)
    restarted = rig.restart()
    rig.unbind(archived=True)
    await restarted.look(rig.pr, rig.clock.now())
    assert ("IC_2", "drop", "unbound") == rig.events.outcomes()[-1]
    blob = rig.stored_mark()
    assert blob is not None
    assert () == decode_mark(blob).held


async def test_a_look_without_a_badge_leaves_a_bound_pr_alone(rig: ServiceRig) -> None:
    await _one_held(rig)
    told = len(rig.events.events)
    restarted = rig.restart()
    assert None is await restarted.look(rig.pr, rig.clock.now())
    assert told == len(rig.events.events)


async def test_an_injected_detail_reader_serves_the_bodies_without_a_query_of_its_own(
    rig: ServiceRig,
) -> None:
    from comment_wake.service import CommentWake
    from review_monitor.github import read_details

    asked: list[list[str]] = []

    async def batch_reader(ids: Any, first_page_only: Any = ()) -> Any:
        asked.append(list(ids))
        return await read_details(rig.client, ids, first_page_only=first_page_only)

    rig.wake = CommentWake(
        store=rig.store,
        api=rig.client,
        permissions=rig.permissions,
        bindings=rig.bindings,
        publish=rig.events,
        clock=rig.clock,
        details=batch_reader,
    )
    await _baseline(rig)
    _comment(rig, "IC_1")
    await rig.clock.advance(MINUTE)
    await rig.poll()

    assert ([["IC_1"]], [("IC_1", "wake", "writer")]) == (asked, rig.events.outcomes())
