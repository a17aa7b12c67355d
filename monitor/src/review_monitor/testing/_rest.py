"""FakeGitHub's REST endpoints: ``GET /user``, a collaborator's permission, and posting on a PR
(``_posting.py``: comments, comment-only reviews, replies, edits and their listings).

Each answer carries the core budget's headers and costs one request of it, whatever the
method; a ``GET`` with a matching ``If-None-Match`` is a free 304.  A content-creating
``POST`` beyond GitHub's content-creation limit (``ContentLimit``) is refused with a
secondary-limit 403 and a ``retry-after``, uncharged.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Mapping
from typing import Any

from ._budget import Budget, ContentLimit
from ._endpoint import EndpointParts
from ._faults import SECONDARY_MESSAGE, RequestKind, Timeout
from ._http import DOCS, Answer, json_answer
from ._posting import CREATES, Outcome, Posting, route_of

__all__ = ["RestEndpoint"]

_PERMISSION_PATH = re.compile(r"^/repos/([^/]+)/([^/]+)/collaborators/([^/]+)/permission$")
_NOT_FOUND = {"message": "Not Found", "documentation_url": DOCS}


class RestEndpoint:
    """Every path but ``POST /graphql`` (called under the nodes' lock)."""

    def __init__(self, parts: EndpointParts, budget: Budget) -> None:
        self.budget = budget
        self.content = ContentLimit()
        self._parts = parts
        self._posting = Posting(parts.nodes)

    def answer(
        self,
        method: str,
        path: str,
        headers: Mapping[str, str],
        *,
        query: Mapping[str, str] | None = None,
        body: bytes = b"",
        api: str = "https://api.github.com",
    ) -> Answer:
        parts = self._parts
        posting = route_of(path)
        kind: RequestKind
        if _PERMISSION_PATH.match(path):
            kind = "permission"
        elif posting is not None:
            kind = "listing" if method == "GET" else "post"
        else:
            kind = "other"
        fault = parts.faults.take(kind, path)
        if fault is not None and not fault.answer_lost:
            return parts.faults.answer(fault, kind, method, path, None, {}, self.budget)
        unauthorised = parts.token.refusal(headers)
        if unauthorised is not None:
            parts.log.record(kind, method, path, 401, 0)
            return unauthorised
        answer = self._charged(method, path, headers, kind, query or {}, body, api)
        if fault is not None:  # answer_lost: the request ran, its answer never comes
            raise Timeout
        return answer

    def _charged(
        self,
        method: str,
        path: str,
        headers: Mapping[str, str],
        kind: RequestKind,
        query: Mapping[str, str],
        body: bytes,
        api: str,
    ) -> Answer:
        budget = self.budget
        record = self._parts.log.record
        now = self._parts.nodes.now()
        budget.roll(now)
        posting = route_of(path)
        if method != "GET" and posting is None:
            record(kind, method, path, 404, 0)
            return json_answer(404, _NOT_FOUND)
        if budget.remaining <= 0:
            record(kind, method, path, 403, 0)
            payload = {
                "message": "API rate limit exceeded for user ID 1.",
                "documentation_url": DOCS,
            }
            return json_answer(403, payload, budget.headers("core"))
        creates = posting is not None and (posting[0], method) in CREATES
        if creates:
            wait = self.content.wait(now)
            if wait is not None:
                record(kind, method, path, 403, 0)
                extra = budget.headers("core")
                extra["retry-after"] = str(max(1, math.ceil(wait.total_seconds())))
                return json_answer(
                    403, {"message": SECONDARY_MESSAGE, "documentation_url": DOCS}, extra
                )
        if posting is not None:
            outcome = self._posting.answer(posting[0], posting[1], method, path, query, body, api)
        else:
            outcome = Outcome(*self._route(path))
        status, payload = outcome.status, outcome.payload
        if creates and status in (200, 201):
            self.content.count(now)
        answer_headers = budget.headers("core")
        answer_headers.update(outcome.headers or {})
        if method == "GET":
            encoded = json.dumps(payload, separators=(",", ":")).encode()
            etag = f'"{hashlib.sha256(encoded).hexdigest()[:40]}"'
            if status == 200 and headers.get("if-none-match") == etag:
                record(kind, method, path, 304, 0)
                answer_headers["etag"] = etag
                return Answer(304, b"", answer_headers)
            if status == 200:
                answer_headers["etag"] = etag
        budget.used += 1
        answer_headers.update(budget.headers("core"))
        record(kind, method, path, status, 1)
        return json_answer(status, payload, answer_headers)

    def _route(self, path: str) -> tuple[int, Any]:
        if path == "/user":
            return 200, {"login": self._parts.nodes.viewer.login, "id": 1, "type": "User"}
        m = _PERMISSION_PATH.match(path)
        if m is None:
            return 404, _NOT_FOUND
        owner, name, login = m[1], m[2], m[3]
        repo = self._parts.nodes.visible_repo(owner, name)
        if repo is None:
            return 404, _NOT_FOUND
        if not repo.push_access:
            return 403, {
                "message": "Must have push access to view collaborator permission.",
                "documentation_url": DOCS,
            }
        entry = repo.permissions.get(login.lower())
        if entry is None:
            return 404, _NOT_FOUND
        permission, role = entry
        user = {"login": login, "type": "Bot" if login.endswith("[bot]") else "User"}
        return 200, {"permission": permission, "role_name": role, "user": user}
