"""Everything under the state directory and the inboxes is the owner's alone, whatever the
umask: directories 0700, files 0600 (the store, its WAL, the lease's lock, the notices)."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.anyio


@pytest.fixture(params=[0o022, 0o000], ids=["umask-022", "umask-000"])
def umask(request: pytest.FixtureRequest) -> Iterator[int]:
    old = os.umask(request.param)
    try:
        yield request.param
    finally:
        os.umask(old)


def modes(root: Path) -> dict[str, str]:
    """Every path under ``root`` (itself included, as ``.``) with its permission bits."""
    found = {".": oct(stat.S_IMODE(root.stat().st_mode))}
    for path in root.rglob("*"):
        found[str(path.relative_to(root))] = oct(stat.S_IMODE(path.lstat().st_mode))
    return found


def private(found: dict[str, str], root: Path) -> dict[str, str]:
    """What ``found`` should be: 0700 for each directory, 0600 for each file."""
    return {name: oct(0o700 if (root / name).is_dir() else 0o600) for name in found}


async def test_after_a_daemon_ran_every_state_path_is_private(world: Any, umask: int) -> None:
    seen: dict[str, str] = {}

    async def walk(run: Any) -> None:  # while it runs: the WAL and the lock exist
        seen.update(modes(world.state_dir))

    await world.story(during=walk)
    names = set(seen)
    assert {"state.db", "state.db-wal", "state.db.lock", "inbox/w1/new"} <= names
    assert private(seen, world.state_dir) == seen


async def test_a_state_directory_left_readable_is_tightened_and_said_once(
    world: Any, logs: Any
) -> None:
    world.bind()
    for path in (world.state_dir, *world.state_dir.rglob("*")):
        path.chmod(0o755 if path.is_dir() else 0o644)
    async with world.running():
        found = modes(world.state_dir)
    said = [m for m in logs.messages() if "made them private" in m]
    assert (private(found, world.state_dir), 1) == (found, len(said))


async def test_a_private_state_directory_says_nothing(world: Any, logs: Any) -> None:
    world.bind()
    async with world.running():
        pass
    assert [] == [m for m in logs.messages() if "made them private" in m]
