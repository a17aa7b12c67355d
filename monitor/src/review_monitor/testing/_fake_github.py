"""``FakeGitHub``: an in-process GitHub for tests and the demo.

It keeps repositories, pull requests, comments, reviews, checks and permissions in memory,
answers GraphQL by executing the query with graphql-core against a subset of GitHub's own
schema (``github-schema-subset.graphql``), answers the REST routes the project uses, prices
every query with GitHub's published formula, keeps an hourly budget, injects faults, and
records every request.  Reach it through ``transport()`` (``httpx.MockTransport``) or over
loopback HTTP with ``serve()`` / ``serve_in_thread()``.

``FakeGitHub`` is a facade over modules of one job each:

- ``_nodes.py``: what it holds (repositories, PRs, comments, reviews, checks) and the lock;
- ``_world.py``: ``World``, the mutators a test calls (``add_pr``, ``post_comment``, ...),
  which ``FakeGitHub`` inherits;
- ``_faults.py``: the injected faults (``Fault``) and the request log (``RecordedRequest``);
- ``_graphql.py`` (with ``_resolvers.py`` and ``_cost.py``): the GraphQL endpoint;
- ``_rest.py``: the REST endpoints;
- ``_endpoint.py``, ``_http.py``, ``_budget.py``: what the endpoints share (the token
  check, the answer, the hourly budget);
- ``_serving.py``: the ``httpx`` transport and the loopback HTTP server.
"""

from __future__ import annotations

import contextlib
import urllib.parse
from collections.abc import Mapping

import httpx

from . import _serving
from ._budget import Budget
from ._endpoint import EndpointParts, TokenCheck
from ._faults import Fault, Faults, RecordedRequest, RequestKind, RequestLog
from ._graphql import GraphQLEndpoint
from ._http import Answer
from ._nodes import Now
from ._rest import RestEndpoint
from ._world import World

__all__ = ["FakeGitHub"]


class FakeGitHub(World):
    """An in-memory GitHub.  Every mutator is safe to call while it serves requests."""

    def __init__(
        self,
        *,
        clock: Now | None = None,
        viewer: str = "octo-worker",
        host: str = "github.com",
        graphql_limit: int = 5000,
        rest_limit: int = 5000,
        token: str | None = None,
        hang_seconds: float = 30.0,
    ) -> None:
        super().__init__(clock=clock, viewer=viewer, host=host)
        self.hang_seconds = hang_seconds
        nodes = self._nodes
        self._token = TokenCheck(token)
        self._log = RequestLog(nodes.now)
        self._faults = Faults(self._log, nodes.now)
        parts = EndpointParts(nodes, self._faults, self._log, self._token)
        self._graphql = GraphQLEndpoint(parts, Budget(graphql_limit))
        self._rest = RestEndpoint(parts, Budget(rest_limit))

    @property
    def token(self) -> str | None:
        """The token a request must carry (None: any request is authorised)."""
        return self._token.token

    @token.setter
    def token(self, token: str | None) -> None:
        self._token.token = token

    # --------------------------------------------------------------- faults

    def inject(self, fault: Fault) -> None:
        """Apply ``fault`` to the next ``fault.times`` matching requests."""
        with self._nodes.lock:
            self._faults.inject(fault)

    # -------------------------------------------------------------- records

    @property
    def requests(self) -> tuple[RecordedRequest, ...]:
        with self._nodes.lock:
            return self._log.all()

    def count(self, kind: RequestKind | None = None) -> int:
        """How many requests (of ``kind``) FakeGitHub has seen."""
        with self._nodes.lock:
            return self._log.count(kind)

    def clear_requests(self) -> None:
        with self._nodes.lock:
            self._log.clear()

    @property
    def graphql_remaining(self) -> int:
        return self._graphql_budget().remaining

    @property
    def graphql_used(self) -> int:
        return self._graphql_budget().used

    @property
    def rest_remaining(self) -> int:
        """What is left of the hourly core (REST) budget."""
        return self._rest_budget().remaining

    @property
    def rest_used(self) -> int:
        """Core (REST) requests charged this hour."""
        return self._rest_budget().used

    def _rest_budget(self) -> Budget:
        with self._nodes.lock:
            budget = self._rest.budget
            budget.roll(self._nodes.now())
            return budget

    def _graphql_budget(self) -> Budget:
        with self._nodes.lock:
            budget = self._graphql.budget
            budget.roll(self._nodes.now())
            return budget

    # ------------------------------------------------------------- requests

    def handle(
        self,
        method: str,
        path: str,
        headers: Mapping[str, str],
        body: bytes,
        *,
        scheme: str = "https",
    ) -> Answer:
        """Answer one HTTP request (both transports come here).  Raises ``Timeout``.
        ``path`` may carry a query string; ``scheme`` and the ``host`` header make the
        absolute URLs of an answer (a ``Link`` header's pages)."""
        with self._nodes.lock:
            lowered = {k.lower(): v for k, v in headers.items()}
            path, _, query = path.partition("?")
            api = f"{scheme}://{lowered.get('host') or 'api.' + self._nodes.host}"
            for prefix in ("/api/v3", "/api"):
                if path.startswith(prefix + "/"):
                    path = path[len(prefix) :]
                    api += prefix
                    break
            if path == "/graphql" and method == "POST":
                return self._graphql.answer(path, lowered, body)
            params = dict(urllib.parse.parse_qsl(query, keep_blank_values=True))
            return self._rest.answer(method, path, lowered, query=params, body=body, api=api)

    # ------------------------------------------------------------ transports

    def transport(self, label: str | None = None) -> httpx.MockTransport:
        """An ``httpx`` transport answering in-process (any base URL).  Each request it
        carries is recorded with ``label`` as its ``via`` (which host of a fleet sent it)."""
        return _serving.transport(self, label)

    def serve_in_thread(self) -> contextlib.AbstractContextManager[str]:
        """Serve over loopback HTTP on 127.0.0.1 (ephemeral port); yields the base URL."""
        return _serving.serve_in_thread(self)

    def serve(self) -> contextlib.AbstractAsyncContextManager[str]:
        """``async with fake.serve() as base_url``: loopback HTTP for async tests."""
        return _serving.serve(self)
