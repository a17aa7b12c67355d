"""Every GraphQL document the project sends, built in one place.

Each builder returns ``(document, variables)``.  Values a user or GitHub controls (owners,
names, node ids, cursors) always travel as variables; only numbers the code checked are
written into a document.  Each document carries an operation name, which ``FakeGitHub``
uses to count requests by kind (``OPERATION_KINDS``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final, Literal

from ._model import PrRef

__all__ = [
    "BADGE_REVIEW_STATES",
    "MAX_BADGE_PRS",
    "MAX_CHECK_PRS",
    "MAX_DETAIL_IDS",
    "MAX_REACTIONS",
    "MAX_SWEEP_IDS",
    "MAX_SWEEP_PRS",
    "OPERATION_KINDS",
    "REACTION_CONTENTS",
    "BadgeLayout",
    "add_reactions_query",
    "all_documents",
    "badge_layout",
    "badge_query",
    "detail_query",
    "failing_checks_batch_query",
    "failing_checks_query",
    "gap_query",
    "inline_page_query",
    "sweep_query",
]

Variables = dict[str, Any]

MAX_BADGE_PRS: Final = 100
MAX_DETAIL_IDS: Final = 100
# Each PR of a batched failing-checks query asks one connection of up to 50 contexts with
# their output (each summary and text up to 65,535 characters on GitHub): one point for
# the whole batch, and an answer kept to a size GitHub serves in time.
MAX_CHECK_PRS: Final = 25
MAX_REACTIONS: Final = 30
# ``nodes(ids:)`` refuses more than 100 ids (the whole request, no data at all); a sweep
# document asks at most ten such fields, so GitHub's warning about queries for thousands
# of objects does not apply.
MAX_SWEEP_IDS: Final = 100
MAX_SWEEP_PRS: Final = 1000
GAP_PAGE: Final = 100

# A pending review is visible only to its author and belongs to nobody yet.
BADGE_REVIEW_STATES: Final = ("APPROVED", "CHANGES_REQUESTED", "COMMENTED", "DISMISSED")

REACTION_CONTENTS: Final = frozenset(
    {"CONFUSED", "EYES", "HEART", "HOORAY", "LAUGH", "ROCKET", "THUMBS_DOWN", "THUMBS_UP"}
)

OPERATION_KINDS: Final[dict[str, str]] = {
    "Badge": "badge",
    "Sweep": "sweep",
    "Detail": "detail",
    "InlinePage": "detail",
    "GapComments": "gap",
    "GapReviews": "gap",
    "FailingChecks": "checks",
    "FailingChecksBatch": "checks",
    "AddReactions": "reaction",
}

_RATE_LIMIT = "rateLimit { cost remaining resetAt limit }"

_AUTHOR = "author { __typename login }"

_COMMENT_FRAGMENT = f"""\
fragment BadgeComment on IssueComment {{
  id fullDatabaseId createdAt {_AUTHOR} viewerDidAuthor isMinimized
}}"""
_REVIEW_FRAGMENT = f"""\
fragment BadgeReview on PullRequestReview {{
  id fullDatabaseId submittedAt state {_AUTHOR} viewerDidAuthor isMinimized
}}"""

_BADGE_PR = f"""\
fragment BadgePr on PullRequest {{
  id number title url state merged isDraft headRefOid reviewDecision updatedAt
  statusCheckRollup {{ state }}
  comments(last: $c) {{
    pageInfo {{ hasPreviousPage startCursor }}
    nodes {{ ...BadgeComment }}
  }}
  reviews(last: $r, states: [{", ".join(BADGE_REVIEW_STATES)}]) {{
    pageInfo {{ hasPreviousPage startCursor }}
    nodes {{ ...BadgeReview }}
  }}
}}
{_COMMENT_FRAGMENT}
{_REVIEW_FRAGMENT}"""

_INLINE = """\
fragment InlineComment on PullRequestReviewComment {
  id fullDatabaseId path line originalLine startLine originalStartLine outdated body url
}"""


class BadgeLayout:
    """Where each PR of a badge query sits: ``aliases[pr] == (repo_alias, pr_alias)``."""

    __slots__ = ("aliases", "repos")

    def __init__(self, prs: Sequence[PrRef]) -> None:
        repos: dict[tuple[str, str], str] = {}
        folded: dict[tuple[str, str], tuple[str, str]] = {}
        aliases: dict[PrRef, tuple[str, str]] = {}
        for pr in prs:
            number = int(pr.number)
            if number < 1:
                raise ValueError(f"not a pull request number: {number}")
            # One block per repository whatever the letter case (GitHub's names are
            # case-insensitive), asked with its first spelling.
            same = folded.setdefault(pr.key[1:3], (pr.owner, pr.name))
            repo_alias = repos.setdefault(same, f"r{len(repos)}")
            aliases[pr] = (repo_alias, f"p{number}")
        self.repos = repos
        self.aliases = aliases


def badge_layout(prs: Sequence[PrRef]) -> BadgeLayout:
    """The alias layout ``badge_query`` uses for ``prs`` (grouped by repository)."""
    return BadgeLayout(prs)


def badge_query(
    prs: Sequence[PrRef], *, comments_window: int = 10, reviews_window: int = 20
) -> tuple[str, Variables]:
    """The badge of up to 100 PRs in one query: no bodies, exactly two connections per PR."""
    if not prs:
        raise ValueError("a badge query needs at least one pull request")
    if len(prs) > MAX_BADGE_PRS:
        raise ValueError(f"a badge query reads at most {MAX_BADGE_PRS} PRs, not {len(prs)}")
    _check_window("comments_window", comments_window)
    _check_window("reviews_window", reviews_window)
    layout = BadgeLayout(prs)
    variables: Variables = {"c": comments_window, "r": reviews_window}
    declared = ["$c: Int!", "$r: Int!"]
    blocks: list[str] = []
    by_repo: dict[str, list[str]] = {}
    for pr, (repo_alias, pr_alias) in layout.aliases.items():
        del pr
        by_repo.setdefault(repo_alias, []).append(pr_alias)
    for (owner, name), repo_alias in layout.repos.items():
        i = repo_alias[1:]
        declared += [f"$o{i}: String!", f"$n{i}: String!"]
        variables[f"o{i}"] = owner
        variables[f"n{i}"] = name
        inner = "\n".join(
            f"    {a}: pullRequest(number: {a[1:]}) {{ ...BadgePr }}" for a in by_repo[repo_alias]
        )
        # nameWithOwner: GitHub's spelling of the repository (names are case-insensitive).
        blocks.append(
            f"  {repo_alias}: repository(owner: $o{i}, name: $n{i}) {{\n"
            f"    nameWithOwner\n{inner}\n  }}"
        )
    body = "\n".join(blocks)
    doc = f"query Badge({', '.join(declared)}) {{\n{body}\n  {_RATE_LIMIT}\n}}\n{_BADGE_PR}"
    return doc, variables


def sweep_query(node_ids: Sequence[str]) -> tuple[str, Variables]:
    """The sweep of up to 1,000 PRs by node id: only fields without connections, so GitHub's
    formula charges it one point however many PRs it names.  The ids travel as one list
    variable per ``nodes`` field of at most 100 (``s0``, ``s1``...)."""
    if not node_ids:
        raise ValueError("a sweep query needs at least one pull request node id")
    if len(node_ids) > MAX_SWEEP_PRS:
        raise ValueError(f"a sweep query reads at most {MAX_SWEEP_PRS} PRs, not {len(node_ids)}")
    groups = [node_ids[i : i + MAX_SWEEP_IDS] for i in range(0, len(node_ids), MAX_SWEEP_IDS)]
    declared = ", ".join(f"$s{k}: [ID!]!" for k in range(len(groups)))
    variables: Variables = {f"s{k}": list(group) for k, group in enumerate(groups)}
    fields = "\n".join(f"  s{k}: nodes(ids: $s{k}) {{ ...SweepPr }}" for k in range(len(groups)))
    doc = f"""\
