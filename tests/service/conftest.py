"""The service rig: real store, client and permissions on a virtual clock."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from comment_wake.service.testing import ServiceRig


@pytest.fixture
async def rig(tmp_path: Path) -> AsyncIterator[ServiceRig]:
    """PR octo-org/octo-repo#12 bound to w-1; bob and carol write, mallory reads."""
    made = ServiceRig(tmp_path)
    for login, role in (("bob", "write"), ("carol", "write"), ("mallory", "read")):
        made.fake.set_permission(made.pr.repo, login, role)
    yield made
    await made.aclose()
