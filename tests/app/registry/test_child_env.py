"""A binding's ``--env`` names: stored, passed to its command, never a secret of the daemon's."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from comment_wake.delivery import CommandPublisher
from comment_wake.registry import (
    WORKERS,
    CommandSpec,
    InboxSpec,
    RefusedInputError,
    Registry,
    WebhookSpec,
)
from comment_wake.store import put_record
from review_monitor import PrRef
from review_monitor.store import SyncStore
from review_monitor.testing import FixedClock

PR = PrRef("octo", "repo", 7)


def test_the_names_a_binding_adds_are_stored_with_it(registry: Registry) -> None:
    registry.bind(
        "w1", PR, orchestrator="o1", publisher=CommandSpec(("notify",), env=("PROVIDER_KEY",))
    )
    record = registry.worker("w1")
    assert record is not None
    assert CommandSpec(("notify",), env=("PROVIDER_KEY",)) == record.publisher


def test_a_binding_stored_before_env_existed_reads_as_passing_none(
    registry: Registry, store: SyncStore, clock: FixedClock
) -> None:
    old = {
        "worker": "w1",
        "pr": msgspec.to_builtins(PR),
        "orchestrator": "o1",
        "publisher": {"kind": "command", "argv": ["notify"], "timeout": None},
    }
    with store.write(at=clock.now()) as tx:
        put_record(tx, WORKERS, "w1", msgspec.json.encode(old))
    record = registry.worker("w1")
    assert record is not None
    assert CommandSpec(("notify",)) == record.publisher


def test_the_command_publisher_passes_the_bindings_names(registry: Registry) -> None:
    registry.bind(
        "w1", PR, orchestrator="o1", publisher=CommandSpec(("notify",), env=("PROVIDER_KEY",))
    )
    publisher = registry.route("w1")
    assert isinstance(publisher, CommandPublisher)
    assert frozenset({"PROVIDER_KEY"}) == publisher.pass_env


@pytest.mark.parametrize(
    "name", ["GH_TOKEN", "GITHUB_TOKEN", "GH_ENTERPRISE_TOKEN", "COMMENT_WAKE_WEBHOOK_SECRET"]
)
def test_env_naming_a_daemon_secret_is_refused(registry: Registry, name: str) -> None:
    with pytest.raises(RefusedInputError, match=f"--env {name} names one of the daemon's"):
        registry.bind("w1", PR, orchestrator="o1", publisher=CommandSpec(("n",), env=(name,)))


def test_env_naming_the_configured_hint_secret_is_refused(store: SyncStore, tmp_path: Path) -> None:
    registry = Registry(store, inbox_root=tmp_path / "inbox", daemon_secrets=("MY_HINT_SECRET",))
    registry.add_orchestrator("o1", InboxSpec())
    spec = CommandSpec(("n",), env=("MY_HINT_SECRET",))
    with pytest.raises(RefusedInputError, match="--env MY_HINT_SECRET names one of the daemon"):
        registry.bind("w1", PR, orchestrator="o1", publisher=spec)


def test_env_naming_a_webhook_publishers_secret_is_refused(registry: Registry) -> None:
    registry.add_orchestrator("o2", WebhookSpec("https://orch.example/hook", "HOOK_SECRET"))
    spec = CommandSpec(("n",), env=("HOOK_SECRET",))
    with pytest.raises(RefusedInputError, match="names a webhook publisher's signing secret"):
        registry.bind("w1", PR, orchestrator="o1", publisher=spec)


def test_a_webhook_secret_another_command_passes_is_refused(registry: Registry) -> None:
    spec = CommandSpec(("n",), env=("HOOK_SECRET",))
    registry.bind("w1", PR, orchestrator="o1", publisher=spec)
    with pytest.raises(RefusedInputError, match="is passed to w1's command"):
        registry.add_orchestrator("o2", WebhookSpec("https://orch.example/hook", "HOOK_SECRET"))


def test_a_webhook_secret_every_child_would_get_is_refused(registry: Registry) -> None:
    hook = WebhookSpec("https://orch.example/hook", "OPENAI_HOOK_SECRET")
    with pytest.raises(RefusedInputError, match="is a name every command publisher's child"):
        registry.add_orchestrator("o2", hook)


def test_env_that_is_not_a_variable_name_is_refused(registry: Registry) -> None:
    spec = CommandSpec(("n",), env=("A=B",))
    with pytest.raises(RefusedInputError, match="must name an environment variable"):
        registry.bind("w1", PR, orchestrator="o1", publisher=spec)


def test_a_command_withholds_a_registered_webhooks_secret(registry: Registry) -> None:
    registry.add_orchestrator("o2", WebhookSpec("https://orch.example/hook", "HOOK_SECRET"))
    registry.bind("w1", PR, orchestrator="o1", publisher=CommandSpec(("notify",)))
    publisher = registry.route("w1")
    assert isinstance(publisher, CommandPublisher)
    assert "HOOK_SECRET" in publisher.withhold


def test_a_webhook_secret_registered_later_is_withheld_from_then_on(registry: Registry) -> None:
    before = registry.secret_names()
    registry.add_orchestrator("o2", WebhookSpec("https://orch.example/hook", "HOOK_SECRET"))
    assert (False, True) == ("HOOK_SECRET" in before, "HOOK_SECRET" in registry.secret_names())
