"""One delivery run for the crash test (a subprocess, killed with SIGKILL at will).

Usage: ``python driver.py RUN.json``.  It builds the app through the composition root
(``open_app``: its store on the state directory with the daemon lease, the registry with
a callback publisher per worker, the GitHub client pointed at the harness's FakeGitHub),
commits at most ``max_batches`` of the plan's batches not committed yet (each batch with
its PR's progress mark, in one transaction, as a listener does), runs the app's delivery
loop (which also sends the acknowledgements) and exits 0 once everything committed is
delivered, handed off and acknowledged.

Only the delivery runs, not ``app.run()``: the poller would read the plan's comments
from FakeGitHub and the wake would decide them, adding notices the plan does not know.

The named kill points live here, in wrappers around what the app is given: the run's
``kill_at`` (``"<point>:<nth>"``) SIGKILLs the process the ``nth`` time ``point`` is
reached.  ``KILL_POINTS`` says where each one is.
"""

from __future__ import annotations

import logging
import os
import random
import signal
import sys
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Concatenate, Final, ParamSpec, TypeVar

import anyio
import httpx
import msgspec

from comment_wake._paths import store_path
from comment_wake.app import open_app
from comment_wake.config import AppConfig
from comment_wake.delivery import DeliveryConfig, NoticeCallback, WebhookPublisher
from comment_wake.registry import CallbackSpec, Registry
from comment_wake.store import APP_TABLES, reactions
from review_monitor import GitHubConfig, Notice, PrRef, PublishOutcome, SystemClock
from review_monitor.github import RetryPolicy
from review_monitor.store import Mark, Store, SyncStore

LISTENER = "crash-driver"

KILL_POINTS: Final = (
    # the driver committed a mark and its notices to the outbox (as a listener does)
    "outbox-written",
    # publisher wrapper: the loop called the worker's publisher, nothing is sent yet
    "before-publish",
    # publisher wrapper: the webhook answered (the worker may have the notice), nothing
    # is recorded yet
    "published",
    # store wrapper: the outcome (delivered, busy, error, hand-off, park) is committed
    "outcome-recorded",
    # store wrapper: later notices were merged into a busy head, not yet published
    "merged",
    # transport wrapper: an addReaction mutation is about to go to GitHub
    "ack-before-send",
    # transport wrapper: GitHub answered the mutation, the reactions are not recorded done
    "ack-sent",
)

_P = ParamSpec("_P")
_T = TypeVar("_T")


class KillSwitch:
    """SIGKILLs this process the ``nth`` time ``point`` is reached (``spec`` None: never)."""

    def __init__(self, spec: str | None) -> None:
        self.point: str | None = None
        self.nth = 1
        self.hits = 0
        if spec is None:
            return
        point, _, nth = spec.partition(":")
        if point not in KILL_POINTS:
            raise SystemExit(f"unknown kill point {point!r}; one of {', '.join(KILL_POINTS)}")
        self.point = point
        self.nth = int(nth) if nth else 1
        if self.nth < 1:
            raise SystemExit("the count after ':' must be a positive integer")

    def reach(self, point: str) -> None:
        if point != self.point:
            return
        self.hits += 1
        if self.hits >= self.nth:
            os.kill(os.getpid(), signal.SIGKILL)


# The store calls whose commit is a kill point: the delivery loop's outcome writes, and
# the merge of later notices into a busy head.
_STORE_POINTS: Final[dict[object, str]] = {
    SyncStore.mark_delivered: "outcome-recorded",
    SyncStore.record_attempt: "outcome-recorded",
    SyncStore.hand_off: "outcome-recorded",
    SyncStore.park: "outcome-recorded",
    SyncStore.merge_into: "merged",
}


class KillingStore(Store):
    """The app's store, given through ``open_app(store=...)``: every call goes through
    ``Store.call`` (the loop calls ``store.call(SyncStore.mark_delivered, ...)``, so a
    ``SyncStore`` subclass would never see it); after one of ``_STORE_POINTS`` commits,
    its point is reached."""

    switch = KillSwitch(None)

    async def call(
        self,
        fn: Callable[Concatenate[SyncStore, _P], _T],
        /,
        *args: _P.args,
        **kwargs: _P.kwargs,
    ) -> _T:
        result = await super().call(fn, *args, **kwargs)
        point = _STORE_POINTS.get(fn)
        if point is not None:
            self.switch.reach(point)
        return result


def killing_callback(publisher: WebhookPublisher, switch: KillSwitch) -> NoticeCallback:
    """A worker's publisher for ``open_app(callbacks=...)``: the real webhook publisher
    with ``before-publish`` and ``published`` around it."""

    async def publish(notice: Notice) -> PublishOutcome:
        switch.reach("before-publish")
        try:
            return await publisher.publish(notice)
        finally:
            switch.reach("published")  # answered or failed: nothing is recorded yet

    return publish


