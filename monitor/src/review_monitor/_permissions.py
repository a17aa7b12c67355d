"""Who may steer a worker: the collaborator permission call, its cache and its retry schedule.

Shared by the monitor's verdict notices and the comment wake.  One lookup is one HTTP
attempt (``retry=False``); a failed lookup is never ``none`` and never cached, and the
caller retries it on ``retry_delay``'s schedule.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Any, Protocol

import anyio

from ._api import GitHubApi
from ._config import MonitorConfig
from ._errors import AuthError, GitHubError, RateLimitedError, TransientError
from ._model import LookupFailed, PermissionAnswer
from ._seen import retry_delay

__all__ = ["Permissions", "is_valid_login"]

# GitHub's sign-up rule: letters, digits and single hyphens, neither first nor last, at most
# 39 characters; an Enterprise Managed User adds "_" and the enterprise's short code (3 to 8
# letters or digits) within the same 39.
_LOGIN = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9]))*(?:_[A-Za-z0-9]{3,8})?")
_MAX_LOGIN = 39
_REPO = re.compile(r"[A-Za-z0-9_.-]{1,100}/[A-Za-z0-9_.-]{1,100}")
# The legacy base role each role name reports as ``permission``.
_BASE_ROLE = {
    "admin": "admin",
    "maintain": "write",
    "write": "write",
    "triage": "read",
    "read": "read",
    "none": "none",
}
_PERMISSIONS = frozenset(_BASE_ROLE)
_PUSH_ACCESS = "must have push access"
_MAX_ENTRIES = 10_000


def is_valid_login(login: str) -> bool:
    """True when ``login`` is within GitHub's character set for user logins."""
    return len(login) <= _MAX_LOGIN and _LOGIN.fullmatch(login) is not None


def _valid_repo(repo: str) -> bool:
    if _REPO.fullmatch(repo) is None:
        return False
    return all(part not in (".", "..") for part in repo.split("/"))


def _message(body: Any) -> str:
    if isinstance(body, dict) and isinstance(body.get("message"), str):
        return str(body["message"])
    return ""


class _Pending:
    """A lookup under way, which concurrent callers for the same key wait for."""

    def __init__(self, login: str) -> None:
        self.done = anyio.Event()
        self.outcome: PermissionAnswer | LookupFailed = LookupFailed(
            login, None, "the shared lookup was cancelled"
        )


class SharedPermissions(Protocol):
    """Answers kept beside this process's cache, for every host of a fleet."""

    async def get(
        self, host: str, repo: str, login: str, *, since: datetime
    ) -> tuple[str, str | None, datetime] | None: ...

    async def put(
        self,
        host: str,
        repo: str,
        login: str,
        permission: str,
        role_name: str | None,
        checked_at: datetime,
    ) -> None: ...


