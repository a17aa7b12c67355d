"""The ``callback`` publisher: a Python callable, for a session manager embedding comment-wake."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from typing import cast

import anyio

from review_monitor import Busy, Delivered, Gone, Notice, PublishOutcome, Refused

from ._errors import CallbackError, PublishTimeoutError

__all__ = ["CallbackPublisher", "NoticeCallback"]

NoticeCallback = Callable[[Notice], PublishOutcome | Awaitable[PublishOutcome | None] | None]
"""An in-process publisher: gets the notice, returns an outcome (or an awaitable of one);
None means delivered."""
_OUTCOMES = (Delivered, Busy, Gone, Refused)


class CallbackPublisher:
    """Calls ``callback(notice)``; a coroutine result is awaited.

    ``None`` means delivered; an outcome is passed through; an exception raises
    ``CallbackError`` (retried).  A synchronous callback runs on the event loop, so it
    should hand the notice over and return quickly.  ``timeout`` bounds an async one.
    """

    def __init__(self, callback: NoticeCallback, *, timeout: float | None = None) -> None:
        if not callable(callback):
            raise TypeError("callback must be callable")
        self._callback = callback
        self._timeout = timeout
        self._name = getattr(callback, "__qualname__", type(callback).__name__)

    def __repr__(self) -> str:
        return f"CallbackPublisher({self._name})"

    async def publish(self, notice: Notice) -> PublishOutcome:
        result: object
        try:
            with anyio.fail_after(self._timeout):
                # Typed loosely on purpose: an embedder's callable may return anything.
                result = cast("object", self._callback(notice))
                if inspect.isawaitable(result):
                    result = await result
        except TimeoutError:
            raise PublishTimeoutError(
                f"callback {self._name} ran past its {self._timeout:g}s timeout"
            ) from None
        except Exception as exc:
            raise CallbackError(f"callback {self._name} raised {type(exc).__name__}") from exc
        if result is None:
            return Delivered()
        if isinstance(result, _OUTCOMES):
            return result
        return Refused(f"callback {self._name} returned {type(result).__name__}, not an outcome")