query Sweep({declared}) {{
{fields}
  {_RATE_LIMIT}
}}
fragment SweepPr on Node {{
  __typename
  id
  ... on PullRequest {{
    updatedAt state merged isDraft headRefOid reviewDecision
    statusCheckRollup {{ state }}
  }}
}}"""
    return doc, variables


def detail_query(ids: Sequence[str], *, inline_window: int = 20) -> tuple[str, Variables]:
    """Bodies, urls, edit times and whether hidden (minimized), of comments and reviews,
    one ``node`` alias per id."""
    if not ids:
        raise ValueError("a detail query needs at least one id")
    if len(ids) > MAX_DETAIL_IDS:
        raise ValueError(f"a detail query reads at most {MAX_DETAIL_IDS} ids, not {len(ids)}")
    _check_window("inline_window", inline_window)
    declared = ["$inline: Int!"] + [f"$i{k}: ID!" for k in range(len(ids))]
    variables: Variables = {"inline": inline_window}
    variables.update({f"i{k}": item_id for k, item_id in enumerate(ids)})
    aliases = "\n".join(f"  d{k}: node(id: $i{k}) {{ ...DetailItem }}" for k in range(len(ids)))
    doc = f"""\
query Detail({", ".join(declared)}) {{
{aliases}
  {_RATE_LIMIT}
}}
fragment DetailItem on Node {{
  __typename
  id
  ... on IssueComment {{ body url lastEditedAt isMinimized }}
  ... on PullRequestReview {{
    body url lastEditedAt isMinimized
    comments(first: $inline) {{
      pageInfo {{ hasNextPage endCursor }}
      nodes {{ ...InlineComment }}
    }}
  }}
}}
{_INLINE}"""
    return doc, variables


def inline_page_query(
    review_id: str, after: str, *, inline_window: int = 20
) -> tuple[str, Variables]:
    """The next page of a review's inline comments."""
    _check_window("inline_window", inline_window)
    doc = f"""\
query InlinePage($review: ID!, $cursor: String!, $inline: Int!) {{
  node(id: $review) {{
    __typename
    ... on PullRequestReview {{
      comments(first: $inline, after: $cursor) {{
        pageInfo {{ hasNextPage endCursor }}
        nodes {{ ...InlineComment }}
      }}
    }}
  }}
  {_RATE_LIMIT}
}}
{_INLINE}"""
    return doc, {"review": review_id, "cursor": after, "inline": inline_window}