class Permissions:
    """Permission lookups with a cache keyed by host, repo and login (case-insensitive).

    Concurrent lookups of one key share one call.
    """

    def __init__(
        self, api: GitHubApi, config: MonitorConfig, shared: SharedPermissions | None = None
    ) -> None:
        self._api = api
        # Fleet mode: the answers every host shares, asked before GitHub.
        self.shared = shared
        self._ttl = config.permission_ttl
        self._retries = tuple(config.permission_retries)
        self._trusted = frozenset(config.trusted_permissions)
        self._cache: dict[tuple[str, str, str], PermissionAnswer] = {}
        self._pending: dict[tuple[str, str, str], _Pending] = {}

    def _key(self, repo: str, login: str) -> tuple[str, str, str]:
        return (self._api.host.casefold(), repo.casefold(), login.casefold())

    def cached(self, repo: str, login: str, now: datetime) -> PermissionAnswer | None:
        """The cached answer while it is younger than ``permission_ttl``, else None."""
        answer = self._cache.get(self._key(repo, login))
        if answer is None:
            return None
        if not answer.checked_at <= now < answer.checked_at + self._ttl:
            return None
        return answer

    def is_trusted(self, permission: str, role_name: str | None) -> bool:
        """``permission`` is trusted, or ``role_name`` is a trusted base role that agrees
        with it (so ``trusted_permissions = ["maintain"]`` trusts maintainers, who GitHub
        reports as write, and a custom role merely named like a base role gains nothing)."""
        if permission in self._trusted:
            return True
        return (
            role_name is not None
            and role_name in self._trusted
            and _BASE_ROLE.get(role_name) == permission
        )

    async def lookup(self, repo: str, login: str, now: datetime) -> PermissionAnswer | LookupFailed:
        """Cache first; then one permission call.  404 is ``none``; every fault is
        ``LookupFailed``."""
        answer = self.cached(repo, login, now)
        if answer is not None:
            return answer
        key = self._key(repo, login)
        pending = self._pending.get(key)
        if pending is not None:
            await pending.done.wait()
            return pending.outcome
        pending = self._pending[key] = _Pending(login)
        try:
            pending.outcome = await self._shared_or_ask(repo, login, now)
        finally:
            del self._pending[key]
            pending.done.set()
        return pending.outcome

    async def _shared_or_ask(
        self, repo: str, login: str, now: datetime
    ) -> PermissionAnswer | LookupFailed:
        shared = self.shared
        if shared is not None:
            found = await shared.get(self._api.host, repo, login, since=now - self._ttl)
            if found is not None:
                permission, role_name, checked_at = found
                answer = self._answer(login, permission, role_name, checked_at)
                self._remember(repo, login, answer, now)
                return answer
        outcome, _ = await self._ask(repo, login, now)
        if shared is not None and isinstance(outcome, PermissionAnswer):
            await shared.put(
                self._api.host, repo, login, outcome.permission, outcome.role_name, now
            )
        return outcome

    def retry_delay(self, failures: int) -> timedelta | None:
        """The wait after the ``failures``-th failed try (1-based); None: give up."""
        return retry_delay(failures, self._retries)

    async def preflight(self, repo: str, viewer_login: str, now: datetime) -> str | None:
        """Look up the token's own login; a message when every lookup is bound to fail."""
        if not is_valid_login(viewer_login):
            return f"the token's login {viewer_login!r} is not a GitHub login"
        outcome, message = await self._ask(repo, viewer_login, now)
        if isinstance(outcome, PermissionAnswer):
            return None
        if outcome.status == 403:
            why = (
                "the token needs push access to read collaborator permissions"
                if _PUSH_ACCESS in message.casefold()
                else "GitHub refused the collaborator permission call"
            )
            return (
                f"permission lookups on {repo} will all fail: {why} (403); until the token "
                f"of {viewer_login} gets write access to {repo}, nobody's comment or review "
                "there counts as trusted"
            )
        if outcome.status == 401:
            return f"permission lookups on {repo} will all fail: GitHub refused the token (401)"
        return None

    async def _ask(
        self, repo: str, login: str, now: datetime
    ) -> tuple[PermissionAnswer | LookupFailed, str]:
        if not _valid_repo(repo):
            raise ValueError(f"not a repository: {repo!r}; write it as owner/name")
        if not is_valid_login(login):
            return self._answer(login, "none", None, now), ""
        path = f"/repos/{repo}/collaborators/{login}/permission"
        try:
            result = await self._api.rest_get(path, retry=False)
        except RateLimitedError as exc:
            return LookupFailed(login, None, f"rate limited: {exc}"), ""
        except TransientError as exc:
            return LookupFailed(login, exc.status, f"no answer: {exc}"), ""
        except AuthError:
            return LookupFailed(login, 401, "GitHub refused the token"), ""
        except GitHubError as exc:
            return LookupFailed(login, None, f"{type(exc).__name__}"), ""
        status, body = result.status, result.body
        message = _message(body)
        if status == 404:
            outcome: PermissionAnswer | LookupFailed = self._answer(login, "none", None, now)
        elif status == 200:
            outcome = self._parse(login, body, now)
        else:
            outcome = LookupFailed(login, status, f"GitHub answered {status}")
        if isinstance(outcome, PermissionAnswer):
            self._remember(repo, login, outcome, now)
        return outcome, message

    def _parse(self, login: str, body: Any, now: datetime) -> PermissionAnswer | LookupFailed:
        permission = body.get("permission") if isinstance(body, dict) else None
        if not isinstance(permission, str) or permission not in _PERMISSIONS:
            return LookupFailed(login, 200, "the answer has no known permission")
        role = body.get("role_name")
        base = _BASE_ROLE[permission]
        # GitHub already folds maintain into write and triage into read; do it here too in
        # case an older server (or a fake) reports the role itself, and keep that role.
        role_name = role if isinstance(role, str) else (permission if base != permission else None)
        return self._answer(login, base, role_name, now)

    def _answer(
        self, login: str, permission: str, role_name: str | None, now: datetime
    ) -> PermissionAnswer:
        return PermissionAnswer(
            login=login,
            permission=permission,
            role_name=role_name,
            trusted=self.is_trusted(permission, role_name),
            checked_at=now,
        )

    def _remember(self, repo: str, login: str, answer: PermissionAnswer, now: datetime) -> None:
        if len(self._cache) >= _MAX_ENTRIES:
            self._cache = {k: v for k, v in self._cache.items() if v.checked_at + self._ttl > now}
        self._cache[self._key(repo, login)] = answer
