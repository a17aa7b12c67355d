"""FakeGitHub's GraphQL endpoint: parse, validate, price, charge and execute a query.

Queries run with graphql-core against a subset of GitHub's own schema
(``github-schema-subset.graphql``), priced with GitHub's published formula (``_cost.py``)
against an hourly budget; a query over the node limit or the budget is refused as GitHub
refuses it.

A query that fails validation is answered as GitHub answers it: ``errors`` and no
``data`` key.  An ``Int`` literal beyond 32 bits (``pullRequest(number: 3000000000)``)
gets GitHub's own error (graphql-ruby's ``argumentLiteralsIncompatible``, with the path of
aliases from the operation to the argument) instead of graphql-core's wording, and an
``Int`` variable beyond 32 bits gets GitHub's "was provided invalid value" error.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from importlib import resources
from typing import Any

from graphql import (
    GraphQLError,
    GraphQLNamedType,
    GraphQLSchema,
    build_schema,
    execute_sync,
    get_named_type,
    parse,
    validate,
)
from graphql.language import (
    ArgumentNode,
    DocumentNode,
    FieldNode,
    FragmentDefinitionNode,
    InlineFragmentNode,
    IntValueNode,
    ListTypeNode,
    NamedTypeNode,
    NonNullTypeNode,
    OperationDefinitionNode,
    SelectionSetNode,
    VariableDefinitionNode,
    VariableNode,
    print_ast,
)
from graphql.language.location import get_location

from review_monitor._queries import OPERATION_KINDS

from ._budget import Budget
from ._cost import query_cost
from ._endpoint import EndpointParts
from ._faults import RequestKind, Timeout
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
        if fault is not None and not fault.answer_lost and (fault.timeout or fault.status != 200):
            return parts.faults.answer(fault, kind, "POST", path, operation, variables, budget)
        unauthorised = parts.token.refusal(headers)
        if unauthorised is not None:
            record(kind, "POST", path, 401, 0, operation, variables)
            return unauthorised
        schema = schema_subset()
        problems = (
            problems
            or _int_variable_errors(document, variables, operation)
            or _too_many_node_ids(document, variables, operation)
        )
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
        if fault is not None and fault.answer_lost:
            raise Timeout
        return json_answer(200, payload, budget.headers("graphql"))

    def _prepare(self, query: str) -> tuple[DocumentNode, list[dict[str, Any]]]:
        """Parse and validate once per distinct query text (polls repeat theirs)."""
        found = self._prepared.get(query)
        if found is None:
            document = parse(query)
            problems = _github_problems(document, validate(schema_subset(), document))
            if len(self._prepared) >= 256:
                self._prepared.clear()
            found = self._prepared[query] = (document, problems)
        return found


_INT_MIN, _INT_MAX = -(2**31), 2**31 - 1


def _github_problems(document: DocumentNode, errors: list[GraphQLError]) -> list[dict[str, Any]]:
    """graphql-core's validation errors, with each out-of-range ``Int`` literal argument
    reported as GitHub reports it."""
    ours = _int_literal_errors(document)
    replaced = {id(value) for value, _ in ours}
    kept = [
        dict(e.formatted) for e in errors if not any(id(node) in replaced for node in e.nodes or ())
    ]
    return [error for _, error in ours] + kept


def _int_literal_errors(document: DocumentNode) -> list[tuple[IntValueNode, dict[str, Any]]]:
    schema = schema_subset()
    found: list[tuple[IntValueNode, dict[str, Any]]] = []

    def walk(
        selections: SelectionSetNode | None, parent: GraphQLNamedType, path: list[str]
    ) -> None:
        if selections is None:
            return
        fields = getattr(parent, "fields", {})
        for selection in selections.selections:
            if isinstance(selection, InlineFragmentNode):
                condition = selection.type_condition
                inner = schema.get_type(condition.name.value) if condition else parent
                if inner is not None:
                    walk(selection.selection_set, inner, path)
                continue
            if not isinstance(selection, FieldNode):
                continue
            definition = fields.get(selection.name.value)
            if definition is None:
                continue
            key = (selection.alias or selection.name).value
            for argument in selection.arguments or ():
                check(selection, argument, definition.args.get(argument.name.value), [*path, key])
            walk(selection.selection_set, get_named_type(definition.type), [*path, key])

    def check(field: FieldNode, argument: ArgumentNode, definition: Any, path: list[str]) -> None:
        value = argument.value
        if definition is None or not isinstance(value, IntValueNode):
            return
        if get_named_type(definition.type).name != "Int":
            return
        if _INT_MIN <= int(value.value) <= _INT_MAX:
            return
        name = argument.name.value
        error: dict[str, Any] = {
            "path": [*path, name],
            "extensions": {
                "code": "argumentLiteralsIncompatible",
                "typeName": "Field",
                "argumentName": name,
            },
            "locations": _locations(argument),
            "message": (
                f"Argument '{name}' on Field '{field.name.value}' has an invalid value "
                f"({value.value}). Expected type '{definition.type}'."
            ),
        }
        found.append((value, error))

    for definition in document.definitions:
        if isinstance(definition, OperationDefinitionNode):
            root = schema.get_root_type(definition.operation)
            label = definition.operation.value
            if definition.name is not None:
                label = f"{label} {definition.name.value}"
            if root is not None:
                walk(definition.selection_set, root, [label])
        elif isinstance(definition, FragmentDefinitionNode):
            on = schema.get_type(definition.type_condition.name.value)
            if on is not None:
                walk(definition.selection_set, on, [f"fragment {definition.name.value}"])
    return found


def _int_variable_errors(
    document: DocumentNode, variables: Mapping[str, Any], operation: str | None
) -> list[dict[str, Any]]:
    """GitHub's error for each ``Int`` variable whose value is beyond 32 bits."""
    out: list[dict[str, Any]] = []
    for definition in document.definitions:
        if not isinstance(definition, OperationDefinitionNode):
            continue
        if (definition.name.value if definition.name else None) != operation:
            continue
        for declared in definition.variable_definitions or ():
            name = declared.variable.name.value
            value = variables.get(name)
            named = declared.type
            while isinstance(named, NonNullTypeNode | ListTypeNode):
                named = named.type
            if not isinstance(named, NamedTypeNode) or named.name.value != "Int":
                continue
            if not isinstance(value, int) or isinstance(value, bool):
                continue
            if _INT_MIN <= value <= _INT_MAX:
                continue
            out.append(
                {
                    "extensions": {
                        "value": value,
                        "problems": [
                            {"path": [], "explanation": f"Could not coerce value {value} to Int"}
                        ],
                    },
                    "locations": _locations(declared),
                    "message": (
                        f"Variable ${name} of type {print_ast(declared.type)} was provided "
                        "invalid value"
                    ),
                }
            )
    return out


