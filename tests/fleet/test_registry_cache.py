"""In fleet mode ``inbox take`` never opens the PostgreSQL store: the daemon keeps a
registry cache in the state directory (0600, rewritten when the registry version
moves), and the hook checks its id and finds its inbox there, even while the server
cannot be reached."""

from __future__ import annotations

import stat
from datetime import UTC, datetime, timedelta
from pathlib import Path

import anyio
import msgspec
import pytest

from comment_wake.cli import main
from comment_wake.delivery import InboxPublisher
from comment_wake.registry import (
    REGISTRY_CACHE,
    InboxSpec,
    Registry,
    read_registry_cache,
)
from review_monitor import NOTICE_VERSION, Notice, NoticePr, notice_key

from .conftest import PR, Fleet

pytestmark = pytest.mark.anyio

# Nothing listens on port 1: a command that opened the store would fail.
UNREACHABLE = "postgresql://cw@127.0.0.1:1/comment_wake"


def _notice(worker: str) -> Notice:
    return Notice(
        version=NOTICE_VERSION,
        kind="comment-wake",
        key=notice_key(worker, PR, "comment-wake", ("IC_1",)),
        worker=worker,
        pr=NoticePr(host=PR.host, repo=PR.repo, number=PR.number, url="", title="t"),
        items=(),
        text="alice commented",
        created_at=datetime(2026, 3, 2, 9, 0, tzinfo=UTC),
    )


def _bind(state: Path, url: str, worker: str = "w-42") -> None:
    with Registry.open(state, store=url) as registry:
        if registry.orchestrator("o-1") is None:
            registry.add_orchestrator("o-1", InboxSpec())
        registry.bind(worker, PR, orchestrator="o-1", publisher=InboxSpec())


def _add_orchestrator(state: Path, url: str, orchestrator: str) -> None:
    with Registry.open(state, store=url) as registry:
        registry.add_orchestrator(orchestrator, InboxSpec())


async def test_the_daemon_writes_the_registry_cache_private_at_start(fleet: Fleet) -> None:
    _bind(fleet.state(), fleet.url)
    async with fleet.open():
        pass
    cache = read_registry_cache(fleet.state())
    mode = stat.S_IMODE((fleet.state() / REGISTRY_CACHE).stat().st_mode)
    assert (["o-1", "w-42"], 0o600) == (sorted(cache.ids) if cache else None, mode)


async def test_the_registry_cache_follows_a_registration_made_while_the_daemon_runs(
    fleet: Fleet,
) -> None:
    _bind(fleet.state(), fleet.url)
    async with fleet.open(ttl=timedelta(seconds=30)) as app, anyio.create_task_group() as tg:
        tg.start_soon(app.run)
        await fleet.clock.advance(timedelta(minutes=1))
        await anyio.to_thread.run_sync(_add_orchestrator, fleet.state(), fleet.url, "o-2")
        await fleet.clock.advance(timedelta(minutes=2))
        tg.cancel_scope.cancel()
    cache = read_registry_cache(fleet.state())
    assert ["o-1", "o-2", "w-42"] == (sorted(cache.ids) if cache else None)


async def test_a_registry_cache_that_cannot_be_written_does_not_stop_the_daemon(
    fleet: Fleet,
) -> None:
    _bind(fleet.state(), fleet.url)
    (fleet.state() / REGISTRY_CACHE).mkdir()  # os.replace onto a directory fails
    async with fleet.open() as app:
        assert app.host is not None
        term = app.host.term
    assert 1 == term


async def test_inbox_take_works_from_the_cache_while_the_server_cannot_be_reached(
    fleet: Fleet, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _bind(fleet.state(), fleet.url)
    async with fleet.open():
        pass
    notice = _notice("w-42")
    await InboxPublisher(fleet.state() / "inbox").publish(notice)
    code = main(_argv(tmp_path, fleet.state(), "w-42"))
    out = capsys.readouterr().out
    keys = [msgspec.json.decode(line, type=Notice).key for line in out.splitlines()]
    assert (0, [notice.key]) == (code, keys)


def test_inbox_take_in_fleet_mode_refuses_an_id_the_cache_does_not_know(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    state = tmp_path / "state"
    state.mkdir()
    (state / REGISTRY_CACHE).write_text('{"version": 1, "ids": {}}', encoding="utf-8")
    code = main(_argv(tmp_path, state, "w-typo"))
    err = capsys.readouterr().err
    assert (2, True) == (code, "'w-typo'" in err and "registry cache" in err)


def test_inbox_take_in_fleet_mode_without_a_cache_says_the_daemon_writes_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    state = tmp_path / "state"
    state.mkdir()
    code = main(_argv(tmp_path, state, "w-42"))
    err = capsys.readouterr().err
    assert (1, True) == (code, "the daemon writes" in err and "comment-wake run" in err)


def _argv(tmp: Path, state: Path, worker: str) -> list[str]:
    config = tmp / "unreachable.toml"
    config.write_text(f'[store]\nurl = "{UNREACHABLE}"\n', encoding="utf-8")
    return ["inbox", "take", worker, "--config", str(config), "--state-dir", str(state)]
