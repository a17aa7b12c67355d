"""FakeGitHub's REST endpoints: ``GET /user`` and a collaborator's permission.

Each answer carries an ETag; a ``GET`` with a matching ``If-None-Match`` is a free 304, any
other answer costs one request of the hourly core budget.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from typing import Any

from ._budget import Budget
from ._endpoint import EndpointParts
from ._faults import RequestKind
from ._http import DOCS, Answer, json_answer

__all__ = ["RestEndpoint"]

_PERMISSION_PATH = re.compile(r"^/repos/([^/]+)/([^/]+)/collaborators/([^/]+)/permission$")
_NOT_FOUND = {"message": "Not Found", "documentation_url": DOCS}


class RestEndpoint:
    """Every path but ``POST /graphql`` (called under the nodes' lock)."""

    def __init__(self, parts: EndpointParts, budget: Budget) -> None:
        self.budget = budget
        self._parts = parts

    def answer(self, method: str, path: str, headers: Mapping[str, str]) -> Answer:
        parts = self._parts
        kind: RequestKind = "permission" if _PERMISSION_PATH.match(path) else "other"
        fault = parts.faults.take(kind, path)
        if fault is not None:
            return parts.faults.answer(fault, kind, method, path, None, {}, self.budget)
        unauthorised = parts.token.refusal(headers)
        if unauthorised is not None:
            parts.log.record(kind, method, path, 401, 0)
            return unauthorised
        return self._charged(method, path, headers, kind)

    def _charged(
        self, method: str, path: str, headers: Mapping[str, str], kind: RequestKind
    ) -> Answer:
        budget = self.budget
        record = self._parts.log.record
        budget.roll(self._parts.nodes.now())
        if method != "GET":
            record(kind, method, path, 404, 0)
            return json_answer(404, _NOT_FOUND)
        if budget.remaining <= 0:
            record(kind, method, path, 403, 0)
            payload = {
                "message": "API rate limit exceeded for user ID 1.",
                "documentation_url": DOCS,
            }
            return json_answer(403, payload, budget.headers("core"))
        status, payload = self._route(path)
        encoded = json.dumps(payload, separators=(",", ":")).encode()
        etag = f'"{hashlib.sha256(encoded).hexdigest()[:40]}"'
        if status == 200 and headers.get("if-none-match") == etag:
            record(kind, method, path, 304, 0)
            answer_headers = budget.headers("core")
            answer_headers["etag"] = etag
            return Answer(304, b"", answer_headers)
        budget.used += 1
        record(kind, method, path, status, 1)
        answer_headers = budget.headers("core")
        if status == 200:
            answer_headers["etag"] = etag
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
