"""``EventBus``: where components publish events and subscribers hear them.

``publish`` runs every subscriber in order, at once, on the publisher's task (the event
loop; never from a worker thread).  A subscriber that raises is unsubscribed from nothing
and breaks nothing: the failure is one error line with its type, and the next event is
delivered as usual, so a faulty status writer cannot stop a wake.

``stream()`` is the async-iterator face: it subscribes when it is created, so no event
published after the call is missed, buffers what it has not yet yielded, and ends when
the bus closes (the app stops).  Its buffer is bounded: a reader that falls
``max_buffer`` events behind gets ``EventsLost`` instead of silently missing events.
"""

from __future__ import annotations

import collections
import logging
from collections.abc import Callable
from types import TracebackType

import anyio

from ._model import Event

__all__ = ["EventBus", "EventStream", "EventsLost", "Subscriber"]

Subscriber = Callable[[Event], None]
"""A function that gets every event, on the event loop; it should return quickly."""

_log = logging.getLogger("comment_wake.events")
_DEFAULT_BUFFER = 100_000


class EventsLost(Exception):
    """An event stream's reader fell too far behind; events were dropped."""


class EventBus:
    def __init__(self) -> None:
        self._subscribers: list[Subscriber] = []
        self._streams: set[EventStream] = set()
        self._closed = False

    def subscribe(self, fn: Subscriber) -> Callable[[], None]:
        """Call ``fn`` with every event from now on; returns the unsubscribe function."""
        self._subscribers.append(fn)

        def unsubscribe() -> None:
            if fn in self._subscribers:
                self._subscribers.remove(fn)

        return unsubscribe

    def publish(self, event: Event) -> None:
        for fn in tuple(self._subscribers):
            try:
                fn(event)
            except Exception as exc:
                _log.error(
                    "an event subscriber failed on a %s event: %s",
                    type(event).__name__,
                    type(exc).__name__,
                )

    def stream(self, *, max_buffer: int = _DEFAULT_BUFFER) -> EventStream:
        """An async iterator over the events published from now on."""
        stream = EventStream(self, max_buffer)
        if not self._closed:
            self._streams.add(stream)
        return stream

    def _forget(self, stream: EventStream) -> None:
        self._streams.discard(stream)

    def close(self) -> None:
        """End every stream (after what it buffered); later publishes reach no stream."""
        self._closed = True
        for stream in tuple(self._streams):
            stream.aclose_now()

    @property
    def closed(self) -> bool:
        return self._closed


class EventStream:
    """``async for event in bus.stream()``; also ``async with`` to close it early."""

    def __init__(self, bus: EventBus, max_buffer: int) -> None:
        self._buffer: collections.deque[Event] = collections.deque()
        self._max = max_buffer
        self._lost = False
        self._ended = bus.closed
        self._arrived = anyio.Event()
        self._bus = bus
        self._unsubscribe = bus.subscribe(self._put)

    def _put(self, event: Event) -> None:
        if self._ended:
            return
        if len(self._buffer) >= self._max:
            self._lost = True
        else:
            self._buffer.append(event)
        self._arrived.set()

    def aclose_now(self) -> None:
        """Stop listening; what is buffered is still yielded, then the iteration ends."""
        self._ended = True
        self._unsubscribe()
        self._bus._forget(self)
        self._arrived.set()

    async def aclose(self) -> None:
        self.aclose_now()

    def __aiter__(self) -> EventStream:
        return self

    async def __anext__(self) -> Event:
        while True:
            if self._buffer:
                return self._buffer.popleft()
            if self._lost:
                self._lost = False
                raise EventsLost(f"the reader fell more than {self._max} events behind")
            if self._ended:
                raise StopAsyncIteration
            self._arrived = anyio.Event()
            await self._arrived.wait()

    async def __aenter__(self) -> EventStream:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.aclose_now()
