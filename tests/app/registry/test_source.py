"""The registry as the service's binding source and the delivery loop's router."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import anyio
import pytest

from comment_wake.delivery import CommandPublisher, DeliveryLoop, InboxPublisher, WebhookPublisher
from comment_wake.delivery._loop import OnSession, OrchestratorOf, Route
from comment_wake.ownpost import TranscriptSource
from comment_wake.registry import (
    AgentHomes,
    CallbackSpec,
    ClaudeSession,
    CodexThread,
    CommandSpec,
    InboxSpec,
    Registry,
    RegistryBook,
    TranscriptPath,
    Unavailable,
    WebhookSpec,
    claude_project_name,
)
from comment_wake.service import BindingSource
from comment_wake.store import open_store
from comment_wake.wake import Binding
from review_monitor import Delivered, Gone, Notice, NoticePr, PrRef, Refused
from review_monitor.store import SyncStore
from review_monitor.testing import FixedClock

PR = PrRef("octo", "repo", 7)
SID = "3f2a9c4e-1b2c-4d5e-8f90-0123456789ab"
NEW_SID = "9d8c7b6a-1b2c-4d5e-8f90-0123456789ab"


def _file(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('{"type":"user"}\n')
    return path


def test_the_registry_book_is_a_binding_source(registry: Registry) -> None:
    source: BindingSource = RegistryBook(registry)
    assert Binding(pr=PR, worker=None) == source.binding(PR)


def test_a_bound_pr_names_its_worker_and_orchestrator(
    registry: Registry, clock: FixedClock
) -> None:
    registry.bind("w1", PR, orchestrator="o1", publisher=InboxSpec())
    expected = Binding(pr=PR, worker="w1", spawned_by="o1", watched_since=clock.now())
    assert expected == registry.binding(PR)
    assert registry.binding(PR).is_bound


def test_an_archived_worker_is_not_bound_and_not_watched(registry: Registry) -> None:
    registry.bind("w1", PR, orchestrator="o1", publisher=InboxSpec())
    registry.archive("w1")
    expected = Binding(pr=PR, worker="w1", spawned_by="o1", archived=True, watched=False)
    assert expected == registry.binding(PR)


def test_a_pr_on_another_host_is_another_pr(registry: Registry) -> None:
    registry.bind("w1", PR, orchestrator="o1", publisher=InboxSpec())
    other = PrRef("octo", "repo", 7, host="ghe.example.com")
    assert registry.binding(other).worker is None


def test_transcripts_list_worker_then_orchestrator_then_siblings(
    registry: Registry, tmp_path: Path
) -> None:
    mine, boss, sib = (_file(tmp_path / f"{n}.jsonl") for n in ("mine", "boss", "sib"))
    registry.add_orchestrator("o1", InboxSpec(), TranscriptPath(str(boss)))
    registry.bind(
        "w1", PR, orchestrator="o1", publisher=InboxSpec(), transcripts=TranscriptPath(str(mine))
    )
    registry.bind(
        "w2",
        "octo/repo#8",
        orchestrator="o1",
        publisher=InboxSpec(),
        transcripts=TranscriptPath(str(sib)),
    )
    expected = (
        TranscriptSource(str(mine), "worker"),
        TranscriptSource(str(boss), "orchestrator"),
        TranscriptSource(str(sib), "sibling"),
    )
    assert expected == registry.transcripts("w1")


def test_a_transcript_file_gone_since_binding_is_left_out(
    registry: Registry, tmp_path: Path
) -> None:
    mine = _file(tmp_path / "mine.jsonl")
    registry.bind(
        "w1", PR, orchestrator="o1", publisher=InboxSpec(), transcripts=TranscriptPath(str(mine))
    )
    mine.unlink()
    assert () == registry.transcripts("w1")


def test_a_new_session_id_moves_the_claude_transcript_and_keeps_the_old_one(
    registry: Registry, homes: AgentHomes, tmp_path: Path
) -> None:
    cwd = tmp_path / "wt"
    cwd.mkdir()
    folder = homes.claude / "projects" / claude_project_name(str(cwd))
    old = _file(folder / f"{SID}.jsonl")
    registry.bind(
        "w1", PR, orchestrator="o1", publisher=InboxSpec(), transcripts=ClaudeSession(SID, str(cwd))
    )
    new = _file(folder / f"{NEW_SID}.jsonl")
    assert registry.update_session("w1", NEW_SID)
    record = registry.worker("w1")
    assert record is not None
    assert (ClaudeSession(NEW_SID, str(cwd.resolve()), previous=(SID,)),) == record.transcripts
    assert (NEW_SID, (str(new), str(old))) == (
        record.session_id,
        tuple(s.path for s in registry.transcripts("w1")),
    )


def test_a_new_thread_id_moves_the_codex_transcript(registry: Registry, homes: AgentHomes) -> None:
    tid = "019a0b1c-2d3e-7f40-8a5b-6c7d8e9f0a1b"
    _file(
        homes.codex / "sessions" / "2026" / "01" / "02" / f"rollout-2026-01-02T03-04-05-{tid}.jsonl"
    )
    registry.bind("w1", PR, orchestrator="o1", publisher=InboxSpec(), transcripts=CodexThread(tid))
    registry.update_session("w1", "new-thread")
    record = registry.worker("w1")
    assert record is not None
    assert (CodexThread("new-thread", previous=(tid,)),) == record.transcripts


def test_the_same_session_id_again_changes_nothing(registry: Registry) -> None:
    registry.bind("w1", PR, orchestrator="o1", publisher=InboxSpec())
    registry.update_session("w1", SID)
    assert not registry.update_session("w1", SID)


def test_a_session_id_for_nobody_changes_nothing(registry: Registry) -> None:
    assert not registry.update_session("ghost", SID)


def test_route_builds_the_publisher_of_each_kind(registry: Registry, tmp_path: Path) -> None:
    registry.bind("w1", PR, orchestrator="o1", publisher=CommandSpec(("notify", "w1")))
    registry.bind(
        "w2", "octo/repo#8", orchestrator="o1", publisher=WebhookSpec("https://h/x", "HOOK_SECRET")
    )
    registry.bind("w3", "octo/repo#9", orchestrator="o1", publisher=InboxSpec())
    kinds = [type(registry.route(w)) for w in ("w1", "w2", "w3")]
    assert [CommandPublisher, WebhookPublisher, InboxPublisher] == kinds


def test_an_inbox_without_a_root_writes_under_the_state_directory(
    registry: Registry, tmp_path: Path
) -> None:
    registry.bind("w1", PR, orchestrator="o1", publisher=InboxSpec())
    publisher = registry.route("w1")
    assert isinstance(publisher, InboxPublisher)
    assert tmp_path / "state" / "inbox" == publisher.root


def test_a_command_without_a_timeout_gets_the_configured_one(
    store: SyncStore, homes: AgentHomes, tmp_path: Path
) -> None:
    reg = Registry(store, inbox_root=tmp_path, homes=homes, publisher_timeout=timedelta(seconds=42))
    reg.add_orchestrator("o1", InboxSpec())
    reg.bind("w1", PR, orchestrator="o1", publisher=CommandSpec(("n",)))
    publisher = reg.route("w1")
    assert isinstance(publisher, CommandPublisher)
    assert 42.0 == publisher.timeout


def test_route_keeps_one_publisher_per_worker(registry: Registry) -> None:
    registry.bind("w1", PR, orchestrator="o1", publisher=CommandSpec(("notify",)))
    assert registry.route("w1") is registry.route("w1")


def test_an_archived_worker_routes_to_gone(registry: Registry) -> None:
    registry.bind("w1", PR, orchestrator="o1", publisher=InboxSpec())
    registry.archive("w1")
    assert Gone("archived") == registry.route("w1")


def test_an_orchestrator_id_routes_to_the_orchestrator(registry: Registry) -> None:
    assert isinstance(registry.route("o1"), InboxPublisher)


def test_an_unknown_id_routes_nowhere(registry: Registry) -> None:
    assert registry.route("ghost") is None


def test_orchestrator_of_gives_the_spawning_orchestrator(registry: Registry) -> None:
    registry.bind("w1", PR, orchestrator="o1", publisher=InboxSpec())
    found = registry.orchestrator_of("w1")
    assert found is not None
    assert ("o1", InboxPublisher) == (found[0], type(found[1]))


def _notice() -> Notice:
    return Notice(
        version=1,
        kind="comment-wake",
        key="k" * 64,
        worker="w1",
        pr=NoticePr(host="github.com", repo="octo/repo", number=7, url="u", title="t"),
        items=(),
        text="hello",
        created_at=FixedClock().now(),
    )


def test_a_webhook_whose_secret_is_unset_refuses_saying_what_to_set(
    registry: Registry,
) -> None:
    registry.bind("w1", PR, orchestrator="o1", publisher=WebhookSpec("https://h/x", "UNSET_VAR"))
    publisher = registry.route("w1")
    assert isinstance(publisher, Unavailable)
    outcome = anyio.run(publisher.publish, _notice())
    assert isinstance(outcome, Refused)
    assert "UNSET_VAR" in outcome.reason


def test_a_registered_callback_receives_the_notice(
    store: SyncStore, homes: AgentHomes, tmp_path: Path
) -> None:
    got: list[Notice] = []
    reg = Registry(store, inbox_root=tmp_path, homes=homes, callbacks={"cb": got.append})
    reg.add_orchestrator("o1", InboxSpec())
    reg.bind("w1", PR, orchestrator="o1", publisher=CallbackSpec("cb"))
    publisher = reg.route("w1")
    assert publisher is not None
    assert not isinstance(publisher, Gone)
    notice = _notice()
    assert Delivered() == anyio.run(publisher.publish, notice)
    assert [notice] == got


def test_bound_at_is_the_clock_time(registry: Registry, clock: FixedClock) -> None:
    record = registry.bind("w1", PR, orchestrator="o1", publisher=InboxSpec())
    assert clock.now() == record.bound_at


def test_a_resolved_codex_rollout_is_looked_up_again_after_a_minute(
    registry: Registry, homes: AgentHomes, clock: FixedClock
) -> None:
    tid = "019a0b1c-2d3e-7f40-8a5b-6c7d8e9f0a1b"
    day = homes.codex / "sessions" / "2026" / "01" / "02"
    first = _file(day / f"rollout-2026-01-02T03-04-05-{tid}.jsonl")
    registry.bind("w1", PR, orchestrator="o1", publisher=InboxSpec(), transcripts=CodexThread(tid))
    registry.transcripts("w1")
    window = _file(day / f"rollout-2026-01-02T03-04-05-{tid}_2.jsonl")
    within = [s.path for s in registry.transcripts("w1")]
    clock.advance(timedelta(minutes=1))
    after = [s.path for s in registry.transcripts("w1")]
    assert ([str(first)], [str(first), str(window)]) == (within, after)


def test_a_cached_transcript_that_moved_is_found_again_at_once(
    registry: Registry, homes: AgentHomes
) -> None:
    tid = "019a0b1c-2d3e-7f40-8a5b-6c7d8e9f0a1b"
    name = f"rollout-2026-01-02T03-04-05-{tid}.jsonl"
    live = _file(homes.codex / "sessions" / "2026" / "01" / "02" / name)
    registry.bind("w1", PR, orchestrator="o1", publisher=InboxSpec(), transcripts=CodexThread(tid))
    registry.transcripts("w1")
    archived = homes.codex / "archived_sessions" / name
    archived.parent.mkdir(parents=True)
    live.rename(archived)
    assert (TranscriptSource(str(archived), "worker"),) == registry.transcripts("w1")


@pytest.mark.anyio
async def test_the_delivery_loop_hands_an_archived_workers_notice_to_its_orchestrator(
    tmp_path: Path, homes: AgentHomes, clock: FixedClock
) -> None:
    state = tmp_path / "state"
    with (
        Registry.open(state, clock=clock, homes=homes) as reg,
        open_store(state / "state.db", clock=clock) as store,
    ):
        reg.add_orchestrator("o1", InboxSpec(str(tmp_path / "boss-box")))
        reg.bind("w1", PR, orchestrator="o1", publisher=InboxSpec(str(tmp_path / "w1-box")))
        reg.archive("w1")
        await store.call(SyncStore.enqueue, [_notice()], at=clock.now())
        route: Route = reg.route
        orchestrator_of: OrchestratorOf = reg.orchestrator_of
        on_session: OnSession = reg.on_session
        loop = DeliveryLoop(
            store, route=route, clock=clock, orchestrator_of=orchestrator_of, on_session=on_session
        )
        await loop.run_once()
        await loop.run_once()
    written = sorted(p.name for p in (tmp_path / "boss-box").rglob("*") if p.is_file())
    assert (False, True) == ((tmp_path / "w1-box").exists(), bool(written))
