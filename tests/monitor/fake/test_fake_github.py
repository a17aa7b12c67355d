"""FakeGitHub's behaviour: GraphQL answers, REST routes, faults, records, transports."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import httpx
import pytest

from review_monitor import PrRef
from review_monitor._queries import badge_query, detail_query, gap_query
from review_monitor.testing import FakeGitHub, Fault, FixedClock

Gql = Callable[..., Any]

LISTING = """
query($o: String!, $n: String!, $number: Int!) {
  repository(owner: $o, name: $n) {
    pullRequest(number: $number) {
      state merged
      comments(last: 10) { nodes { id body isMinimized author { __typename login } } }
    }
  }
}"""


def _listing(gql: Gql, pr: PrRef) -> Any:
    answer = gql(LISTING, {"o": pr.owner, "n": pr.name, "number": pr.number})
    return answer["data"]["repository"]["pullRequest"]


def test_a_query_outside_githubs_schema_is_refused(gql: Gql) -> None:
    answer = gql('query { repository(owner: "o", name: "n") { noSuchField } }')
    assert ("noSuchField" in answer["errors"][0]["message"], None) == (True, answer.get("data"))


def test_a_posted_comment_is_listed_with_its_author(fake: FakeGitHub, gql: Gql) -> None:
    pr = fake.add_pr("octo/repo", 1)
    cid = fake.post_comment(pr, "alice", "hello")
    comments = _listing(gql, pr)["comments"]["nodes"]
    assert [{"id": cid, "body": "hello", "isMinimized": False,
             "author": {"__typename": "User", "login": "alice"}}] == comments  # fmt: skip


def test_an_edit_changes_the_body_and_keeps_the_id(fake: FakeGitHub, gql: Gql) -> None:
    pr = fake.add_pr("octo/repo", 1)
    cid = fake.post_comment(pr, "alice", "hello")
    fake.edit(cid, "edited")
    assert [(cid, "edited")] == [
        (c["id"], c["body"]) for c in _listing(gql, pr)["comments"]["nodes"]
    ]


def test_a_deleted_comment_leaves_the_listing(fake: FakeGitHub, gql: Gql) -> None:
    pr = fake.add_pr("octo/repo", 1)
    gone = fake.post_comment(pr, "alice", "a")
    kept = fake.post_comment(pr, "alice", "b")
    fake.delete(gone)
    assert [kept] == [c["id"] for c in _listing(gql, pr)["comments"]["nodes"]]


def test_a_minimized_comment_stays_listed_as_minimized(fake: FakeGitHub, gql: Gql) -> None:
    pr = fake.add_pr("octo/repo", 1)
    cid = fake.post_comment(pr, "alice", "a")
    fake.minimize(cid)
    assert [True] == [c["isMinimized"] for c in _listing(gql, pr)["comments"]["nodes"]]


def test_a_bots_login_has_no_bot_suffix_in_graphql(fake: FakeGitHub, gql: Gql) -> None:
    pr = fake.add_pr("octo/repo", 1)
    fake.post_comment(pr, "renovate[bot]", "bump")
    authors = [c["author"] for c in _listing(gql, pr)["comments"]["nodes"]]
    assert [{"__typename": "Bot", "login": "renovate"}] == authors


@pytest.mark.parametrize(
    ("act", "state", "merged"),
    [("merge", "MERGED", True), ("close", "CLOSED", False), ("reopen", "OPEN", False)],
)
def test_merge_close_and_reopen_change_the_state(
    fake: FakeGitHub, gql: Gql, act: str, state: str, merged: bool
) -> None:
    pr = fake.add_pr("octo/repo", 1)
    if act == "reopen":
        fake.close(pr)
    getattr(fake, act)(pr)
    answer = _listing(gql, pr)
    assert (state, merged) == (answer["state"], answer["merged"])


def test_the_time_of_a_post_comes_from_the_clock(
    fake: FakeGitHub, clock: FixedClock, gql: Gql
) -> None:
    pr = fake.add_pr("octo/repo", 1)
    clock.advance(timedelta(minutes=5))
    fake.post_comment(pr, "alice", "a")
    doc, variables = badge_query([pr])
    node = gql(doc, variables)["data"]["r0"]["p1"]["comments"]["nodes"][0]
    assert clock.now().strftime("%Y-%m-%dT%H:%M:%SZ") == node["createdAt"]


def test_an_unknown_pr_is_not_found_beside_the_others(fake: FakeGitHub, gql: Gql) -> None:
    pr = fake.add_pr("octo/repo", 1)
    doc, variables = badge_query([pr, PrRef("octo", "repo", 2)])
    answer = gql(doc, variables)
    assert (None, ["NOT_FOUND"], ["r0", "p2"], "OPEN") == (
        answer["data"]["r0"]["p2"],
        [e["type"] for e in answer["errors"]],
        answer["errors"][0]["path"],
        answer["data"]["r0"]["p1"]["state"],
    )


def test_a_malformed_time_is_answered_as_injected(fake: FakeGitHub, gql: Gql) -> None:
    pr = fake.add_pr("octo/repo", 1)
    cid = fake.post_comment(pr, "alice", "a")
    fake.corrupt(cid, "createdAt", "yesterday")
    doc, variables = badge_query([pr])
    node = gql(doc, variables)["data"]["r0"]["p1"]["comments"]["nodes"][0]
    assert "yesterday" == node["createdAt"]


def test_a_review_lists_inline_comments_through_node(fake: FakeGitHub, gql: Gql) -> None:
    pr = fake.add_pr("octo/repo", 1)
    rid = fake.post_review(pr, "bob", "CHANGES_REQUESTED", "fix", inline=[("a.py", 7, "here")])
    doc, variables = detail_query([rid])
    node = gql(doc, variables)["data"]["d0"]
    inline = node["comments"]["nodes"][0]
    assert ("PullRequestReview", "fix", "a.py", 7, 7, "here") == (
        node["__typename"],
        node["body"],
        inline["path"],
        inline["line"],
        inline["originalLine"],
        inline["body"],
    )


@pytest.mark.parametrize(
    ("role", "permission"),
    [("admin", "admin"), ("maintain", "write"), ("write", "write"), ("triage", "read"),
     ("read", "read"), ("none", "none")],
)  # fmt: skip
def test_the_permission_route_answers_as_github_does(
    fake: FakeGitHub, client: httpx.Client, role: str, permission: str
) -> None:
    fake.set_permission("octo/repo", "alice", role)
    answer = client.get("/repos/octo/repo/collaborators/alice/permission")
    body = answer.json()
    assert (200, permission, role, "alice") == (
        answer.status_code,
        body["permission"],
        body["role_name"],
        body["user"]["login"],
    )


def test_an_unlisted_login_is_404(fake: FakeGitHub, client: httpx.Client) -> None:
    fake.add_repo("octo/repo")
    assert 404 == client.get("/repos/octo/repo/collaborators/mallory/permission").status_code


def test_without_push_access_the_permission_route_is_403(
    fake: FakeGitHub, client: httpx.Client
) -> None:
    fake.set_permission("octo/repo", "alice", "write")
    fake.set_push_access("octo/repo", False)
    answer = client.get("/repos/octo/repo/collaborators/alice/permission")
    assert (403, "Must have push access to view collaborator permission.") == (
        answer.status_code,
        answer.json()["message"],
    )


def test_the_user_route_names_the_viewer(client: httpx.Client) -> None:
    assert "octo-worker" == client.get("/user").json()["login"]


def test_an_enterprise_path_prefix_is_accepted(client: httpx.Client) -> None:
    assert "octo-worker" == client.get("/api/v3/user").json()["login"]


def test_a_matching_etag_answers_304_without_spending(
    fake: FakeGitHub, client: httpx.Client
) -> None:
    fake.set_permission("octo/repo", "alice", "write")
    path = "/repos/octo/repo/collaborators/alice/permission"
    first = client.get(path)
    again = client.get(path, headers={"If-None-Match": first.headers["etag"]})
    assert (304, first.headers["x-ratelimit-remaining"]) == (
        again.status_code,
        again.headers["x-ratelimit-remaining"],
    )


def test_a_changed_answer_gets_a_new_etag(fake: FakeGitHub, client: httpx.Client) -> None:
    fake.set_permission("octo/repo", "alice", "write")
    path = "/repos/octo/repo/collaborators/alice/permission"
    first = client.get(path)
    fake.set_permission("octo/repo", "alice", "read")
    again = client.get(path, headers={"If-None-Match": first.headers["etag"]})
    assert (200, "read") == (again.status_code, again.json()["permission"])


def test_rest_answers_carry_rate_limit_headers(client: httpx.Client) -> None:
    headers = client.get("/user").headers
    assert ("5000", "4999", "core") == (
        headers["x-ratelimit-limit"],
        headers["x-ratelimit-remaining"],
        headers["x-ratelimit-resource"],
    )


def test_an_injected_status_answers_once(fake: FakeGitHub, client: httpx.Client) -> None:
    fake.inject(Fault.server_error(502))
    assert [502, 200] == [client.get("/user").status_code for _ in range(2)]


def test_a_secondary_limit_says_when_to_retry(fake: FakeGitHub, client: httpx.Client) -> None:
    fake.inject(Fault.secondary_limit(retry_after=42, status=429))
    answer = client.get("/user")
    assert (429, "42", True) == (
        answer.status_code,
        answer.headers["retry-after"],
        "secondary rate limit" in answer.json()["message"],
    )


def test_an_injected_timeout_raises_httpx_timeout(fake: FakeGitHub, client: httpx.Client) -> None:
    fake.inject(Fault.time_out())
    with pytest.raises(httpx.ReadTimeout):
        client.get("/user")


def test_a_fault_for_one_kind_spares_the_others(
    fake: FakeGitHub, client: httpx.Client, gql: Gql
) -> None:
    pr = fake.add_pr("octo/repo", 1)
    fake.inject(Fault.server_error(503, kind="badge"))
    user = client.get("/user").status_code
    doc, variables = badge_query([pr])
    status = client.post("/graphql", json={"query": doc, "variables": variables}).status_code
    assert (200, 503) == (user, status)


def test_graphql_errors_with_partial_data(fake: FakeGitHub, gql: Gql) -> None:
    prs = [fake.add_pr("octo/repo", 1), fake.add_pr("octo/repo", 2)]
    error = {"type": "SERVICE_UNAVAILABLE", "path": ["r0", "p2"], "message": "timedout"}
    fake.inject(Fault.graphql_errors(error, kind="badge"))
    doc, variables = badge_query(prs)
    answer = gql(doc, variables)
    assert ("OPEN", None, [error]) == (
        answer["data"]["r0"]["p1"]["state"],
        answer["data"]["r0"]["p2"],
        answer["errors"],
    )


def test_every_request_is_recorded_by_kind(
    fake: FakeGitHub, client: httpx.Client, gql: Gql
) -> None:
    pr = fake.add_pr("octo/repo", 1)
    cid = fake.post_comment(pr, "alice", "a")
    fake.set_permission("octo/repo", "alice", "write")
    gql(*badge_query([pr]))
    gql(*detail_query([cid]))
    client.get("/repos/octo/repo/collaborators/alice/permission")
    client.get("/user")
    assert ["badge", "detail", "permission", "other"] == [r.kind for r in fake.requests]


def test_a_wrong_token_is_401(clock: FixedClock) -> None:
    fake = FakeGitHub(clock=clock, token="right")
    with httpx.Client(transport=fake.transport(), base_url="https://api.github.com") as c:
        statuses = [
            c.get("/user", headers={"Authorization": f"bearer {t}"}).status_code
            for t in ("wrong", "right")
        ]
    assert [401, 200] == statuses


def test_served_over_loopback_in_a_thread(fake: FakeGitHub) -> None:
    pr = fake.add_pr("octo/repo", 1)
    with fake.serve_in_thread() as base_url, httpx.Client(base_url=base_url) as c:
        doc, variables = badge_query([pr])
        answer = c.post("/graphql", json={"query": doc, "variables": variables})
    assert (True, "OPEN") == (
        base_url.startswith("http://127.0.0.1:"),
        answer.json()["data"]["r0"]["p1"]["state"],
    )


@pytest.mark.anyio
async def test_served_over_loopback_for_async_tests(fake: FakeGitHub) -> None:
    async with fake.serve() as base_url, httpx.AsyncClient(base_url=base_url) as c:
        login = (await c.get("/user")).json()["login"]
    assert "octo-worker" == login


def test_an_int_literal_beyond_32_bits_is_refused_as_github_refuses_it(gql: Gql) -> None:
    document, variables = badge_query(
        [PrRef("octo", "repo", 1), PrRef("octo", "repo", 3_000_000_000)]
    )
    answer = gql(document, variables)
    assert {
        "errors": [
            {
                "path": ["query Badge", "r0", "p3000000000", "number"],
                "extensions": {
                    "code": "argumentLiteralsIncompatible",
                    "typeName": "Field",
                    "argumentName": "number",
                },
                "locations": [{"line": 5, "column": 30}],
                "message": "Argument 'number' on Field 'pullRequest' has an invalid value "
                "(3000000000). Expected type 'Int!'.",
            }
        ]
    } == answer


def test_an_int_variable_beyond_32_bits_is_refused_as_github_refuses_it(gql: Gql) -> None:
    document, variables = gap_query(PrRef("octo", "repo", 3_000_000_000), "comments", "Y3Vy")
    answer = gql(document, variables)
    assert {
        "errors": [
            {
                "extensions": {
                    "value": 3_000_000_000,
                    "problems": [
                        {"path": [], "explanation": "Could not coerce value 3000000000 to Int"}
                    ],
                },
                "locations": [{"line": 1, "column": 45}],
                "message": "Variable $number of type Int! was provided invalid value",
            }
        ]
    } == answer


def test_each_request_is_recorded_with_the_label_of_the_transport_it_came_through(
    fake: FakeGitHub,
) -> None:
    for label in ("h1", None, "h2"):
        with httpx.Client(transport=fake.transport(label), base_url="https://api.github.com") as c:
            c.get("/user")
    assert ["h1", None, "h2"] == [r.via for r in fake.requests]