class KillingTransport(httpx.AsyncBaseTransport):
    """The GitHub client's transport: ``ack-before-send`` and ``ack-sent`` around every
    ``addReaction`` mutation."""

    def __init__(self, inner: httpx.AsyncBaseTransport, switch: KillSwitch) -> None:
        self._inner = inner
        self._switch = switch

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        ack = b"addReaction" in request.content
        if ack:
            self._switch.reach("ack-before-send")
        response = await self._inner.handle_async_request(request)
        if ack:
            await response.aread()
            self._switch.reach("ack-sent")
        return response

    async def aclose(self) -> None:
        await self._inner.aclose()


class Batch(msgspec.Struct, frozen=True):
    pr: PrRef
    index: int  # position among this PR's batches
    notices: tuple[Notice, ...]


class Run(msgspec.Struct, frozen=True):
    state_dir: str
    receiver: str  # base URL; each worker posts to /<worker>
    github: str  # FakeGitHub's loopback base URL
    secret: str
    archived: tuple[str, ...]
    orchestrator: str
    batches: tuple[Batch, ...]
    max_batches: int
    seed: int
    kill_at: str | None = None


def _register(registry: Registry, run: Run, workers: dict[str, PrRef]) -> None:
    """The plan's workers bound (each to its callback), the archived ones archived; what
    an earlier run registered is left as it is."""
    if registry.orchestrator(run.orchestrator) is None:
        registry.add_orchestrator(run.orchestrator, CallbackSpec(run.orchestrator))
    for worker, pr in workers.items():
        record = registry.worker(worker)
        if record is None:
            record = registry.bind(
                worker, pr, orchestrator=run.orchestrator, publisher=CallbackSpec(worker)
            )
        if worker in run.archived and not record.archived:
            registry.archive(worker)


async def main(run: Run) -> int:
    logging.basicConfig(level=logging.ERROR)
    switch = KillSwitch(run.kill_at)
    clock = SystemClock()
    rng = random.Random(run.seed)
    state_dir = Path(run.state_dir)
    state_dir.mkdir(parents=True, exist_ok=True)
    store = KillingStore.open(store_path(state_dir), lease=True, clock=clock, tables=APP_TABLES)
    assert isinstance(store, KillingStore)
    store.switch = switch
    workers = {n.worker: b.pr for b in run.batches for n in b.notices}
    callbacks = {
        name: killing_callback(
            WebhookPublisher(f"{run.receiver}/{name}", run.secret, timeout=5.0), switch
        )
        for name in (*workers, run.orchestrator)
    }
    config = AppConfig(
        github=GitHubConfig(api_url=run.github),
        delivery=DeliveryConfig(
            backoff_base=timedelta(milliseconds=10),
            backoff_cap=timedelta(milliseconds=80),
            scan_interval=timedelta(milliseconds=50),
            reaction_backoff_base=timedelta(milliseconds=20),
            reaction_backoff_cap=timedelta(milliseconds=100),
            publisher_timeout=timedelta(seconds=5),
            attempt_limit=timedelta(seconds=10),
        ),
    )
    try:
        async with open_app(
            config,
            state_dir=state_dir,
            token="crash-test-token",
            transport=KillingTransport(httpx.AsyncHTTPTransport(), switch),
            clock=clock,
            callbacks=callbacks,
            retry=RetryPolicy(attempts=1),
            rng=rng,
            store=store,
            deliver=True,
        ) as app:
            assert app.registry is not None
            assert app.delivery is not None
            _register(app.registry, run, workers)
            delivery = app.delivery
            print("ready", flush=True)
            async with anyio.create_task_group() as tg:
                tg.start_soon(delivery.run)
                committed = 0
                for batch in run.batches:
                    if committed >= run.max_batches:
                        break
                    mark = await store.call(SyncStore.load_mark, batch.pr, LISTENER)
                    done = -1 if mark is None else int(mark.blob.decode())
                    if batch.index <= done:
                        continue
                    await store.call(
                        SyncStore.commit,
                        batch.pr,
                        LISTENER,
                        mark=Mark(1, str(batch.index).encode()),
                        notices=batch.notices,
                        at=clock.now(),
                    )
                    switch.reach("outbox-written")
                    committed += 1
                    delivery.poke()
                    await anyio.sleep(rng.uniform(0.0, 0.01))
                while await _unfinished(store):
                    await anyio.sleep(0.02)
                tg.cancel_scope.cancel()
    finally:
        store.close()  # given to open_app, so ours to close
    return 0


async def _unfinished(store: Store) -> bool:
    """Notices still to deliver or reactions still owed."""
    pending = await store.call(SyncStore.entries)
    owed = await store.call(reactions, statuses=("pending",))
    return bool(pending or owed)


if __name__ == "__main__":
    spec = msgspec.json.decode(Path(sys.argv[1]).read_bytes(), type=Run)
    sys.exit(anyio.run(main, spec))
