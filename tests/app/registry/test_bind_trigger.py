"""A binding's own trigger mode and mention handle: stored on the worker's record, carried
to the wake's binding, and absent (the ``[wake]`` table's) from records written before."""

from __future__ import annotations

import msgspec
import pytest

from comment_wake.registry import InboxSpec, RefusedInputError, Registry, WorkerRecord
from review_monitor import PrRef

PR = PrRef("octo", "repo", 7)


def test_bind_stores_the_trigger_and_handle(registry: Registry) -> None:
    record = registry.bind(
        "w1", PR, orchestrator="o1", publisher=InboxSpec(), trigger="mention", handle="/agent"
    )
    assert ("mention", "/agent") == (record.trigger, record.handle)


def test_the_wakes_binding_carries_the_records_trigger_and_handle(registry: Registry) -> None:
    registry.bind(
        "w1", PR, orchestrator="o1", publisher=InboxSpec(), trigger="mention", handle="/agent"
    )
    binding = registry.binding(PR)
    assert ("mention", "/agent") == (binding.trigger, binding.handle)


def test_a_binding_without_them_takes_the_configs(registry: Registry) -> None:
    registry.bind("w1", PR, orchestrator="o1", publisher=InboxSpec())
    binding = registry.binding(PR)
    assert (None, None) == (binding.trigger, binding.handle)


def test_a_record_written_before_the_fields_decodes_unchanged(registry: Registry) -> None:
    record = registry.bind("w1", PR, orchestrator="o1", publisher=InboxSpec())
    raw = msgspec.json.decode(msgspec.json.encode(record))
    del raw["trigger"], raw["handle"]
    old = msgspec.json.decode(msgspec.json.encode(raw), type=WorkerRecord)
    assert record == old


def test_bind_refuses_a_handle_with_spaces(registry: Registry) -> None:
    with pytest.raises(RefusedInputError, match="one word"):
        registry.bind("w1", PR, orchestrator="o1", publisher=InboxSpec(), handle="my agent")
