"""The GraphQL documents: conformance with GitHub's schema and the badge's shape."""

from __future__ import annotations

import pytest
from graphql import GraphQLSchema, parse, print_ast, validate
from graphql.language import (
    DocumentNode,
    FieldNode,
    FragmentDefinitionNode,
    OperationDefinitionNode,
    SelectionSetNode,
    visit,
)
from graphql.language.visitor import Visitor

from review_monitor import PrRef
from review_monitor._queries import (
    add_reactions_query,
    all_documents,
    badge_query,
    detail_query,
)


def _fields(doc: DocumentNode) -> list[FieldNode]:
    found: list[FieldNode] = []

    class Collect(Visitor):
        def enter_field(self, node: FieldNode, *_: object) -> None:
            found.append(node)

    visit(doc, Collect())
    return found


def _connections(doc: DocumentNode) -> list[str]:
    return sorted(
        f.name.value
        for f in _fields(doc)
        if any(a.name.value in ("first", "last") for a in f.arguments or ())
    )


def _prs(n: int, repos: int = 1) -> list[PrRef]:
    return [PrRef(f"octo-{i % repos}", "repo", i + 1) for i in range(n)]


def test_every_document_validates_against_githubs_full_schema(
    full_schema: GraphQLSchema,
) -> None:
    problems = {
        name: [e.message for e in validate(full_schema, parse(doc))]
        for name, doc in all_documents()
    }
    assert {name: [] for name, _ in all_documents()} == problems


def test_badge_of_a_full_batch_validates_against_githubs_full_schema(
    full_schema: GraphQLSchema,
) -> None:
    doc, _ = badge_query(_prs(100, repos=7))
    assert [] == validate(full_schema, parse(doc))


def test_badge_has_exactly_two_connections_comments_and_reviews() -> None:
    doc, _ = badge_query(_prs(3, repos=2))
    assert ["comments", "reviews"] == _connections(parse(doc))


def test_badge_reads_no_body() -> None:
    doc, _ = badge_query(_prs(3, repos=2))
    names = {f.name.value for f in _fields(parse(doc))}
    assert not names & {"body", "bodyText", "bodyHTML"}


def test_badge_reads_the_fields_the_issue_lists() -> None:
    doc, _ = badge_query(_prs(1))
    names = {f.name.value for f in _fields(parse(doc))}
    wanted = {
        "number", "title", "url", "state", "merged", "isDraft", "headRefOid",
        "reviewDecision", "statusCheckRollup", "pageInfo", "hasPreviousPage", "startCursor",
        "id", "fullDatabaseId", "createdAt", "submittedAt", "author", "__typename", "login",
        "viewerDidAuthor", "isMinimized", "rateLimit", "cost", "remaining", "resetAt", "limit",
    }  # fmt: skip
    assert set() == wanted - names


def test_badge_reviews_leave_out_pending_reviews() -> None:
    doc, _ = badge_query(_prs(1))
    reviews = next(f for f in _fields(parse(doc)) if f.name.value == "reviews")
    states = next(a for a in reviews.arguments or () if a.name.value == "states")
    assert "[APPROVED, CHANGES_REQUESTED, COMMENTED, DISMISSED]" == print_ast(states.value)


def test_badge_windows_travel_as_variables() -> None:
    _, variables = badge_query(_prs(1), comments_window=7, reviews_window=9)
    assert (7, 9) == (variables["c"], variables["r"])


def test_badge_groups_prs_under_one_alias_per_repository() -> None:
    prs = [PrRef("a", "x", 1), PrRef("b", "y", 2), PrRef("a", "x", 3)]
    doc, variables = badge_query(prs)
    op = next(d for d in parse(doc).definitions if isinstance(d, OperationDefinitionNode))
    layout = {
        f.alias.value if f.alias else f.name.value: sorted(
            s.alias.value
            for s in (f.selection_set or SelectionSetNode(selections=())).selections
            if isinstance(s, FieldNode) and s.alias
        )
        for f in op.selection_set.selections
        if isinstance(f, FieldNode)
    }
    assert {"r0": ["p1", "p3"], "r1": ["p2"], "rateLimit": []} == layout
    assert ("a", "x", "b", "y") == (
        variables["o0"],
        variables["n0"],
        variables["o1"],
        variables["n1"],
    )


def test_owner_and_name_never_enter_the_document() -> None:
    hostile = PrRef('o") { x } #', "n", 1)
    doc, variables = badge_query([hostile])
    assert ('o") { x } #', False) == (variables["o0"], 'o")' in doc)


def test_badge_refuses_more_than_100_prs() -> None:
    with pytest.raises(ValueError, match="at most 100"):
        badge_query(_prs(101))


def test_detail_refuses_more_than_100_ids() -> None:
    with pytest.raises(ValueError, match="at most 100"):
        detail_query([f"id{i}" for i in range(101)])


def test_detail_has_one_node_alias_per_id() -> None:
    doc, variables = detail_query(["A", "B", "C"])
    nodes = [f for f in _fields(parse(doc)) if f.name.value == "node"]
    assert (["d0", "d1", "d2"], ["A", "B", "C"]) == (
        [f.alias.value for f in nodes if f.alias],
        [variables[f"i{k}"] for k in range(3)],
    )


def test_detail_reads_inline_comments_of_a_review_up_to_the_window() -> None:
    doc, variables = detail_query(["A"], inline_window=20)
    fragment = next(
        d
        for d in parse(doc).definitions
        if isinstance(d, FragmentDefinitionNode) and d.name.value == "InlineComment"
    )
    names = {f.name.value for f in fragment.selection_set.selections if isinstance(f, FieldNode)}
    fields = {"id", "fullDatabaseId", "path", "line", "originalLine", "body", "url"}
    fields |= {"startLine", "originalStartLine", "outdated"}
    assert (fields, 20) == (
        names,
        variables["inline"],
    )


def test_reactions_refuse_an_unknown_content() -> None:
    with pytest.raises(ValueError, match="not a reaction"):
        add_reactions_query(["A"], "SMILE")


def test_all_documents_are_named_uniquely_in_a_stable_order() -> None:
    names = [name for name, _ in all_documents()]
    assert (names, len(names)) == ([name for name, _ in all_documents()], len(set(names)))


def test_all_documents_cover_every_operation() -> None:
    from review_monitor._queries import OPERATION_KINDS

    ops = set()
    for _, doc in all_documents():
        for d in parse(doc).definitions:
            if isinstance(d, OperationDefinitionNode) and d.name:
                ops.add(d.name.value)
    assert set(OPERATION_KINDS) == ops
