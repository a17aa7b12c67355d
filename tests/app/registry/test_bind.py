"""Binding, unbinding and archiving: records and watches change together or not at all."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import msgspec
import pytest

from comment_wake.registry import (
    CallbackSpec,
    CommandSpec,
    InboxSpec,
    RefusedInputError,
    Registry,
    TranscriptPath,
    UnknownWorkerError,
    WebhookSpec,
    WorkerRecord,
)
from comment_wake.store import read_record
from review_monitor import PrRef, Watch
from review_monitor.store import SyncStore, WriteTx

PR = PrRef("octo", "repo", 7)


def test_bind_stores_the_binding_and_watches_the_pr(
    registry: Registry, store: SyncStore, transcript: Path
) -> None:
    record = registry.bind(
        "w1",
        "octo/repo#7",
        orchestrator="o1",
        publisher=CommandSpec(("notify", "w1")),
        transcripts=TranscriptPath(str(transcript)),
    )
    assert (PR, "o1", (TranscriptPath(str(transcript)),)) == (
        record.pr,
        record.orchestrator,
        record.transcripts,
    )
    assert (record,) == registry.list()
    assert (Watch("w1", PR),) == store.watches()


def test_bind_uses_the_host_given(registry: Registry, store: SyncStore) -> None:
    registry.bind(
        "w1", "octo/repo#7", orchestrator="o1", publisher=InboxSpec(), host="GHE.Example.com"
    )
    assert (Watch("w1", PrRef("octo", "repo", 7, host="ghe.example.com")),) == store.watches()


def test_unbind_forgets_the_worker_and_its_watch(registry: Registry, store: SyncStore) -> None:
    registry.bind("w1", PR, orchestrator="o1", publisher=InboxSpec())
    registry.unbind("w1")
    assert ((), ()) == (registry.list(), store.watches())


def test_archive_keeps_the_record_and_ends_the_watch(registry: Registry, store: SyncStore) -> None:
    registry.bind("w1", PR, orchestrator="o1", publisher=InboxSpec())
    registry.archive("w1")
    assert ([True], ()) == ([w.archived for w in registry.list()], store.watches())


def test_binding_again_to_another_pr_moves_the_watch(registry: Registry, store: SyncStore) -> None:
    registry.bind("w1", PR, orchestrator="o1", publisher=InboxSpec())
    registry.bind("w1", "octo/repo#8", orchestrator="o1", publisher=InboxSpec())
    assert (Watch("w1", PrRef("octo", "repo", 8)),) == store.watches()


def test_binding_an_archived_worker_again_brings_it_back(
    registry: Registry, store: SyncStore
) -> None:
    registry.bind("w1", PR, orchestrator="o1", publisher=InboxSpec())
    registry.archive("w1")
    registry.bind("w1", PR, orchestrator="o1", publisher=InboxSpec())
    assert ([False], (Watch("w1", PR),)) == (
        [w.archived for w in registry.list()],
        store.watches(),
    )


def test_siblings_are_the_other_workers_of_the_same_orchestrator(registry: Registry) -> None:
    registry.add_orchestrator("o2", InboxSpec())
    registry.bind("w1", PR, orchestrator="o1", publisher=InboxSpec())
    registry.bind("w2", "octo/repo#8", orchestrator="o1", publisher=InboxSpec())
    registry.bind("w3", "octo/repo#9", orchestrator="o2", publisher=InboxSpec())
    assert ["w2"] == [s.worker for s in registry.siblings("w1")]


def test_records_survive_reopening_the_store(
    registry: Registry, any_store_opener: Callable[[], SyncStore], tmp_path: Path
) -> None:
    registry.bind("w1", PR, orchestrator="o1", publisher=CommandSpec(("x",), timeout=3.0))
    again = Registry(any_store_opener(), inbox_root=tmp_path / "state" / "inbox")
    assert registry.list() == again.list()


# -- refusals: a message that says what to fix, and nothing written --------------------


def _nothing_written(registry: Registry, store: SyncStore) -> tuple[object, ...]:
    return (registry.list(), store.watches())


@pytest.mark.parametrize(
    ("pr", "fragment"),
    [
        ("octo/repo", "write it as owner/name#N"),
        ("octo/repo#0", "write it as owner/name#N"),
        ("octo/repo#3000000000", "GitHub numbers pull requests from 1 to 2147483647"),
        ("https://ghe.example.com/octo/repo/pull/7", "pass --host ghe.example.com"),
    ],
)
def test_a_malformed_pr_reference_is_refused(
    registry: Registry, store: SyncStore, pr: str, fragment: str
) -> None:
    with pytest.raises(RefusedInputError, match=fragment):
        registry.bind("w1", pr, orchestrator="o1", publisher=InboxSpec())
    assert ((), ()) == _nothing_written(registry, store)


def test_an_unknown_orchestrator_is_refused(registry: Registry, store: SyncStore) -> None:
    with pytest.raises(RefusedInputError, match="orchestrator add nope"):
        registry.bind("w1", PR, orchestrator="nope", publisher=InboxSpec())
    assert ((), ()) == _nothing_written(registry, store)


def test_an_unknown_publisher_kind_is_refused(registry: Registry, store: SyncStore) -> None:
    with pytest.raises(RefusedInputError, match="unknown publisher kind"):
        registry.bind("w1", PR, orchestrator="o1", publisher="tmux")  # type: ignore[arg-type]
    assert ((), ()) == _nothing_written(registry, store)


def test_a_callback_not_registered_in_this_process_is_refused(registry: Registry) -> None:
    with pytest.raises(RefusedInputError, match="no callback named 'cb'"):
        registry.bind("w1", PR, orchestrator="o1", publisher=CallbackSpec("cb"))


def test_a_webhook_secret_env_that_is_not_a_variable_name_is_refused(
    registry: Registry,
) -> None:
    with pytest.raises(RefusedInputError, match="never the secret itself"):
        registry.bind(
            "w1", PR, orchestrator="o1", publisher=WebhookSpec("https://h/x", "ghp_abc-def")
        )


def test_a_transcript_that_does_not_exist_is_refused(
    registry: Registry, store: SyncStore, tmp_path: Path
) -> None:
    missing = tmp_path / "nope.jsonl"
    with pytest.raises(RefusedInputError, match="does not exist"):
        registry.bind(
            "w1",
            PR,
            orchestrator="o1",
            publisher=InboxSpec(),
            transcripts=TranscriptPath(str(missing)),
        )
    assert ((), ()) == _nothing_written(registry, store)


def test_a_pr_bound_to_another_live_worker_is_refused(registry: Registry) -> None:
    registry.bind("w1", PR, orchestrator="o1", publisher=InboxSpec())
    with pytest.raises(RefusedInputError, match="already bound to worker 'w1'"):
        registry.bind("w2", PR, orchestrator="o1", publisher=InboxSpec())
    assert ["w1"] == [w.worker for w in registry.list()]


def test_a_worker_id_that_cannot_name_an_inbox_is_refused(registry: Registry) -> None:
    with pytest.raises(RefusedInputError, match="not a usable id"):
        registry.bind("../w1", PR, orchestrator="o1", publisher=InboxSpec())


def test_a_failure_inside_the_transaction_leaves_nothing_half_written(
    registry: Registry, store: SyncStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(tx: WriteTx, thread_id: str, pr: PrRef) -> bool:
        raise OSError("disk full")

    monkeypatch.setattr("comment_wake.registry._registry.add_watch", broken)
    with pytest.raises(OSError, match="disk full"):
        registry.bind("w1", PR, orchestrator="o1", publisher=InboxSpec())
    assert ((), ()) == _nothing_written(registry, store)


def test_a_failed_rebind_keeps_the_old_binding_and_watch(
    registry: Registry, store: SyncStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = registry.bind("w1", PR, orchestrator="o1", publisher=InboxSpec())

    def broken(tx: WriteTx, thread_id: str, pr: PrRef) -> bool:
        raise OSError("disk full")

    monkeypatch.setattr("comment_wake.registry._registry.add_watch", broken)
    with pytest.raises(OSError, match="disk full"):
        registry.bind("w1", "octo/repo#8", orchestrator="o1", publisher=InboxSpec())
    assert ((before,), (Watch("w1", PR),)) == _nothing_written(registry, store)


def test_unbinding_an_unknown_worker_says_so(registry: Registry) -> None:
    with pytest.raises(UnknownWorkerError, match="no worker 'ghost'"):
        registry.unbind("ghost")


def test_an_orchestrator_with_workers_cannot_be_removed(registry: Registry) -> None:
    registry.bind("w1", PR, orchestrator="o1", publisher=InboxSpec())
    with pytest.raises(RefusedInputError, match="unbind them first"):
        registry.remove_orchestrator("o1")


def test_records_are_json_naming_their_publisher_kind(registry: Registry, store: SyncStore) -> None:
    registry.bind("w1", PR, orchestrator="o1", publisher=CommandSpec(("n",)))
    blob = read_record(store, "comment-wake/workers", "w1")
    assert blob is not None
    assert "command" == msgspec.json.decode(blob)["publisher"]["kind"]
    assert "w1" == msgspec.json.decode(blob, type=WorkerRecord).worker
