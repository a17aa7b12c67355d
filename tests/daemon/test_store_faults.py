"""The daemon on a full disk (SQLite's ``SQLITE_FULL``, from the ``store_fault`` wrapper):
the log says the disk is full and that nothing was lost, and once there is room again
the comment is decided and delivered as if nothing had happened."""

from __future__ import annotations

import sqlite3
from typing import Any

import pytest

pytestmark = pytest.mark.anyio


async def test_a_full_disk_is_logged_as_such_and_the_comment_is_delivered_once_there_is_room(
    store_fault: Any, world: Any, logs: Any
) -> None:
    world.bind()
    async with world.running():
        store_fault.code = sqlite3.SQLITE_FULL
        world.fake.post_comment(world.pr, "maintainer", "please rename the widget")
        await world.until(
            lambda: any("the disk is full" in m for m in logs.messages()), "a full-disk line"
        )
        store_fault.code = None
        await world.until(lambda: len(world.delivered_texts()) == 1, "the notice")
    full = [m for m in logs.messages() if "the disk is full" in m]
    assert (True, False) == (
        all("nothing was lost" in m and "(SQLITE_FULL)" in m for m in full),
        any("OperationalError" in m for m in logs.messages()),
    )
