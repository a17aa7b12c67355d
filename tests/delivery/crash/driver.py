"""One delivery run for the crash test (a subprocess, killed with SIGKILL at will).

Usage: ``python driver.py RUN.json``.  It opens the store with the daemon lease, commits
at most ``max_batches`` of the plan's batches not committed yet (each batch with its PR's
progress mark, in one transaction, as a listener does), runs the delivery loop with a
webhook publisher per worker, and exits 0 once everything committed is delivered, handed
off and acknowledged.  ``COMMENT_WAKE_KILL_AT`` arms a named kill point.
"""

from __future__ import annotations

import logging
import random
import sys
from datetime import timedelta
from pathlib import Path

import anyio
import msgspec

from comment_wake.delivery import (
    DeliveryConfig,
    DeliveryLoop,
    WebhookPublisher,
    kill_point,
)
from comment_wake.store import open_store, reactions
from review_monitor import GitHubConfig, Gone, Notice, PrRef, Publisher, SystemClock
from review_monitor.github import GitHubClient, RetryPolicy
from review_monitor.store import Mark, Store, SyncStore

LISTENER = "crash-driver"


class Batch(msgspec.Struct, frozen=True):
    pr: PrRef
    index: int  # position among this PR's batches
    notices: tuple[Notice, ...]


class Run(msgspec.Struct, frozen=True):
    store: str
    receiver: str  # base URL; each worker posts to /<worker>
    github: str  # FakeGitHub's loopback base URL
    secret: str
    archived: tuple[str, ...]
    orchestrator: str
    batches: tuple[Batch, ...]
    max_batches: int
    seed: int


async def main(run: Run) -> int:
    logging.basicConfig(level=logging.ERROR)
    clock = SystemClock()
    rng = random.Random(run.seed)
    store = open_store(run.store, lease=True)
    publishers: dict[str, Publisher] = {}

    def publisher(worker: str) -> Publisher:
        if worker not in publishers:
            publishers[worker] = WebhookPublisher(
                f"{run.receiver}/{worker}", run.secret, timeout=5.0
            )
        return publishers[worker]

    def route(worker: str) -> Publisher | Gone | None:
        if worker in run.archived:
            return Gone("archived")
        return publisher(worker)

    def orchestrator_of(worker: str) -> tuple[str, Publisher] | None:
        return run.orchestrator, publisher(run.orchestrator)

    config = DeliveryConfig(
        backoff_base=timedelta(milliseconds=10),
        backoff_cap=timedelta(milliseconds=80),
        poll_interval=timedelta(milliseconds=50),
        reaction_backoff_base=timedelta(milliseconds=20),
        reaction_backoff_cap=timedelta(milliseconds=100),
        publisher_timeout=timedelta(seconds=5),
        attempt_limit=timedelta(seconds=10),
    )
    async with GitHubClient(
        "crash-test-token", GitHubConfig(api_url=run.github), retry=RetryPolicy(attempts=1)
    ) as github:
        loop = DeliveryLoop(
            store,
            route=route,
            clock=clock,
            config=config,
            rng=rng,
            orchestrator_of=orchestrator_of,
            github=github,
        )
        print("ready", flush=True)
        async with anyio.create_task_group() as tg:
            tg.start_soon(loop.run)
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
                kill_point("outbox-written")
                committed += 1
                loop.poke()
                await anyio.sleep(rng.uniform(0.0, 0.01))
            while await _unfinished(store):
                await anyio.sleep(0.02)
            tg.cancel_scope.cancel()
    store.close()
    return 0


async def _unfinished(store: Store) -> bool:
    """Notices still to deliver or reactions still owed."""
    pending = await store.call(SyncStore.entries)
    owed = await store.call(reactions, statuses=("pending",))
    return bool(pending or owed)


if __name__ == "__main__":
    spec = msgspec.json.decode(Path(sys.argv[1]).read_bytes(), type=Run)
    sys.exit(anyio.run(main, spec))
