"""Replays and floods: a delivery id hints once, refusals are counted and summarised."""

from __future__ import annotations

import copy
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from datetime import timedelta
from typing import Any

import anyio
import httpx
import pytest

from comment_wake.hints import HintCounts, HintListener, WebhookConfig
from comment_wake.hints._ledger import DeliveryIds, Tally
from review_monitor import PrRef
from review_monitor.testing import VirtualClock

from .conftest import SECRET

pytestmark = pytest.mark.anyio

Sign = Callable[..., tuple[bytes, dict[str, str]]]
PR2 = PrRef("Codertocat", "Hello-World", 2)
S = timedelta(seconds=1)
M = timedelta(minutes=1)


def _pr_comment(examples: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    payload = copy.deepcopy(examples["issue_comment"][0])
    payload["issue"]["number"] = 2
    payload["issue"]["pull_request"] = {"url": "https://api.github.com/x"}
    return payload


@asynccontextmanager
async def _serving(
    clock: VirtualClock, hinted: list[PrRef]
) -> AsyncIterator[tuple[HintListener, str]]:
    listener = HintListener(WebhookConfig(enabled=True, port=0), SECRET, hinted.append, clock=clock)
    async with anyio.create_task_group() as tg:
        port = await tg.start(listener.serve)
        yield listener, f"http://127.0.0.1:{port}/github"
        tg.cancel_scope.cancel()


async def _post_all(url: str, deliveries: list[tuple[bytes, dict[str, str]]]) -> list[int]:
    async with httpx.AsyncClient(timeout=5) as client:
        return [(await client.post(url, content=b, headers=h)).status_code for b, h in deliveries]


async def test_a_repeated_delivery_id_is_answered_204_and_hints_once(
    sign: Sign, examples: dict[str, list[dict[str, Any]]]
) -> None:
    hinted: list[PrRef] = []
    delivery = sign("issue_comment", _pr_comment(examples))
    async with _serving(VirtualClock(), hinted) as (_, url):
        statuses = await _post_all(url, [delivery] * 5)
    assert ([202, 204, 204, 204, 204], [PR2]) == (statuses, hinted)


async def test_a_delivery_id_hints_again_after_an_hour(
    sign: Sign, examples: dict[str, list[dict[str, Any]]]
) -> None:
    clock = VirtualClock()
    hinted: list[PrRef] = []
    delivery = sign("issue_comment", _pr_comment(examples))
    async with _serving(clock, hinted) as (_, url):
        first = await _post_all(url, [delivery])
        await clock.advance(60 * M)
        again = await _post_all(url, [delivery])
    assert ([202], [202], [PR2, PR2]) == (first, again, hinted)


async def test_a_malformed_delivery_id_is_answered_400_and_hints_nothing(
    sign: Sign, examples: dict[str, list[dict[str, Any]]]
) -> None:
    hinted: list[PrRef] = []
    delivery = sign("issue_comment", _pr_comment(examples), delivery="not a guid!")
    async with _serving(VirtualClock(), hinted) as (_, url):
        statuses = await _post_all(url, [delivery])
    assert ([400], []) == (statuses, hinted)


async def test_the_listener_counts_what_it_answered(
    sign: Sign, examples: dict[str, list[dict[str, Any]]]
) -> None:
    good = sign("issue_comment", _pr_comment(examples))
    bad = sign("issue_comment", _pr_comment(examples), secret=b"another secret")
    unsigned = (good[0], {k: v for k, v in good[1].items() if k != "X-Hub-Signature-256"})
    async with _serving(VirtualClock(), []) as (listener, url):
        await _post_all(url, [good, good, bad, bad, bad, unsigned])
        counts = listener.counts
    assert HintCounts(hinted=1, duplicates=1, bad_signatures=3, unsigned=1) == counts


async def test_a_flood_of_bad_signatures_is_one_warning_then_one_summary_line(
    sign: Sign, examples: dict[str, list[dict[str, Any]]], caplog: pytest.LogCaptureFixture
) -> None:
    clock = VirtualClock()
    bad = sign("issue_comment", _pr_comment(examples), secret=b"another secret")
    with caplog.at_level(logging.INFO, logger="comment_wake.hints"):
        async with _serving(clock, []) as (_, url):
            caplog.clear()  # the "listening" line
            await _post_all(url, [bad] * 50)
            await clock.advance(5 * M)
            await clock.advance(10 * M)  # quiet: no further summary
    lines = [(r.levelname, r.getMessage()) for r in caplog.records]
    assert [
        (
            "WARNING",
            "refused a webhook delivery: its signature does not match the secret in "
            "COMMENT_WAKE_WEBHOOK_SECRET; refusals in the next 5m are summarised in one line",
        ),
        (
            "WARNING",
            "webhook deliveries in the last 5m: refused 49 with a signature that does not "
            "match the secret in COMMENT_WAKE_WEBHOOK_SECRET; 0 hinted a poll",
        ),
    ] == lines


def test_a_delivery_id_is_forgotten_once_the_window_has_passed() -> None:
    ids = DeliveryIds(window=60 * M, size=10)
    t0 = VirtualClock().now()
    seen = [ids.first_time("a", t0), ids.first_time("a", t0 + 59 * M)]
    assert [True, False, True] == [*seen, ids.first_time("a", t0 + 60 * M)]


def test_the_delivery_id_memory_forgets_the_oldest_past_its_size() -> None:
    ids = DeliveryIds(window=60 * M, size=3)
    t0 = VirtualClock().now()
    for i, name in enumerate("abcd"):
        ids.first_time(name, t0 + i * S)
    assert (3, True) == (len(ids), ids.first_time("a", t0 + 5 * S))  # "a" went first


def test_a_period_without_refusals_makes_the_tally_quiet_again() -> None:
    tally = Tally(5 * M)
    t0 = VirtualClock().now()
    first = tally.count("bad_signatures", t0)
    tally.count("bad_signatures", t0 + S)
    summaries = [tally.summary(t0 + 5 * M), tally.summary(t0 + 10 * M)]
    assert (True, [HintCounts(bad_signatures=1), HintCounts()], None) == (
        first,
        summaries,
        tally.summary_due,
    )
