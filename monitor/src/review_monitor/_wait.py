"""The one "sleep until t, or until poked" of the poller, the service, delivery and the
app's housekeeping: every wait goes through the injected clock."""

from __future__ import annotations

from datetime import datetime

import anyio

from ._clock import Clock

__all__ = ["sleep_until_or"]


async def sleep_until_or(clock: Clock, t: datetime | None, poked: anyio.Event) -> None:
    """Return at ``t`` on ``clock`` or as soon as ``poked`` is set, whichever comes first;
    with ``t`` None only when ``poked`` is set.  ``poked`` is left as it is: a caller that
    waits again makes a fresh event first."""
    if t is None:
        await poked.wait()
        return
    async with anyio.create_task_group() as tg:

        async def sleeper() -> None:
            await clock.sleep_until(t)
            tg.cancel_scope.cancel()

        tg.start_soon(sleeper)
        await poked.wait()
        tg.cancel_scope.cancel()
