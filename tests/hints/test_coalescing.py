"""Hints reach the real Poller: deliveries for one PR arriving together cause one poll."""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from contextlib import AbstractAsyncContextManager
from datetime import datetime, timedelta
from typing import Any

import anyio
import httpx
import pytest

from review_monitor import PrRef, Watch
from review_monitor.poll import BadgeBatch, Poller
from review_monitor.testing import VirtualClock

pytestmark = pytest.mark.anyio

Running = Callable[..., AbstractAsyncContextManager[str]]
Sign = Callable[..., tuple[bytes, dict[str, str]]]
PR2 = PrRef("Codertocat", "Hello-World", 2)
OTHER = PrRef("Codertocat", "Hello-World", 3)


class Watched:
    def __init__(self, *prs: PrRef) -> None:
        self.prs = prs

    async def watches(self) -> Sequence[Watch]:
        return [Watch(thread_id=f"worker-{pr.number}", pr=pr) for pr in self.prs]


class Reads:
    """A badge reader that records when it read which PRs (and finds nothing new)."""

    def __init__(self, clock: VirtualClock) -> None:
        self.clock = clock
        self.calls: list[tuple[datetime, tuple[PrRef, ...]]] = []

    async def __call__(self, prs: Sequence[PrRef]) -> BadgeBatch:
        self.calls.append((self.clock.now(), tuple(prs)))
        return BadgeBatch(statuses={}, cost=1, remaining=5000)


def _deliveries(examples: dict[str, list[dict[str, Any]]], sign: Sign) -> list[Any]:
    comment = copy.deepcopy(examples["issue_comment"][0])
    comment["issue"]["number"] = 2
    comment["issue"]["pull_request"] = {"url": "https://api.github.com/x"}
    return [
        sign("issue_comment", comment),
        sign("pull_request_review", examples["pull_request_review"][0]),
        sign("pull_request_review_comment", examples["pull_request_review_comment"][0]),
        sign("pull_request", examples["pull_request"][0]),
    ]


async def test_deliveries_for_one_pr_arriving_together_cause_one_poll_of_it(
    running: Running, sign: Sign, examples: dict[str, list[dict[str, Any]]]
) -> None:
    clock = VirtualClock()
    t0 = clock.now()
    reads = Reads(clock)
    poller = Poller(watches=Watched(PR2, OTHER), read_badges=reads, listeners=(), clock=clock)
    async with anyio.create_task_group() as tg:
        tg.start_soon(poller.run)
        await clock.settle()  # the first round reads both PRs at t0
        async with running(hint=poller.poll_now) as url, httpx.AsyncClient(timeout=5) as c:
            statuses = [
                (await c.post(url, content=b, headers=h)).status_code
                for b, h in _deliveries(examples, sign)
            ]
        await clock.advance(timedelta(seconds=30))  # less than the 60 s poll interval
        tg.cancel_scope.cancel()
    expected = ([202] * 4, [(t0, (PR2, OTHER)), (t0 + timedelta(seconds=2), (PR2,))])
    assert expected == (statuses, reads.calls)


async def test_a_hint_for_an_unwatched_pr_costs_no_poll(
    running: Running, sign: Sign, examples: dict[str, list[dict[str, Any]]]
) -> None:
    clock = VirtualClock()
    reads = Reads(clock)
    poller = Poller(watches=Watched(OTHER), read_badges=reads, listeners=(), clock=clock)
    async with anyio.create_task_group() as tg:
        tg.start_soon(poller.run)
        await clock.settle()
        async with running(hint=poller.poll_now) as url, httpx.AsyncClient(timeout=5) as c:
            body, headers = sign("pull_request", examples["pull_request"][0])
            status = (await c.post(url, content=body, headers=headers)).status_code
        await clock.advance(timedelta(seconds=30))
        tg.cancel_scope.cancel()
    assert (202, [(OTHER,)]) == (status, [prs for _, prs in reads.calls])