def gap_query(
    pr: PrRef, connection: Literal["comments", "reviews"], before: str
) -> tuple[str, Variables]:
    """One page of 100 read backwards from ``before`` on one connection of one PR."""
    if connection == "comments":
        name, listing, fragment = "GapComments", f"comments(last: {GAP_PAGE}", _COMMENT_FRAGMENT
    elif connection == "reviews":
        states = ", ".join(BADGE_REVIEW_STATES)
        name, listing, fragment = (
            "GapReviews",
            f"reviews(last: {GAP_PAGE}, states: [{states}]",
            _REVIEW_FRAGMENT,
        )
    else:
        raise ValueError(f"no such connection: {connection!r}")
    doc = f"""\
query {name}($o: String!, $n: String!, $number: Int!, $before: String!) {{
  repository(owner: $o, name: $n) {{
    pullRequest(number: $number) {{
      {listing}, before: $before) {{
        pageInfo {{ hasPreviousPage startCursor }}
        nodes {{ ...{fragment.split()[1]} }}
      }}
    }}
  }}
  {_RATE_LIMIT}
}}
{fragment}"""
    return doc, {"o": pr.owner, "n": pr.name, "number": int(pr.number), "before": before}


_CHECK_CONTEXTS = """\
contexts(first: $first{after}) {{
          pageInfo {{ hasNextPage endCursor }}
          nodes {{
            __typename
            ... on CheckRun {{
              id name status conclusion title summary text detailsUrl url
            }}
            ... on StatusContext {{ id context state description targetUrl }}
          }}
        }}"""


def failing_checks_query(
    pr: PrRef, *, first: int = 50, after: str | None = None
) -> tuple[str, Variables]:
    """The check runs and status contexts of a PR's head commit, with their output."""
    _check_window("first", first)
    doc = """\
query FailingChecks($o: String!, $n: String!, $number: Int!, $first: Int!, $after: String) {
  repository(owner: $o, name: $n) {
    pullRequest(number: $number) {
      headRefOid
      statusCheckRollup {
        state
        commit { oid }
        CONTEXTS
      }
    }
  }
  rateLimit { cost remaining resetAt limit }
}""".replace("CONTEXTS", _CHECK_CONTEXTS.format(after=", after: $after"))
    variables: Variables = {
        "o": pr.owner,
        "n": pr.name,
        "number": int(pr.number),
        "first": first,
        "after": after,
    }
    return doc, variables


