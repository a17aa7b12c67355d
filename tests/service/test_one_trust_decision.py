"""The wake trusts whom the monitor's permission answer trusts: one trust decision."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from comment_wake.service.testing import ServiceRig
from review_monitor import MonitorConfig

pytestmark = pytest.mark.anyio


async def test_a_maintainer_is_woken_when_trusted_permissions_names_maintain(
    tmp_path: Path,
) -> None:
    # GitHub reports a maintainer as permission "write" with role_name "maintain"; the
    # answer says trusted, and the wake must not second-guess it from "write" alone.
    rig = ServiceRig(tmp_path, monitor=MonitorConfig(trusted_permissions=("admin", "maintain")))
    try:
        rig.fake.set_permission(rig.pr.repo, "dana", "maintain")
        await rig.poll()
        await rig.clock.advance(timedelta(seconds=10))
        rig.fake.post_comment(rig.pr, "dana", "Please rebase.", node_id="IC_1", at=rig.clock.now())
        await rig.clock.advance(timedelta(minutes=1))
        await rig.poll()
        assert [("IC_1", "wake", "writer")] == rig.events.outcomes()
    finally:
        await rig.aclose()
