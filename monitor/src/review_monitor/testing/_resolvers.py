"""GraphQL fields resolved against FakeGitHub's nodes, paginated as GitHub paginates.

``Resolvers.resolve`` is graphql-core's field resolver: an overridden (corrupted) field
first, then a field with its own resolver (a repository, a node, a connection, the
``addReaction`` mutation), else the node's attribute of the field's snake-case name.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from functools import cache
from typing import TYPE_CHECKING, Any

from graphql import GraphQLResolveInfo

from ._nodes import Item, Nodes, Pr, Repo, Review

__all__ = ["NotFound", "Refused", "Resolvers", "iso"]

if TYPE_CHECKING:
    _Info = GraphQLResolveInfo[Any]
else:
    _Info = GraphQLResolveInfo


def iso(t: datetime) -> str:
    return t.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class NotFound(Exception):
    type = "NOT_FOUND"


class Refused(Exception):
    def __init__(self, message: str, type_: str) -> None:
        super().__init__(message)
        self.type = type_


def _cursor(seq: int) -> str:
    return base64.b64encode(f"cursor:v2:{seq}".encode()).decode()


def _uncursor(cursor: object) -> int | None:
    if not isinstance(cursor, str):
        return None
    try:
        text = base64.b64decode(cursor.encode(), validate=True).decode()
    except ValueError:
        return None
    prefix = "cursor:v2:"
    tail = text.removeprefix(prefix)
    return int(tail) if text.startswith(prefix) and tail.isdigit() else None


def _connection(name: str, items: Sequence[Any], args: Mapping[str, Any]) -> dict[str, Any]:
    """A GraphQL connection over ``items`` (each with ``seq``), as GitHub paginates."""
    first, last = args.get("first"), args.get("last")
    if first is None and last is None:
        raise Refused(
            f"You must provide a `first` or `last` value to properly paginate the `{name}` "
            "connection.",
            "MISSING_PAGINATION_BOUNDARIES",
        )
    for arg, value in (("first", first), ("last", last)):
        if value is not None and not 1 <= value <= 100:
            raise Refused(
                f"Requesting {value} records on the `{name}` connection exceeds the `{arg}` "
                "limit of 100 records.",
                "EXCESSIVE_PAGINATION",
            )
    window = list(items)
    after, before = _uncursor(args.get("after")), _uncursor(args.get("before"))
    if args.get("after") is not None and after is None:
        raise Refused(f"`{args.get('after')}` does not appear to be a valid cursor.", "INVALID")
    if args.get("before") is not None and before is None:
        raise Refused(f"`{args.get('before')}` does not appear to be a valid cursor.", "INVALID")
    cut_front = cut_back = False
    if after is not None:
        kept = [i for i in window if i.seq > after]
        cut_front = len(kept) < len(window)
        window = kept
    if before is not None:
        kept = [i for i in window if i.seq < before]
        cut_back = len(kept) < len(window)
        window = kept
    if first is not None and len(window) > first:
        window, cut_back = window[:first], True
    if last is not None and len(window) > last:
        window, cut_front = window[-last:], True
    return {
        "nodes": window,
        "edges": [{"cursor": _cursor(i.seq), "node": i} for i in window],
        "totalCount": len(items),
        "pageInfo": {
            "hasPreviousPage": cut_front,
            "hasNextPage": cut_back,
            "startCursor": _cursor(window[0].seq) if window else None,
            "endCursor": _cursor(window[-1].seq) if window else None,
        },
    }


_CAMEL = re.compile(r"(?<!^)(?=[A-Z])")


@cache
def _snake(name: str) -> str:
    return _CAMEL.sub("_", name).lower()


class Resolvers:
    """The field and type resolvers for one FakeGitHub's nodes (called under its lock)."""

    def __init__(self, nodes: Nodes) -> None:
        self._nodes = nodes
        self._special: dict[tuple[str, str], Callable[..., Any]] = {
            ("Query", "repository"): self._repository,
            ("Query", "node"): self._node,
            ("Query", "nodes"): self._nodes_by_id,
            ("Query", "viewer"): lambda _s, _i, **_a: nodes.viewer,
            ("Query", "rateLimit"): lambda _s, info, **_a: info.context["rate"],
            ("Query", "id"): lambda _s, _i, **_a: "Q_fake",
            ("Repository", "pullRequest"): self._pull_request,
            ("PullRequest", "comments"): self._comments,
            ("PullRequest", "reviews"): self._reviews,
            ("PullRequest", "statusCheckRollup"): self._rollup,
            ("PullRequestReview", "comments"): self._inline,
            ("StatusCheckRollup", "contexts"): self._contexts,
            ("Mutation", "addReaction"): self._add_reaction,
        }

    def resolve(self, source: Any, info: _Info, **args: Any) -> Any:
        name = info.field_name
        overrides = getattr(source, "overrides", None)
        if overrides and name in overrides:
            return overrides[name]
        special = self._special.get((info.parent_type.name, name))
        if special is not None:
            return special(source, info, **args)
        if name == "viewerDidAuthor":
            author = getattr(source, "author", None)
            return author is not None and author.login.lower() == self._nodes.viewer.login.lower()
        if isinstance(source, Mapping):
            value = source.get(name)
        else:
            value = getattr(source, _snake(name), None)
        if isinstance(value, datetime):
            return iso(value)
        return value

    @staticmethod
    def type_of(value: Any, _info: _Info, _abstract: Any) -> str | None:
        if isinstance(value, Mapping):
            found = value.get("__typename")
            return found if isinstance(found, str) else None
        typename = getattr(value, "typename", None)
        return typename if isinstance(typename, str) else None

    def _repository(self, _s: Any, _i: _Info, **args: Any) -> Repo:
        repo = self._nodes.visible_repo(args["owner"], args["name"])
        if repo is None:
            raise NotFound(
                f"Could not resolve to a Repository with the name '{args['owner']}/{args['name']}'."
            )
        return repo

    def _pull_request(self, repo: Repo, _i: _Info, **args: Any) -> Pr:
        pr = repo.prs.get(args["number"])
        if pr is None:
            raise NotFound(
                f"Could not resolve to a PullRequest with the number of {args['number']}."
            )
        return pr

    def _node(self, _s: Any, _i: _Info, **args: Any) -> Any:
        node = self._nodes.by_id.get(args["id"])
        hidden = False
        if isinstance(node, Item):
            hidden = node.deleted
        elif isinstance(node, Repo):
            hidden = node.hidden
        if node is None or hidden:
            raise NotFound(f"Could not resolve to a node with the global id of '{args['id']}'")
        return node

    def _nodes_by_id(self, _s: Any, info: _Info, **args: Any) -> list[Any]:
        # An id that resolves to nothing is a null in the list with its own NOT_FOUND
        # error (path: the field's alias and the index), as GitHub answers it.
        found: list[Any] = []
        for node_id in args["ids"]:
            try:
                found.append(self._node(_s, info, id=node_id))
            except NotFound as exc:
                found.append(exc)
        return found

    def _comments(self, pr: Pr, _i: _Info, **args: Any) -> dict[str, Any]:
        listed = [c for c in pr.comments if self._nodes.listed(c)]
        return _connection("comments", listed, args)

    def _reviews(self, pr: Pr, _i: _Info, **args: Any) -> dict[str, Any]:
        states = args.get("states")
        author = args.get("author")
        viewer = self._nodes.viewer.login
        listed = [
            r
            for r in pr.reviews
            if self._nodes.listed(r)
            and (states is None or r.state in states)
            # A pending review is visible to its author only.
            and (r.state != "PENDING" or (r.author is not None and r.author.login == viewer))
            and (author is None or (r.author is not None and r.author.login == author))
        ]
        return _connection("reviews", listed, args)

    def _inline(self, review: Review, _i: _Info, **args: Any) -> dict[str, Any]:
        return _connection("comments", [c for c in review.inline if self._nodes.listed(c)], args)

    def _rollup(self, pr: Pr, _i: _Info, **_a: Any) -> dict[str, Any] | None:
        checks = pr.checks.get(pr.head_ref_oid)
        if not checks:
            return None
        failing = {"FAILURE", "TIMED_OUT", "CANCELLED", "ACTION_REQUIRED", "STARTUP_FAILURE"}
        states = set()
        for c in checks:
            if c.typename == "CheckRun":
                if c.status != "COMPLETED":
                    states.add("PENDING")
                elif c.conclusion in failing:
                    states.add("FAILURE")
                else:
                    states.add("SUCCESS")
            else:
                states.add(c.state or "PENDING")
        state = next(
            (s for s in ("ERROR", "FAILURE", "PENDING", "EXPECTED") if s in states), "SUCCESS"
        )
        return {
            "id": f"SCR_{pr.id}_{pr.head_ref_oid[:7]}",
            "state": state,
            "commit": {"id": f"C_{pr.head_ref_oid}", "oid": pr.head_ref_oid},
            "checks": checks,
        }

    def _contexts(self, rollup: Mapping[str, Any], _i: _Info, **args: Any) -> dict[str, Any]:
        return _connection("contexts", rollup["checks"], args)

    def _add_reaction(self, _s: Any, info: _Info, **args: Any) -> dict[str, Any]:
        given = args["input"]
        node = self._nodes.by_id.get(given["subjectId"])
        if not isinstance(node, Item) or node.deleted:
            raise NotFound(
                f"Could not resolve to a node with the global id of '{given['subjectId']}'"
            )
        content = given["content"]
        viewer = self._nodes.viewer
        if (content, viewer.login) not in node.reactions:
            node.reactions.append((content, viewer.login))
        seq = self._nodes.next()
        return {
            "clientMutationId": given.get("clientMutationId"),
            "reaction": {
                "__typename": "Reaction",
                "id": f"REA_fake{seq}",
                "content": content,
                "createdAt": iso(self._nodes.now()),
                "user": viewer,
            },
            "subject": node,
        }
