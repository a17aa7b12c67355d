"""BatchSplitter on its own: which refusals split, and what a split that blames nobody does."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

import pytest

from review_monitor import GraphQLError, PrRef
from review_monitor.poll import BadgeBatch, BatchSplitter

pytestmark = pytest.mark.anyio

T0 = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
PRS = [PrRef("o", "r", n) for n in range(1, 9)]
REFUSED = GraphQLError(
    "refused", errors=[{"extensions": {"code": "undefinedField"}, "message": "x"}], data=None
)


class Reader:
    def __init__(self, bad: set[PrRef] | None = None) -> None:
        self.bad = bad  # None: every request is refused
        self.calls: list[int] = []

    async def __call__(self, prs: Sequence[PrRef]) -> BadgeBatch:
        self.calls.append(len(prs))
        if self.bad is None or self.bad & set(prs):
            raise REFUSED
        return BadgeBatch(statuses={}, cost=1)


async def test_a_refusal_of_every_request_isolates_nobody_and_fails_the_batch() -> None:
    splitter = BatchSplitter(now=lambda: T0)
    with pytest.raises(GraphQLError):
        await splitter.read(Reader(), PRS)
    assert frozenset() == splitter.isolated


async def test_after_a_split_that_blamed_nobody_batches_are_not_split_for_a_while() -> None:
    splitter = BatchSplitter(now=lambda: T0)
    with pytest.raises(GraphQLError):
        await splitter.read(Reader(), PRS)
    again = Reader()
    with pytest.raises(GraphQLError):
        await splitter.read(again, PRS)
    assert [8] == again.calls


async def test_an_isolated_pr_whose_own_read_succeeds_rejoins_the_batches() -> None:
    splitter = BatchSplitter(now=lambda: T0)
    await splitter.read(Reader({PRS[3]}), PRS)
    await splitter.read(Reader(set()), PRS)
    assert frozenset() == splitter.isolated


async def test_two_bad_prs_are_both_isolated() -> None:
    splitter = BatchSplitter(now=lambda: T0)
    await splitter.read(Reader({PRS[0], PRS[7]}), PRS)
    assert frozenset({PRS[0], PRS[7]}) == splitter.isolated


async def test_a_seeded_pr_is_read_alone_without_a_split() -> None:
    splitter = BatchSplitter(now=lambda: T0)
    splitter.seed({PRS[3]: "undefinedField"})
    reader = Reader({PRS[3]})
    await splitter.read(reader, PRS)
    # The seven others together, then the seeded one alone (still refused): no halving.
    assert ([7, 1], {PRS[3]: "undefinedField"}) == (reader.calls, splitter.refused)
