"""The in-memory publisher answers as scripted, then delivers."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from review_monitor import Busy, Delivered, Gone, Notice
from review_monitor.testing import InMemoryPublisher


@pytest.mark.anyio
async def test_scripted_outcomes_come_first_then_delivery(
    make_notice: Callable[..., Notice],
) -> None:
    publisher = InMemoryPublisher()
    publisher.busy()
    publisher.gone("ended")
    n = make_notice()
    outcomes = [await publisher.publish(n) for _ in range(3)]
    assert ([Busy("mid-turn"), Gone("ended"), Delivered()], [n]) == (
        outcomes,
        publisher.delivered,
    )


@pytest.mark.anyio
async def test_a_scripted_exception_is_raised(make_notice: Callable[..., Notice]) -> None:
    publisher = InMemoryPublisher()
    publisher.script(OSError("disk full"))
    with pytest.raises(OSError, match="disk full"):
        await publisher.publish(make_notice())
