"""The callback publisher."""

from __future__ import annotations

from collections.abc import Callable

import anyio
import pytest

from comment_wake.delivery import CallbackError, CallbackPublisher, PublishTimeoutError
from review_monitor import Busy, Delivered, Notice, PublishOutcome, Refused

NoticeFactory = Callable[..., Notice]
pytestmark = pytest.mark.anyio


async def test_a_sync_callback_returning_none_is_delivered(make_notice: NoticeFactory) -> None:
    got: list[Notice] = []
    outcome = await CallbackPublisher(got.append).publish(make_notice())
    assert (Delivered(), [make_notice()]) == (outcome, got)


async def test_an_async_callback_outcome_is_passed_through(make_notice: NoticeFactory) -> None:
    async def busy(notice: Notice) -> PublishOutcome:
        await anyio.sleep(0)
        return Busy("mid-turn")

    assert Busy("mid-turn") == await CallbackPublisher(busy).publish(make_notice())


async def test_a_new_session_id_is_passed_through(make_notice: NoticeFactory) -> None:
    def rebind(notice: Notice) -> PublishOutcome:
        return Delivered(session_id="s-2")

    assert Delivered(session_id="s-2") == await CallbackPublisher(rebind).publish(make_notice())


async def test_a_raising_callback_raises_for_retry(make_notice: NoticeFactory) -> None:
    def broken(notice: Notice) -> None:
        raise RuntimeError("session manager down")

    with pytest.raises(CallbackError) as caught:
        await CallbackPublisher(broken).publish(make_notice())
    assert isinstance(caught.value.__cause__, RuntimeError)


async def test_a_slow_async_callback_times_out(make_notice: NoticeFactory) -> None:
    async def slow(notice: Notice) -> None:
        await anyio.sleep(30)

    with pytest.raises(PublishTimeoutError):
        await CallbackPublisher(slow, timeout=0.1).publish(make_notice())


async def test_a_callback_returning_something_else_is_refused(make_notice: NoticeFactory) -> None:
    def wrong(notice: Notice) -> bool:
        return True

    outcome = await CallbackPublisher(wrong).publish(make_notice())  # type: ignore[arg-type]
    assert isinstance(outcome, Refused)
