"""A failed permission lookup names the route in logs and errors, never the person."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from review_monitor import TransientError
from review_monitor._github import loggable_path
from review_monitor.github import GitHubClient

Factory = Callable[..., GitHubClient]
Reply = Callable[..., httpx.Response]

pytestmark = pytest.mark.anyio

AUTHOR = "mallory-marker-7f3a"


async def test_failed_permission_lookup_logs_and_raises_without_the_login(
    make_client: Factory, script_class: Any, reply_fn: Reply, caplog: pytest.LogCaptureFixture
) -> None:
    script = script_class([reply_fn(502)])
    caplog.set_level(logging.DEBUG)

    with pytest.raises(TransientError) as raised:
        await make_client(script).rest_get(
            f"/repos/o/r/collaborators/{AUTHOR}/permission", retry=False
        )

    # The client's own lines (httpx's request log is silenced by the app's logging setup).
    ours = [r for r in caplog.records if r.name.startswith("review_monitor")]
    said = [record.getMessage() for record in ours] + [str(raised.value)]
    assert (True, []) == (
        any("/collaborators/{login}/permission" in line for line in said),
        [line for line in said if AUTHOR in line],
    )


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        (
            "/repos/o/r/collaborators/alice/permission",
            "/repos/o/r/collaborators/{login}/permission",
        ),
        ("/users/alice", "/users/{login}"),
        ("/repos/o/r/pulls/3?page=2", "/repos/o/r/pulls/3"),
        ("/user", "/user"),
    ],
)
def test_loggable_path_hides_logins_and_queries(path: str, expected: str) -> None:
    assert expected == loggable_path(path)
