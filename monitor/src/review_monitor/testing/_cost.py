"""GitHub's published GraphQL cost formula, for FakeGitHub and the poll-cost bench.

Add up the requests each connection needs, assuming every ``first``/``last`` is filled;
divide by 100 and round to the nearest whole number (half up); the least a call costs is 1.
A connection nested in another needs one request per parent node, so its requests are the
product of the sizes of the connections above it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec
from graphql import parse
from graphql.language import (
    DocumentNode,
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    InlineFragmentNode,
    IntValueNode,
    OperationDefinitionNode,
    SelectionSetNode,
    VariableNode,
)

__all__ = ["QueryCost", "query_cost"]


class QueryCost(msgspec.Struct, frozen=True):
    """A GraphQL query's price by GitHub's published formula, and the node limit it checks."""

    requests: int  # requests the connections need
    nodes: int  # the most nodes the query can return (GitHub's limit is 500,000)
    points: int  # what the query costs against the hourly budget


class _Walk:
    def __init__(self, doc: DocumentNode, variables: Mapping[str, Any]) -> None:
        self.fragments = {
            d.name.value: d for d in doc.definitions if isinstance(d, FragmentDefinitionNode)
        }
        self.variables = variables
        self.requests = 0
        self.nodes = 0

    def size(self, field: FieldNode) -> int | None:
        for arg in field.arguments or ():
            if arg.name.value not in ("first", "last"):
                continue
            value = arg.value
            if isinstance(value, IntValueNode):
                return int(value.value)
            if isinstance(value, VariableNode):
                got = self.variables.get(value.name.value)
                if isinstance(got, int) and not isinstance(got, bool):
                    return got
        return None

    def walk(
        self, selections: SelectionSetNode | None, multiplier: int, seen: frozenset[str]
    ) -> None:
        for sel in selections.selections if selections is not None else ():
            if isinstance(sel, FieldNode):
                size = self.size(sel)
                if size is None:
                    self.walk(sel.selection_set, multiplier, seen)
                else:
                    self.requests += multiplier
                    self.nodes += multiplier * size
                    self.walk(sel.selection_set, multiplier * size, seen)
            elif isinstance(sel, InlineFragmentNode):
                self.walk(sel.selection_set, multiplier, seen)
            elif isinstance(sel, FragmentSpreadNode):
                name = sel.name.value
                fragment = self.fragments.get(name)
                if fragment is not None and name not in seen:
                    self.walk(fragment.selection_set, multiplier, seen | {name})


def query_cost(
    document: str | DocumentNode,
    variables: Mapping[str, Any] | None = None,
    *,
    operation_name: str | None = None,
) -> QueryCost:
    """Price one GraphQL request as GitHub documents it (mutations are priced the same way)."""
    doc = parse(document) if isinstance(document, str) else document
    walk = _Walk(doc, variables or {})
    operations = [d for d in doc.definitions if isinstance(d, OperationDefinitionNode)]
    if operation_name is not None:
        operations = [o for o in operations if o.name and o.name.value == operation_name]
    for op in operations[:1]:
        walk.walk(op.selection_set, 1, frozenset())
    points = max(1, (walk.requests + 50) // 100)
    return QueryCost(requests=walk.requests, nodes=walk.nodes, points=points)
