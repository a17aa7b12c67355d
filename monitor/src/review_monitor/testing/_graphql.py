"""FakeGitHub's GraphQL endpoint: parse, validate, price, charge and execute a query.

Queries run with graphql-core against a subset of GitHub's own schema
(``github-schema-subset.graphql``), priced with GitHub's published formula (``_cost.py``)
against an hourly budget; a query over the node limit or the budget is refused as GitHub
refuses it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from importlib import resources
from typing import Any

from graphql import GraphQLError, GraphQLSchema, build_schema, execute_sync, parse, validate
from graphql.language import DocumentNode, OperationDefinitionNode

from review_monitor._queries import OPERATION_KINDS

from ._budget import Budget
from ._cost import query_cost
from ._endpoint import EndpointParts
from ._faults import RequestKind
from ._http import DOCS, Answer, json_answer
from ._resolvers import Resolvers, iso

__all__ = ["GraphQLEndpoint", "schema_subset"]


@cache
def schema_subset() -> GraphQLSchema:
    """The schema subset FakeGitHub executes against (package data)."""
    text = (
        resources.files("review_monitor.testing")
        .joinpath("github-schema-subset.graphql")
        .read_text(encoding="utf-8")
    )
    return build_schema(text)


class GraphQLEndpoint:
    """``POST /graphql`` (called under the nodes' lock)."""

    def __init__(self, parts: EndpointParts, budget: Budget) -> None:
        self.budget = budget
        self._parts = parts
        self._resolvers = Resolvers(parts.nodes)
        self._prepared: dict[str, tuple[DocumentNode, list[dict[str, Any]]]] = {}

    def answer(self, path: str, headers: Mapping[str, str], body: bytes) -> Answer:
        parts = self._parts
        record = parts.log.record
        try:
            request = json.loads(body)
            query = request["query"]
            variables = request.get("variables") or {}
            operation_name = request.get("operationName")
            if not isinstance(query, str) or not isinstance(variables, dict):
                raise TypeError
        except (ValueError, KeyError, TypeError):
            record("other", "POST", path, 400, 0)
            return json_answer(400, {"message": "Problems parsing JSON", "documentation_url": DOCS})
        try:
            document, problems = self._prepare(query)
        except GraphQLError as exc:
            record("other", "POST", path, 200, 0)
            return json_answer(200, {"errors": [{"message": exc.message}]})
        operation = _operation_name(document, operation_name)
        kind: RequestKind = OPERATION_KINDS.get(operation or "", "other")  # type: ignore[assignment]
        fault = parts.faults.take(kind, path)
        budget = self.budget
        if fault is not None and (fault.timeout or fault.status != 200):
            return parts.faults.answer(fault, kind, "POST", path, operation, variables, budget)
        unauthorised = parts.token.refusal(headers)
        if unauthorised is not None:
            record(kind, "POST", path, 401, 0, operation, variables)
            return unauthorised
        schema = schema_subset()
        if problems:
            record(kind, "POST", path, 200, 0, operation, variables)
            return json_answer(200, {"errors": problems})
        now = parts.nodes.now()
        budget.roll(now)
        cost = query_cost(document, variables, operation_name=operation)
        if cost.nodes > 500_000:
            record(kind, "POST", path, 200, 0, operation, variables)
            message = (
                f"This query requests up to {cost.nodes} possible nodes which exceeds the "
                "maximum limit of 500,000."
            )
            return json_answer(
                200, {"errors": [{"type": "MAX_NODE_LIMIT_EXCEEDED", "message": message}]}
            )
        if cost.points > budget.remaining:
            record(kind, "POST", path, 200, 0, operation, variables)
            rate_headers = budget.headers("graphql")
            rate_headers["x-ratelimit-remaining"] = "0"
            error = {
                "type": "RATE_LIMITED",
                "message": "API rate limit already exceeded for user ID 1.",
            }
            return json_answer(200, {"errors": [error]}, rate_headers)
        budget.used += cost.points
        assert budget.reset_at is not None
        rate = {
            "cost": cost.points,
            "limit": budget.limit,
            "remaining": budget.remaining,
            "used": budget.used,
            "resetAt": iso(budget.reset_at),
            "nodeCount": cost.nodes,
        }
        result = execute_sync(
            schema,
            document,
            variable_values=variables,
            operation_name=operation_name,
            context_value={"rate": rate},
            field_resolver=self._resolvers.resolve,
            type_resolver=self._resolvers.type_of,
        )
        data = result.data
        errors: list[dict[str, Any]] = [_format_error(e) for e in result.errors or ()]
        if fault is not None:
            for extra_error in fault.errors:
                errors.append(dict(extra_error))
                data = _null_at(data, extra_error.get("path"))
        payload: dict[str, Any] = {"data": data}
        if errors:
            payload["errors"] = errors
        record(kind, "POST", path, 200, cost.points, operation, variables)
        return json_answer(200, payload, budget.headers("graphql"))

    def _prepare(self, query: str) -> tuple[DocumentNode, list[dict[str, Any]]]:
        """Parse and validate once per distinct query text (polls repeat theirs)."""
        found = self._prepared.get(query)
        if found is None:
            document = parse(query)
            problems = [dict(e.formatted) for e in validate(schema_subset(), document)]
            if len(self._prepared) >= 256:
                self._prepared.clear()
            found = self._prepared[query] = (document, problems)
        return found


def _operation_name(document: DocumentNode, wanted: object) -> str | None:
    ops = [d for d in document.definitions if isinstance(d, OperationDefinitionNode)]
    for op in ops:
        name = op.name.value if op.name else None
        if wanted is None or name == wanted:
            return name
    return None


def _format_error(error: GraphQLError) -> dict[str, Any]:
    out = dict(error.formatted)
    original = error.original_error
    kind = getattr(original, "type", None)
    if isinstance(kind, str):
        out["type"] = kind
    out.pop("extensions", None)
    return out


def _null_at(data: Any, path: object) -> Any:
    """``data`` with the value at ``path`` set to null (no path: all of it)."""
    if not isinstance(path, list) or not path or not isinstance(data, dict):
        return None
    node: Any = data
    for step in path[:-1]:
        if isinstance(node, dict) and isinstance(step, str):
            node = node.get(step)
        elif isinstance(node, list) and isinstance(step, int) and 0 <= step < len(node):
            node = node[step]
        else:
            return data
    last = path[-1]
    fits_dict = isinstance(node, dict) and isinstance(last, str)
    fits_list = isinstance(node, list) and isinstance(last, int) and 0 <= last < len(node)
    if fits_dict or fits_list:
        node[last] = None
    return data
