"""Fault injection and the request log: what FakeGitHub does to a request, and what it saw.

``Faults`` holds the injected faults (``Fault``) and answers a request one of them matches;
``RequestLog`` records every request as a ``RecordedRequest``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from ._budget import Budget
from ._http import DOCS, Answer, json_answer

__all__ = [
    "SECONDARY_MESSAGE",
    "VIA",
    "Fault",
    "Faults",
    "RecordedRequest",
    "RequestKind",
    "RequestLog",
    "Timeout",
]

RequestKind = Literal[
    "badge",
    "sweep",
    "detail",
    "gap",
    "checks",
    "reaction",
    "permission",
    "post",
    "listing",
    "other",
]
"""What a request FakeGitHub saw was for, by its operation or path (``post``: a REST
comment, review, reply or edit; ``listing``: a REST read of a PR, its comments or reviews)."""

SECONDARY_MESSAGE = (
    "You have exceeded a secondary rate limit. Please wait a few minutes before you try again."
)


@dataclass(frozen=True)
class Fault:
    """One injected fault, applied to the next ``times`` requests of ``kind`` (any if None).

    - ``timeout``: the request times out (no answer); nothing is executed.
    - ``answer_lost``: the request is executed (a post is made, charged and recorded),
      then the answer is lost as a timeout loses it.
    - ``status`` other than 200: that status with a JSON ``message`` (and ``retry-after``,
      ``x-ratelimit-remaining`` when given); nothing is executed or charged.
    - ``errors`` with status 200: the query runs, then each error is added beside the data;
      an error with a ``path`` nulls the data there (partial data), one without a path
      drops all the data.

    ``kinds``, when given, matches a request of any of those kinds (``kind`` is then
    ignored); ``path_contains``, when given, matches only requests whose path contains it
    (a permission lookup of one login: ``"/collaborators/bob/"``).
    """

    status: int = 200
    kind: RequestKind | None = None
    times: int = 1
    timeout: bool = False
    message: str = "Server Error"
    retry_after: int | None = None
    ratelimit_remaining: int | None = None
    errors: tuple[Mapping[str, Any], ...] = ()
    kinds: tuple[RequestKind, ...] = ()
    path_contains: str | None = None
    answer_lost: bool = False

    def matches(self, kind: RequestKind, path: str) -> bool:
        if self.path_contains is not None and self.path_contains.lower() not in path.lower():
            return False
        if self.kinds:
            return kind in self.kinds
        return self.kind is None or self.kind == kind

    @classmethod
    def secondary_limit(
        cls, *, retry_after: int | None = 60, status: int = 403, kind: RequestKind | None = None
    ) -> Fault:
        return cls(status=status, kind=kind, message=SECONDARY_MESSAGE, retry_after=retry_after)

    @classmethod
    def server_error(cls, status: int = 502, *, kind: RequestKind | None = None) -> Fault:
        return cls(status=status, kind=kind, message="Server Error")

    @classmethod
    def time_out(cls, *, kind: RequestKind | None = None, times: int = 1) -> Fault:
        return cls(timeout=True, kind=kind, times=times)

    @classmethod
    def lost_answer(cls, *, kind: RequestKind | None = "post", times: int = 1) -> Fault:
        """The write happens, the answer never comes (a timeout after sending)."""
        return cls(answer_lost=True, kind=kind, times=times)

    @classmethod
    def graphql_errors(cls, *errors: Mapping[str, Any], kind: RequestKind | None = None) -> Fault:
        return cls(errors=errors, kind=kind)


@dataclass(frozen=True)
class RecordedRequest:
    """One request FakeGitHub saw."""

    kind: RequestKind
    method: str
    path: str
    operation: str | None
    status: int  # 0 for a timeout
    cost: int  # points charged (GraphQL) or 1/0 (REST; a 304 is free)
    at: datetime
    variables: Mapping[str, Any] = field(default_factory=dict)
    via: str | None = None  # the label of the transport it came through, if it had one


# The label of the in-process transport answering the request being handled
# (``FakeGitHub.transport(label)``), set around each call of ``FakeGitHub.handle``.
VIA: ContextVar[str | None] = ContextVar("fake_github_via", default=None)


class Timeout(Exception):
    """An injected timeout: the transport answering the request gives no answer."""


class RequestLog:
    """Every request FakeGitHub saw, in order, stamped with the fake's clock."""

    def __init__(self, now: Callable[[], datetime]) -> None:
        self._now = now
        self._requests: list[RecordedRequest] = []

    def record(
        self,
        kind: RequestKind,
        method: str,
        path: str,
        status: int,
        cost: int,
        operation: str | None = None,
        variables: Mapping[str, Any] | None = None,
    ) -> None:
        self._requests.append(
            RecordedRequest(
                kind=kind,
                method=method,
                path=path,
                operation=operation,
                status=status,
                cost=cost,
                at=self._now(),
                variables=dict(variables or {}),
                via=VIA.get(),
            )
        )

    def all(self) -> tuple[RecordedRequest, ...]:
        return tuple(self._requests)

    def count(self, kind: RequestKind | None = None) -> int:
        return sum(1 for r in self._requests if kind is None or r.kind == kind)

    def clear(self) -> None:
        self._requests.clear()


class Faults:
    """The injected faults still to apply, and the answer a matching request gets."""

    def __init__(self, log: RequestLog, now: Callable[[], datetime]) -> None:
        self._log = log
        self._now = now
        self._pending: list[list[Any]] = []  # [fault, times left]

    def inject(self, fault: Fault) -> None:
        if fault.times < 1:
            raise ValueError("a fault applies to at least one request")
        self._pending.append([fault, fault.times])

    def take(self, kind: RequestKind, path: str = "") -> Fault | None:
        """The first fault matching this request, counted as applied once."""
        for entry in self._pending:
            fault, left = entry
            if fault.matches(kind, path):
                entry[1] = left - 1
                if entry[1] == 0:
                    self._pending.remove(entry)
                return fault  # type: ignore[no-any-return]
        return None

    def answer(
        self,
        fault: Fault,
        kind: RequestKind,
        method: str,
        path: str,
        operation: str | None,
        variables: Mapping[str, Any],
        budget: Budget,
    ) -> Answer:
        """The fault's error answer (nothing executed or charged); raises ``Timeout``."""
        if fault.timeout:
            self._log.record(kind, method, path, 0, 0, operation, variables)
            raise Timeout
        budget.roll(self._now())
        extra = budget.headers("graphql" if path == "/graphql" else "core")
        if fault.retry_after is not None:
            extra["retry-after"] = str(fault.retry_after)
        if fault.ratelimit_remaining is not None:
            extra["x-ratelimit-remaining"] = str(fault.ratelimit_remaining)
        self._log.record(kind, method, path, fault.status, 0, operation, variables)
        payload = {"message": fault.message, "documentation_url": DOCS}
        return json_answer(fault.status, payload, extra)
