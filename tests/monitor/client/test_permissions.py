"""The permissions component: one call per lookup, a TTL cache, a retry schedule."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import anyio
import httpx
import pytest

from review_monitor import (
    AuthError,
    LookupFailed,
    MonitorConfig,
    PermissionAnswer,
    Permissions,
    RateLimitedError,
    TransientError,
    is_valid_login,
)
from review_monitor.github import GitHubClient, RestResult

NOW = datetime(2030, 1, 2, 3, 4, 5, tzinfo=UTC)
REPO = "octo-org/octo-repo"
PATH = f"/repos/{REPO}/collaborators/mona/permission"
PUSH = {"message": "Must have push access to view collaborator permission."}


def ok(permission: str, role_name: str | None = None) -> RestResult:
    body: dict[str, Any] = {"permission": permission, "user": {"login": "mona"}}
    if role_name is not None:
        body["role_name"] = role_name
    return RestResult(200, body)


def answer(
    permission: str, role: str | None, trusted: bool, at: datetime = NOW
) -> PermissionAnswer:
    return PermissionAnswer("mona", permission, role, trusted, at)


# -- deciding on the answer -----------------------------------------------------------------


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        (ok("admin", "admin"), answer("admin", "admin", trusted=True)),
        (ok("write", "write"), answer("write", "write", trusted=True)),
        (ok("write", "maintain"), answer("write", "maintain", trusted=True)),
        (ok("read", "triage"), answer("read", "triage", trusted=False)),
        (ok("read", "read"), answer("read", "read", trusted=False)),
        (ok("none"), answer("none", None, trusted=False)),
        (ok("maintain"), answer("write", "maintain", trusted=True)),
        (ok("triage"), answer("read", "triage", trusted=False)),
        (RestResult(404, {"message": "Not Found"}), answer("none", None, trusted=False)),
    ],
    ids=[
        "admin",
        "write",
        "maintain-as-write",
        "triage-as-read",
        "read",
        "none",
        "raw-maintain",
        "raw-triage",
        "404-is-none",
    ],
)
async def test_lookup_decides_on_permission(
    fake_api_class: Any, reply: RestResult, expected: PermissionAnswer
) -> None:
    permissions = Permissions(fake_api_class([reply]), MonitorConfig())

    assert expected == await permissions.lookup(REPO, "mona", NOW)


@pytest.mark.anyio
async def test_lookup_is_one_call_without_client_retries(fake_api_class: Any) -> None:
    api = fake_api_class([ok("write", "write")])

    await Permissions(api, MonitorConfig()).lookup(REPO, "mona", NOW)

    assert [(PATH, False)] == api.calls


@pytest.mark.anyio
async def test_trusted_role_name_counts_only_when_it_agrees_with_permission(
    fake_api_class: Any,
) -> None:
    config = MonitorConfig(trusted_permissions=("admin", "maintain"))
    replies = [ok("write", "maintain"), ok("write", "write"), ok("read", "maintain")]
    permissions = Permissions(fake_api_class(replies), config)
    logins = ["maint", "writer", "custom"]

    trusted = [
        getattr(await permissions.lookup(REPO, login, NOW), "trusted", None) for login in logins
    ]

    assert [True, False, False] == trusted


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("reply", "status"),
    [
        (RestResult(403, PUSH), 403),
        (RestResult(500, None), 500),
        (TransientError("GitHub GET failed with a timeout", status=None), None),
        (TransientError("GitHub GET failed with HTTP 502", status=502), 502),
        (RateLimitedError("limited", retry_at=NOW, secondary=True), None),
        (AuthError("refused"), 401),
        (RestResult(200, {"unexpected": True}), 200),
        (RestResult(200, {"permission": "superuser"}), 200),
    ],
    ids=["403", "500", "timeout", "502", "rate-limited", "401", "malformed", "unknown-value"],
)
async def test_faults_are_failed_lookups_never_none(
    fake_api_class: Any, reply: RestResult | Exception, status: int | None
) -> None:
    permissions = Permissions(fake_api_class([reply]), MonitorConfig())

    outcome = await permissions.lookup(REPO, "mona", NOW)

    assert isinstance(outcome, LookupFailed)
    assert ("mona", status) == (outcome.login, outcome.status)


@pytest.mark.anyio
async def test_failed_lookup_is_not_cached(fake_api_class: Any) -> None:
    api = fake_api_class([RestResult(502, None), ok("write", "write")])
    permissions = Permissions(api, MonitorConfig())
    await permissions.lookup(REPO, "mona", NOW)

    second = await permissions.lookup(REPO, "mona", NOW)

    assert (answer("write", "write", trusted=True), 2) == (second, len(api.calls))


@pytest.mark.anyio
async def test_one_http_attempt_through_the_real_client_on_5xx(
    make_client: Callable[..., GitHubClient], script_class: Any
) -> None:
    script = script_class([httpx.Response(502), httpx.Response(200, json={"permission": "write"})])
    permissions = Permissions(make_client(script), MonitorConfig())

    outcome = await permissions.lookup(REPO, "mona", NOW)

    assert (LookupFailed, 502, 1) == (type(outcome), getattr(outcome, "status", None), script.calls)


# -- the cache ------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_answer_is_cached_for_the_ttl(fake_api_class: Any) -> None:
    api = fake_api_class([ok("write", "write")])
    permissions = Permissions(api, MonitorConfig())
    await permissions.lookup(REPO, "mona", NOW)

    again = await permissions.lookup(REPO, "mona", NOW + timedelta(minutes=9, seconds=59))

    assert (answer("write", "write", trusted=True), 1) == (again, len(api.calls))


@pytest.mark.anyio
async def test_answer_expires_after_the_ttl(fake_api_class: Any) -> None:
    later = NOW + timedelta(minutes=10)
    api = fake_api_class([ok("write", "write"), ok("read", "read")])
    permissions = Permissions(api, MonitorConfig())
    await permissions.lookup(REPO, "mona", NOW)

    again = await permissions.lookup(REPO, "mona", later)

    assert (answer("read", "read", trusted=False, at=later), 2) == (again, len(api.calls))


@pytest.mark.anyio
async def test_ttl_comes_from_config(fake_api_class: Any) -> None:
    permissions = Permissions(
        fake_api_class([ok("write")]), MonitorConfig.model_validate({"permission_ttl": "1m"})
    )
    await permissions.lookup(REPO, "mona", NOW)

    assert None is permissions.cached(REPO, "mona", NOW + timedelta(minutes=1))


@pytest.mark.anyio
async def test_cache_ignores_login_case(fake_api_class: Any) -> None:
    api = fake_api_class([ok("write", "write")])
    permissions = Permissions(api, MonitorConfig())
    await permissions.lookup(REPO, "mona", NOW)

    assert answer("write", "write", trusted=True) == permissions.cached(REPO, "MoNa", NOW)


@pytest.mark.anyio
async def test_cache_is_per_repository(fake_api_class: Any) -> None:
    permissions = Permissions(fake_api_class([ok("write", "write")]), MonitorConfig())
    await permissions.lookup(REPO, "mona", NOW)

    assert None is permissions.cached("octo-org/other", "mona", NOW)


@pytest.mark.anyio
async def test_cache_is_per_host(fake_api_class: Any) -> None:
    api = fake_api_class([ok("write", "write")])
    permissions = Permissions(api, MonitorConfig())
    await permissions.lookup(REPO, "mona", NOW)
    api._host = "ghe.example.com"

    assert None is permissions.cached(REPO, "mona", NOW)


@pytest.mark.anyio
async def test_404_none_is_cached(fake_api_class: Any) -> None:
    api = fake_api_class([RestResult(404, None)])
    permissions = Permissions(api, MonitorConfig())
    await permissions.lookup(REPO, "mona", NOW)

    assert answer("none", None, trusted=False) == permissions.cached(REPO, "mona", NOW)


def test_nothing_is_cached_before_a_lookup(fake_api_class: Any) -> None:
    assert None is Permissions(fake_api_class(), MonitorConfig()).cached(REPO, "mona", NOW)


# -- logins ---------------------------------------------------------------------------------

VALID = ["a", "Mona", "octo-cat", "a1-b2-c3", "x" * 39, "mona_acme", "mona-lisa_ab12cd34"]
INVALID = [
    "",
    "-mona",
    "mona-",
    "mo--na",
    "x" * 40,
    "x" * 35 + "_acme",
    "dependabot[bot]",
    "mona_ab",
    "mona_abcdefghi",
    "_acme",
    "mona lisa",
    "mona/../x",
    "möna",
    "mona\n",
]


@pytest.mark.parametrize("login", VALID)
def test_valid_logins(login: str) -> None:
    assert is_valid_login(login)


@pytest.mark.parametrize("login", INVALID)
def test_invalid_logins(login: str) -> None:
    assert not is_valid_login(login)


@pytest.mark.anyio
@pytest.mark.parametrize("login", INVALID)
async def test_invalid_login_answers_none_without_a_call(fake_api_class: Any, login: str) -> None:
    api = fake_api_class([ok("admin", "admin")])

    outcome = await Permissions(api, MonitorConfig()).lookup(REPO, login, NOW)

    assert (PermissionAnswer(login, "none", None, False, NOW), []) == (outcome, api.calls)


@pytest.mark.anyio
@pytest.mark.parametrize("repo", ["octo", "../octo/x", "o/r/x", "o/..", "o r/x"])
async def test_malformed_repository_is_refused(fake_api_class: Any, repo: str) -> None:
    api = fake_api_class([ok("admin", "admin")])

    with pytest.raises(ValueError, match="not a repository"):
        await Permissions(api, MonitorConfig()).lookup(repo, "mona", NOW)

    assert [] == api.calls


# -- the retry schedule ---------------------------------------------------------------------


def test_retry_delay_follows_config_then_gives_up(fake_api_class: Any) -> None:
    permissions = Permissions(fake_api_class(), MonitorConfig())

    delays = [permissions.retry_delay(k) for k in (1, 2, 3, 4)]

    assert [timedelta(minutes=1), timedelta(minutes=2), timedelta(minutes=4), None] == delays


def test_retry_delay_uses_configured_schedule(fake_api_class: Any) -> None:
    permissions = Permissions(
        fake_api_class(), MonitorConfig.model_validate({"permission_retries": ["30s"]})
    )

    assert [timedelta(seconds=30), None] == [permissions.retry_delay(k) for k in (1, 2)]


def test_retry_delay_counts_from_one(fake_api_class: Any) -> None:
    with pytest.raises(ValueError, match="starts at 1"):
        Permissions(fake_api_class(), MonitorConfig()).retry_delay(0)


# -- preflight ------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_preflight_reports_missing_push_access(fake_api_class: Any) -> None:
    api = fake_api_class([RestResult(403, PUSH)])

    message = await Permissions(api, MonitorConfig()).preflight(REPO, "worker-bot", NOW)

    assert message is not None
    assert "push access" in message
    assert REPO in message
    assert [(f"/repos/{REPO}/collaborators/worker-bot/permission", False)] == api.calls


@pytest.mark.anyio
async def test_preflight_reports_other_403(fake_api_class: Any) -> None:
    api = fake_api_class([RestResult(403, {"message": "Resource protected by SAML"})])

    message = await Permissions(api, MonitorConfig()).preflight(REPO, "worker-bot", NOW)

    assert message is not None
    assert "refused the collaborator permission call" in message


@pytest.mark.anyio
async def test_preflight_reports_a_refused_token(fake_api_class: Any) -> None:
    api = fake_api_class([AuthError("refused")])

    message = await Permissions(api, MonitorConfig()).preflight(REPO, "worker-bot", NOW)

    assert message is not None
    assert "401" in message


@pytest.mark.anyio
@pytest.mark.parametrize(
    "reply",
    [ok("admin", "admin"), ok("read", "read"), RestResult(502, None)],
    ids=["answer", "read-answer", "transient"],
)
async def test_preflight_is_quiet_when_lookups_can_work(
    fake_api_class: Any, reply: RestResult
) -> None:
    api = fake_api_class([reply])

    assert None is await Permissions(api, MonitorConfig()).preflight(REPO, "worker-bot", NOW)


@pytest.mark.anyio
async def test_concurrent_lookups_of_one_login_share_one_call(fake_api_class: Any) -> None:
    gate = anyio.Event()

    class SlowApi(fake_api_class):  # type: ignore[misc]
        async def rest_get(self, path: str, *, retry: bool = True) -> RestResult:
            await gate.wait()
            result: RestResult = await super().rest_get(path, retry=retry)
            return result

    api = SlowApi([ok("write", "write")])
    permissions = Permissions(api, MonitorConfig())
    outcomes: list[PermissionAnswer | LookupFailed] = []

    async def ask(login: str) -> None:
        outcomes.append(await permissions.lookup(REPO, login, NOW))

    async with anyio.create_task_group() as tg:
        tg.start_soon(ask, "mona")
        tg.start_soon(ask, "MONA")
        await anyio.wait_all_tasks_blocked()
        gate.set()

    assert ([answer("write", "write", trusted=True)] * 2, 1) == (outcomes, len(api.calls))