def _locations(node: ArgumentNode | VariableDefinitionNode) -> list[dict[str, int]]:
    if node.loc is None:
        return []
    where = get_location(node.loc.source, node.loc.start)
    return [{"line": where.line, "column": where.column}]


def _operation_name(document: DocumentNode, wanted: object) -> str | None:
    ops = [d for d in document.definitions if isinstance(d, OperationDefinitionNode)]
    for op in ops:
        name = op.name.value if op.name else None
        if wanted is None or name == wanted:
            return name
    return None


MAX_NODE_IDS = 100


def _too_many_node_ids(
    document: DocumentNode, variables: Mapping[str, Any], operation: str | None
) -> list[dict[str, Any]]:
    """GitHub refuses a ``nodes(ids:)`` of more than 100 ids: the whole request, no data."""
    for op in document.definitions:
        if not isinstance(op, OperationDefinitionNode):
            continue
        if operation is not None and (op.name is None or op.name.value != operation):
            continue
        for selection in op.selection_set.selections:
            if not isinstance(selection, FieldNode) or selection.name.value != "nodes":
                continue
            for argument in selection.arguments or ():
                value = argument.value
                if argument.name.value != "ids":
                    continue
                if isinstance(value, VariableNode):
                    ids = variables.get(value.name.value)
                    count = len(ids) if isinstance(ids, list) else 0
                else:
                    count = len(getattr(value, "values", ()))
                if count > MAX_NODE_IDS:
                    message = (
                        f"You may not provide more than {MAX_NODE_IDS} node ids; "
                        f"you provided {count}."
                    )
                    return [{"message": message, "locations": _locations(argument)}]
    return []


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
