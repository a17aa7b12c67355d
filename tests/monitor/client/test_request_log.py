"""At debug level the client logs one line per HTTP request: the method, the route
template, the status, the points and the duration; never a login, a query string or a
header."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from review_monitor.github import GitHubClient, route_template

Factory = Callable[..., GitHubClient]
Reply = Callable[..., httpx.Response]

pytestmark = pytest.mark.anyio

AUTHOR = "mallory-marker-7f3a"
PERMISSION = "/repos/{owner}/{repo}/collaborators/{login}/permission"


def _requests(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == "review_monitor.github" and hasattr(r, "route")]


async def test_a_permission_lookup_is_one_debug_line_with_its_route_template(
    make_client: Factory, script_class: Any, reply_fn: Reply, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    script = script_class([reply_fn(200, {"permission": "write"})])
    await make_client(script).rest_get(
        f"/repos/octo/repo/collaborators/{AUTHOR}/permission?per_page=1", retry=False
    )
    [line] = _requests(caplog)
    fields = {k: getattr(line, k) for k in ("method", "route", "status", "points")}
    assert {"method": "GET", "route": PERMISSION, "status": 200, "points": 1} == fields


async def test_the_request_line_never_carries_the_login_the_query_or_a_header(
    make_client: Factory,
    script_class: Any,
    reply_fn: Reply,
    token: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    script = script_class([reply_fn(200, {"permission": "write"})])
    await make_client(script).rest_get(
        f"/repos/octo/repo/collaborators/{AUTHOR}/permission?per_page=1", retry=False
    )
    [line] = _requests(caplog)
    said = line.getMessage() + " " + " ".join(str(v) for v in vars(line).values())
    assert ([], True) == (
        [word for word in (AUTHOR, "per_page", token, "Bearer", "vnd.github") if word in said],
        line.getMessage().startswith(f"GitHub GET {PERMISSION}: HTTP 200, 1 point(s), "),
    )


async def test_a_graphql_request_line_carries_the_points_github_charged(
    make_client: Factory, script_class: Any, reply_fn: Reply, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    body = {"data": {"rateLimit": {"cost": 3, "remaining": 4990, "limit": 5000}}}
    await make_client(script_class([reply_fn(200, body)])).graphql("query { rateLimit { cost } }")
    [line] = _requests(caplog)
    fields = tuple(getattr(line, k) for k in ("method", "route", "status", "points"))
    assert ("POST", "/graphql", 200, 3) == fields


async def test_no_request_line_is_written_above_debug(
    make_client: Factory, script_class: Any, reply_fn: Reply, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    await make_client(script_class([reply_fn(200, {"login": "me"})])).rest_get("/user")
    assert [] == _requests(caplog)


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("/repos/o/r/collaborators/alice/permission?x=1", PERMISSION),
        ("/repos/o/r/collaborators/permission/permission", PERMISSION),
        ("/users/user", "/users/{login}"),
        ("/user", "/user"),
        ("/repos/o/r/pulls/12/reviews#top", "/repos/{owner}/{repo}/pulls/{pull_number}/reviews"),
        (
            "/repos/o/r/issues/comments/123/reactions",
            "/repos/{owner}/{repo}/issues/comments/{comment_id}/reactions",
        ),
        ("/repos/o/r/branches/alice-feature", "/repos/{owner}/{repo}/branches/{id}"),
        (
            "/repos/o/r/pulls/7/comments/42/replies",
            "/repos/{owner}/{repo}/pulls/{pull_number}/comments/{comment_id}/replies",
        ),
    ],
)
def test_route_template_keeps_only_githubs_route_words(path: str, expected: str) -> None:
    assert expected == route_template(path)
