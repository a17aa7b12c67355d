"""Extract the subset of GitHub's GraphQL schema that FakeGitHub answers.

Usage::

    python monitor/scripts/extract_schema.py [FULL_SCHEMA] [OUTPUT]

defaults: ``../shared/github/schema.graphql`` beside the repository, and
``monitor/src/review_monitor/testing/github-schema-subset.graphql``.

Each type keeps GitHub's name, and each field kept is copied exactly (arguments, type,
``@deprecated``); only descriptions are dropped.  Object and interface types keep the fields
listed in ``SUBSET`` (plus whatever their kept interfaces declare); enums, input objects and
scalars they reach are copied whole.  Interfaces and union members outside the subset are
dropped.  A test (``tests/monitor/fake/test_schema_subset.py``) compares every kept type with
the full file, so the subset can only drift by running this script again.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from pathlib import Path

from graphql import parse, print_ast
from graphql.language import (
    DefinitionNode,
    DocumentNode,
    EnumTypeDefinitionNode,
    FieldDefinitionNode,
    InputObjectTypeDefinitionNode,
    InputValueDefinitionNode,
    InterfaceTypeDefinitionNode,
    ListTypeNode,
    NamedTypeNode,
    NonNullTypeNode,
    ObjectTypeDefinitionNode,
    ScalarTypeDefinitionNode,
    TypeNode,
    UnionTypeDefinitionNode,
)

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_FULL = ROOT.parent / "shared" / "github" / "schema.graphql"
DEFAULT_OUT = ROOT / "monitor/src/review_monitor/testing/github-schema-subset.graphql"

BUILTIN_SCALARS = frozenset({"ID", "String", "Int", "Float", "Boolean"})

_ACTOR = ("id", "login")
_CONNECTION = ("edges", "nodes", "pageInfo", "totalCount")
_EDGE = ("cursor", "node")

# Object and interface types, with the fields kept.  Unions list nothing (their members
# are filtered to the subset).
SUBSET: dict[str, tuple[str, ...]] = {
    "Query": ("node", "nodes", "rateLimit", "repository", "viewer"),
    "Mutation": ("addReaction",),
    "Node": ("id",),
    "Actor": ("login",),
    "Minimizable": ("isMinimized",),
    "Reactable": ("id",),
    "User": _ACTOR,
    "Bot": _ACTOR,
    "Mannequin": _ACTOR,
    "Organization": _ACTOR,
    "EnterpriseUserAccount": _ACTOR,
    "RateLimit": ("cost", "limit", "nodeCount", "remaining", "resetAt", "used"),
    "PageInfo": ("endCursor", "hasNextPage", "hasPreviousPage", "startCursor"),
    "Repository": ("id", "name", "nameWithOwner", "pullRequest"),
    "PullRequest": (
        "author",
        "comments",
        "headRefOid",
        "id",
        "isDraft",
        "merged",
        "number",
        "reviewDecision",
        "reviews",
        "state",
        "statusCheckRollup",
        "title",
        "updatedAt",
        "url",
    ),
    "IssueComment": (
        "author",
        "body",
        "createdAt",
        "databaseId",
        "fullDatabaseId",
        "id",
        "isMinimized",
        "lastEditedAt",
        "url",
        "viewerDidAuthor",
    ),
    "IssueCommentConnection": _CONNECTION,
    "IssueCommentEdge": _EDGE,
    "PullRequestReview": (
        "author",
        "body",
        "comments",
        "createdAt",
        "databaseId",
        "fullDatabaseId",
        "id",
        "isMinimized",
        "lastEditedAt",
        "state",
        "submittedAt",
        "url",
        "viewerDidAuthor",
    ),
    "PullRequestReviewConnection": _CONNECTION,
    "PullRequestReviewEdge": _EDGE,
    "PullRequestReviewComment": (
        "author",
        "body",
        "createdAt",
        "databaseId",
        "fullDatabaseId",
        "id",
        "line",
        "originalLine",
        "originalStartLine",
        "outdated",
        "path",
        "startLine",
        "url",
    ),
    "PullRequestReviewCommentConnection": _CONNECTION,
    "PullRequestReviewCommentEdge": _EDGE,
    "Commit": ("id", "oid"),
    "StatusCheckRollup": ("commit", "contexts", "id", "state"),
    "StatusCheckRollupContext": (),
    "StatusCheckRollupContextConnection": _CONNECTION,
    "StatusCheckRollupContextEdge": _EDGE,
    "CheckRun": (
        "conclusion",
        "databaseId",
        "detailsUrl",
        "id",
        "name",
        "status",
        "summary",
        "text",
        "title",
        "url",
    ),
    "StatusContext": ("context", "description", "id", "state", "targetUrl"),
    "AddReactionPayload": ("clientMutationId", "reaction", "subject"),
    "Reaction": ("content", "createdAt", "id", "user"),
}

HEADER = """\
# A subset of GitHub's public GraphQL schema, extracted type by type with identical names by
# monitor/scripts/extract_schema.py from @octokit/graphql-schema (schema.graphql).
# Copyright (c) GitHub; MIT licensed: see LICENSE-github-graphql-schema.md beside this file.
# Descriptions are dropped; do not edit by hand, run the script again.
"""

_Typed = ObjectTypeDefinitionNode | InterfaceTypeDefinitionNode


def named(t: TypeNode) -> str:
    """The named type under any list and non-null wrappers."""
    while isinstance(t, ListTypeNode | NonNullTypeNode):
        t = t.type
    assert isinstance(t, NamedTypeNode)
    return t.name.value


def definitions(doc: DocumentNode) -> dict[str, DefinitionNode]:
    out: dict[str, DefinitionNode] = {}
    for d in doc.definitions:
        name = getattr(d, "name", None)
        if name is not None:
            out[name.value] = d
    return out


def strip_input(v: InputValueDefinitionNode) -> InputValueDefinitionNode:
    return InputValueDefinitionNode(
        name=v.name, type=v.type, default_value=v.default_value, directives=v.directives
    )


def strip_field(f: FieldDefinitionNode) -> FieldDefinitionNode:
    return FieldDefinitionNode(
        name=f.name,
        arguments=tuple(strip_input(a) for a in f.arguments or ()),
        type=f.type,
        directives=f.directives,
    )


def field_refs(f: FieldDefinitionNode) -> Iterable[str]:
    yield named(f.type)
    for a in f.arguments or ():
        yield named(a.type)


def extract(full_sdl: str) -> str:
    full = definitions(parse(full_sdl, no_location=True))
    kept: dict[str, DefinitionNode] = {}
    pending = list(SUBSET)
    while pending:
        name = pending.pop(0)
        if name in kept or name in BUILTIN_SCALARS:
            continue
        node = full.get(name)
        if node is None:
            raise SystemExit(f"{name} is not a type of the full schema")
        refs: list[str] = []
        new: DefinitionNode
        if isinstance(node, ObjectTypeDefinitionNode | InterfaceTypeDefinitionNode):
            if name not in SUBSET:
                raise SystemExit(f"{name} is reached but not listed in SUBSET; list its fields")
            wanted = set(SUBSET[name])
            interfaces = tuple(i for i in node.interfaces or () if i.name.value in SUBSET)
            for i in interfaces:
                wanted.update(SUBSET[i.name.value])
            by_name = {f.name.value: f for f in node.fields or ()}
            missing = wanted - by_name.keys()
            if missing:
                raise SystemExit(f"{name} has no field(s) {sorted(missing)}")
            fields = tuple(strip_field(by_name[f]) for f in sorted(wanted))
            for f in fields:
                refs.extend(field_refs(f))
            refs.extend(i.name.value for i in interfaces)
            cls = type(node)
            new = cls(name=node.name, interfaces=interfaces, directives=(), fields=fields)
        elif isinstance(node, UnionTypeDefinitionNode):
            members = tuple(t for t in node.types or () if t.name.value in SUBSET)
            refs.extend(t.name.value for t in members)
            new = UnionTypeDefinitionNode(name=node.name, directives=(), types=members)
        elif isinstance(node, EnumTypeDefinitionNode):
            values = tuple(type(v)(name=v.name, directives=v.directives) for v in node.values or ())
            new = EnumTypeDefinitionNode(name=node.name, directives=(), values=values)
        elif isinstance(node, InputObjectTypeDefinitionNode):
            inputs = tuple(strip_input(v) for v in node.fields or ())
            refs.extend(named(v.type) for v in inputs)
            new = InputObjectTypeDefinitionNode(name=node.name, directives=(), fields=inputs)
        elif isinstance(node, ScalarTypeDefinitionNode):
            new = ScalarTypeDefinitionNode(name=node.name, directives=())
        else:
            raise SystemExit(f"{name}: unexpected definition {type(node).__name__}")
        kept[name] = new
        pending.extend(r for r in refs if r not in kept)
    parts = [print_ast(kept[n]) for n in sorted(kept)]
    return HEADER + "\n" + "\n\n".join(parts) + "\n"


def main(argv: list[str]) -> int:
    full = Path(argv[1]) if len(argv) > 1 else DEFAULT_FULL
    out = Path(argv[2]) if len(argv) > 2 else DEFAULT_OUT
    out.write_text(extract(full.read_text(encoding="utf-8")), encoding="utf-8")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