def failing_checks_batch_query(prs: Sequence[PrRef], *, first: int = 50) -> tuple[str, Variables]:
    """The first page of check runs and status contexts of up to ``MAX_CHECK_PRS`` PRs'
    head commits, with their output, one ``repository`` alias per PR (``c0``, ``c1``...,
    in the order given); a PR whose contexts have a next page goes on with
    ``failing_checks_query``."""
    if not prs:
        raise ValueError("a batched failing-checks query needs at least one pull request")
    if len(prs) > MAX_CHECK_PRS:
        raise ValueError(
            f"a batched failing-checks query reads at most {MAX_CHECK_PRS} PRs, not {len(prs)}"
        )
    _check_window("first", first)
    declared = ["$first: Int!"]
    variables: Variables = {"first": first}
    blocks: list[str] = []
    for k, pr in enumerate(prs):
        declared += [f"$o{k}: String!", f"$n{k}: String!", f"$p{k}: Int!"]
        variables.update({f"o{k}": pr.owner, f"n{k}": pr.name, f"p{k}": int(pr.number)})
        blocks.append(
            f"  c{k}: repository(owner: $o{k}, name: $n{k}) {{\n"
            f"    pullRequest(number: $p{k}) {{ ...ChecksPr }}\n  }}"
        )
    body = "\n".join(blocks)
    contexts = _CHECK_CONTEXTS.format(after="")
    doc = f"""\
query FailingChecksBatch({", ".join(declared)}) {{
{body}
  {_RATE_LIMIT}
}}
fragment ChecksPr on PullRequest {{
  headRefOid
  statusCheckRollup {{
    state
    commit {{ oid }}
    {contexts}
  }}
}}"""
    return doc, variables


def add_reactions_query(subject_ids: Sequence[str], content: str) -> tuple[str, Variables]:
    """One ``addReaction`` per subject, aliased ``a0``, ``a1``... in one mutation."""
    if not subject_ids:
        raise ValueError("add_reactions_query needs at least one subject")
    if len(subject_ids) > MAX_REACTIONS:
        raise ValueError(f"at most {MAX_REACTIONS} reactions per request, not {len(subject_ids)}")
    if content not in REACTION_CONTENTS:
        raise ValueError(
            f"not a reaction: {content!r}; use one of {', '.join(sorted(REACTION_CONTENTS))}"
        )
    declared = ["$content: ReactionContent!"] + [f"$s{k}: ID!" for k in range(len(subject_ids))]
    variables: Variables = {"content": content}
    variables.update({f"s{k}": s for k, s in enumerate(subject_ids)})
    aliases = "\n".join(
        f"  a{k}: addReaction(input: {{subjectId: $s{k}, content: $content}}) "
        "{ reaction { content } subject { id } }"
        for k in range(len(subject_ids))
    )
    return f"mutation AddReactions({', '.join(declared)}) {{\n{aliases}\n}}", variables


def all_documents() -> list[tuple[str, str]]:
    """``(name, document)`` for every document the project sends, each built for a
    representative batch, in a stable order."""
    prs = [
        PrRef("octo-org", "octo-repo", 12),
        PrRef("octo-org", "octo-repo", 15),
        PrRef("octo-org", "other-repo", 3),
    ]
    ids = ["IC_kwDOAAAAAc5Aaaaa", "PRR_kwDOAAAAAc5Bbbbb", "IC_kwDOAAAAAc5Ccccc"]
    return [
        ("badge", badge_query(prs)[0]),
        ("sweep", sweep_query(["PR_kwDOAAAAAc5Ddddd", "PR_kwDOAAAAAc5Eeeee"])[0]),
        ("detail", detail_query(ids)[0]),
        ("inline-page", inline_page_query(ids[1], "Y3Vyc29yOnYyOpK5")[0]),
        ("gap-comments", gap_query(prs[0], "comments", "Y3Vyc29yOnYyOpK5")[0]),
        ("gap-reviews", gap_query(prs[0], "reviews", "Y3Vyc29yOnYyOpK5")[0]),
        ("failing-checks", failing_checks_query(prs[0])[0]),
        ("failing-checks-batch", failing_checks_batch_query(prs)[0]),
        ("add-reactions", add_reactions_query(ids[:2], "EYES")[0]),
    ]


def _check_window(name: str, value: int) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= 100:
        raise ValueError(f"{name} must be an integer from 1 to 100, not {value!r}")
