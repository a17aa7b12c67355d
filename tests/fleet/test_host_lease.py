"""A fleet daemon holds its host's lease, ``host:<host_id>``, beside its local lock: a
second daemon naming the same host id from another state directory is refused while
the lease is live; a restart from the same state directory takes it over at once; the
lease renews on the app's clock, and a lost one stops the app."""

from __future__ import annotations

import contextlib
import io
from collections.abc import Iterator
from datetime import timedelta

import anyio
import msgspec
import pytest

from comment_wake.app import DRY_RUN_NEEDS_SQLITE, App
from comment_wake.cli import main
from comment_wake.fleet import host_identity
from comment_wake.store import open_sync_store
from review_monitor import StoreError, StoreLockedError
from review_monitor.store import LeaseLostError, LeaseRow, SyncStore, acquire_lease, read_lease

from .conftest import Fleet

pytestmark = pytest.mark.anyio

NAME = "host:h1"


@pytest.fixture
def db(fleet: Fleet) -> Iterator[SyncStore]:
    """A connection of the test's own to the fleet's store."""
    store = open_sync_store(fleet.url)
    yield store
    store.close()


def _lease(db: SyncStore) -> LeaseRow | None:
    with db.read() as tx:
        return read_lease(tx, NAME)


async def test_a_fleet_daemon_holds_its_host_lease_under_a_fresh_instance_id(
    fleet: Fleet, db: SyncStore
) -> None:
    async with fleet.open() as app:
        assert app.host is not None
        row = _lease(db)
        assert row is not None
        assert (app.host.instance, 1, 1, True) == (
            row.holder,
            row.term,
            app.host.term,
            row.expires_at > fleet.clock.now(),
        )


async def test_the_apps_status_names_the_engine_and_this_hosts_lease(fleet: Fleet) -> None:
    async with fleet.open() as app:
        assert app.host is not None
        report = await app.status()
    assert report.fleet is not None
    assert ("postgresql", "h1", app.host.instance, 1, True) == (
        report.engine,
        report.fleet.host_id,
        report.fleet.holder,
        report.fleet.term,
        report.fleet.live,
    )


async def test_each_host_keeps_its_own_daemon_entry_in_the_shared_store(fleet: Fleet) -> None:
    async with fleet.open() as app, anyio.create_task_group() as tg:
        tg.start_soon(app.run)
        await fleet.clock.advance(timedelta(minutes=1))
        tg.cancel_scope.cancel()
    assert (True, False) == (_status_has_daemon(fleet, "h1"), _status_has_daemon(fleet, "h2"))


def _status_has_daemon(fleet: Fleet, host_id: str) -> bool:
    """Whether ``comment-wake status`` on host ``host_id`` shows a daemon's figures."""
    config = fleet.tmp / f"{host_id}.toml"
    config.write_text(f'[store]\nurl = "{fleet.url}"\n[fleet]\nhost_id = "{host_id}"\n')
    with contextlib.redirect_stdout(io.StringIO()) as out:
        main(["status", "--json", "--config", str(config), "--state-dir", str(fleet.state())])
    return msgspec.json.decode(out.getvalue())["daemon"] is not None


async def test_a_second_daemon_with_the_same_host_id_from_another_state_directory_is_refused(
    fleet: Fleet,
) -> None:
    async with fleet.open() as first:
        assert first.host is not None
        with pytest.raises(StoreLockedError) as refused:
            async with fleet.open(fleet.state("host-b")):
                pass
    said = str(refused.value)
    assert (True, True, True) == (
        "host_id h1" in said,
        f"instance {first.host.instance}" in said,
        "give this daemon its own [fleet] host_id" in said,
    )


async def test_a_restart_after_a_kill_takes_the_live_lease_over_at_once_with_the_next_term(
    fleet: Fleet, db: SyncStore
) -> None:
    # The killed daemon's lease is left live for an hour; its local lock went with it.
    fleet.state().mkdir(mode=0o700)
    claim = host_identity(fleet.state(), "h1").claim
    with db.write(at=fleet.clock.now()) as tx:
        acquire_lease(
            tx, NAME, "killed-instance", now=fleet.clock.now(), ttl=timedelta(hours=1), claim=claim
        )
    async with fleet.open() as app:
        assert app.host is not None
        assert (2, app.host.instance) == (app.host.term, getattr(_lease(db), "holder", None))


async def test_a_clean_exit_releases_the_lease_so_the_next_daemon_of_any_directory_starts(
    fleet: Fleet,
) -> None:
    async with fleet.open():
        pass
    async with fleet.open(fleet.state("host-b")) as second:
        assert second.host is not None
        assert 2 == second.host.term


async def test_the_host_lease_is_renewed_on_the_apps_clock_while_it_runs(
    fleet: Fleet, db: SyncStore
) -> None:
    async with fleet.open() as app, anyio.create_task_group() as tg:
        tg.start_soon(app.run)
        await fleet.clock.advance(timedelta(seconds=5))
        row = _lease(db)
        tg.cancel_scope.cancel()
    assert row is not None
    assert (1, True) == (row.term, row.expires_at > fleet.clock.now())


async def test_a_lost_host_lease_stops_the_app_with_one_line_naming_the_host(
    fleet: Fleet, db: SyncStore
) -> None:
    async with fleet.open() as app:
        started = fleet.clock.now()
        with db.write(at=started) as tx:  # another daemon takes it, as after a lapse
            acquire_lease(
                tx, NAME, "thief", now=started + timedelta(hours=1), ttl=timedelta(hours=2)
            )
        stopped = await _run_for(app, fleet, timedelta(seconds=2))
    lost = [e for e in _leaves(stopped) if isinstance(e, LeaseLostError)]
    assert 1 == len(lost)
    assert ("host_id h1" in str(lost[0]), "\n" in str(lost[0])) == (True, False)


async def test_a_dry_run_on_a_store_url_is_refused(fleet: Fleet) -> None:
    with pytest.raises(StoreError) as refused:
        async with fleet.open(dry_run=True):
            pass
    assert DRY_RUN_NEEDS_SQLITE == str(refused.value)


async def _run_for(app: App, fleet: Fleet, time: timedelta) -> BaseException:
    """Run ``app`` for ``time`` of virtual time; what stopped it (it must stop)."""
    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(app.run)
            await fleet.clock.advance(time)
            tg.cancel_scope.cancel()
    except BaseException as exc:  # an exception group
        return exc
    raise AssertionError(f"the app kept running for {time}")


def _leaves(exc: BaseException) -> Iterator[BaseException]:
    if isinstance(exc, BaseExceptionGroup):
        for inner in exc.exceptions:
            yield from _leaves(inner)
    else:
        yield exc
