"""FakeGitHub's posting routes in GitHub's REST shapes: comments, reviews, replies, edits,
their listings, prices, refusals and limits."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import httpx
import pytest

from review_monitor import PrRef
from review_monitor.testing import FakeGitHub, Fault, FixedClock

Gql = Callable[..., Any]

API = "/repos/octo/repo"

THREADS = """
query($o: String!, $n: String!, $number: Int!) {
  repository(owner: $o, name: $n) {
    pullRequest(number: $number) {
      updatedAt
      comments(last: 20) { nodes { id body viewerDidAuthor } }
      reviews(last: 20) {
        nodes { id databaseId state viewerDidAuthor comments(first: 10) { nodes { id body } } }
      }
    }
  }
}"""


def _threads(gql: Gql, pr: PrRef) -> Any:
    answer = gql(THREADS, {"o": pr.owner, "n": pr.name, "number": pr.number})
    return answer["data"]["repository"]["pullRequest"]


@pytest.fixture
def pr(fake: FakeGitHub) -> PrRef:
    made = fake.add_pr("octo/repo", 1)
    fake.set_diff(made, {"a.py": range(1, 11)})
    return made


def _review(fake: FakeGitHub, pr: PrRef, **overrides: Any) -> dict[str, Any]:
    payload: dict[str, Any] = {
        "commit_id": fake.head(pr),
        "body": "overall",
        "event": "COMMENT",
        "comments": [{"path": "a.py", "line": 3, "side": "RIGHT", "body": "here"}],
    }
    payload.update(overrides)
    return payload


# -- issue comments ---------------------------------------------------------------------------


def test_a_posted_comment_answers_githubs_shape(
    fake: FakeGitHub, client: httpx.Client, pr: PrRef
) -> None:
    answer = client.post(f"{API}/issues/1/comments", json={"body": "hello"})
    made = answer.json()
    assert (201, "octo-worker", "hello", "2030-01-02T03:04:05Z", True) == (
        answer.status_code,
        made["user"]["login"],
        made["body"],
        made["created_at"],
        made["html_url"].endswith(f"/pull/1#issuecomment-{made['id']}"),
    )


def test_a_post_costs_one_core_request(fake: FakeGitHub, client: httpx.Client, pr: PrRef) -> None:
    client.post(f"{API}/issues/1/comments", json={"body": "hello"})
    last = fake.requests[-1]
    assert ("post", 201, 1, 1, 4999) == (
        last.kind,
        last.status,
        last.cost,
        fake.rest_used,
        fake.rest_remaining,
    )


def test_a_posted_comment_is_the_viewers_in_graphql_and_moves_updated_at(
    fake: FakeGitHub, client: httpx.Client, gql: Gql, clock: FixedClock, pr: PrRef
) -> None:
    clock.advance(timedelta(minutes=1))
    made = client.post(f"{API}/issues/1/comments", json={"body": "hello"}).json()
    listing = _threads(gql, pr)
    expected = [{"id": made["node_id"], "body": "hello", "viewerDidAuthor": True}]
    assert (expected, made["created_at"]) == (listing["comments"]["nodes"], listing["updatedAt"])


def test_a_patch_edits_the_comment_and_moves_updated_at(
    fake: FakeGitHub, client: httpx.Client, gql: Gql, clock: FixedClock, pr: PrRef
) -> None:
    made = client.post(f"{API}/issues/1/comments", json={"body": "v1"}).json()
    clock.advance(timedelta(minutes=2))
    answer = client.patch(f"{API}/issues/comments/{made['id']}", json={"body": "v2"})
    listing = _threads(gql, pr)
    assert (200, "v2", "2030-01-02T03:06:05Z", "2030-01-02T03:06:05Z") == (
        answer.status_code,
        listing["comments"]["nodes"][0]["body"],
        answer.json()["updated_at"],
        listing["updatedAt"],
    )


def test_a_patch_of_a_deleted_comment_is_not_found(
    fake: FakeGitHub, client: httpx.Client, pr: PrRef
) -> None:
    made = client.post(f"{API}/issues/1/comments", json={"body": "v1"}).json()
    fake.delete(made["node_id"])
    assert (
        404 == client.patch(f"{API}/issues/comments/{made['id']}", json={"body": "x"}).status_code
    )


def test_an_edit_moves_the_prs_updated_at(
    fake: FakeGitHub, gql: Gql, clock: FixedClock, pr: PrRef
) -> None:
    cid = fake.post_comment(pr, "alice", "hello")
    clock.advance(timedelta(minutes=3))
    fake.edit(cid, "edited")
    assert "2030-01-02T03:07:05Z" == _threads(gql, pr)["updatedAt"]


def test_a_body_over_65536_characters_is_refused(client: httpx.Client, pr: PrRef) -> None:
    answer = client.post(f"{API}/issues/1/comments", json={"body": "x" * 65_537})
    assert (422, "Body is too long (maximum is 65536 characters)") == (
        answer.status_code,
        answer.json()["errors"][0]["message"],
    )


def test_a_locked_conversation_refuses_a_token_without_write_access(
    fake: FakeGitHub, client: httpx.Client, pr: PrRef
) -> None:
    fake.lock(pr)
    fake.set_push_access("octo/repo", False)
    answer = client.post(f"{API}/issues/1/comments", json={"body": "hello"})
    assert (403, "Unable to create comment because issue is locked.") == (
        answer.status_code,
        answer.json()["message"],
    )


def test_a_locked_conversation_takes_a_comment_from_a_writer(
    fake: FakeGitHub, client: httpx.Client, pr: PrRef
) -> None:
    fake.lock(pr)
    assert 201 == client.post(f"{API}/issues/1/comments", json={"body": "hi"}).status_code


def test_posting_on_an_unknown_pr_is_not_found(client: httpx.Client, pr: PrRef) -> None:
    assert 404 == client.post(f"{API}/issues/9/comments", json={"body": "hi"}).status_code


# -- reviews ----------------------------------------------------------------------------------


def test_a_comment_review_is_commented_with_its_line_comment_in_graphql(
    fake: FakeGitHub, client: httpx.Client, gql: Gql, pr: PrRef
) -> None:
    answer = client.post(f"{API}/pulls/1/reviews", json=_review(fake, pr))
    made = answer.json()
    review = _threads(gql, pr)["reviews"]["nodes"][0]
    assert (200, "COMMENTED", made["node_id"], made["id"], True, ["here"]) == (
        answer.status_code,
        made["state"],
        review["id"],
        review["databaseId"],
        review["viewerDidAuthor"],
        [c["body"] for c in review["comments"]["nodes"]],
    )


def test_a_review_of_a_commit_that_is_not_the_head_is_refused(
    fake: FakeGitHub, client: httpx.Client, pr: PrRef
) -> None:
    old = fake.head(pr)
    fake.push(pr)
    answer = client.post(f"{API}/pulls/1/reviews", json=_review(fake, pr, commit_id=old))
    assert (422, ["The commitOID is not part of the pull request"]) == (
        answer.status_code,
        answer.json()["errors"],
    )


@pytest.mark.parametrize(
    "comment",
    [
        {"path": "a.py", "line": 11, "body": "x"},
        {"path": "b.py", "line": 3, "body": "x"},
        {"path": "a.py", "line": 3, "side": "LEFT", "body": "x"},
        {"path": "a.py", "line": 3, "start_line": 0, "body": "x"},
    ],
    ids=["line-outside", "path-outside", "left-side", "start-outside"],
)
def test_a_line_comment_outside_the_diff_is_refused(
    fake: FakeGitHub, client: httpx.Client, gql: Gql, pr: PrRef, comment: dict[str, Any]
) -> None:
    answer = client.post(f"{API}/pulls/1/reviews", json=_review(fake, pr, comments=[comment]))
    assert (422, []) == (answer.status_code, _threads(gql, pr)["reviews"]["nodes"])


def test_a_pr_without_a_diff_refuses_every_line_comment(
    fake: FakeGitHub, client: httpx.Client
) -> None:
    bare = fake.add_pr("octo/repo", 2)
    answer = client.post(f"{API}/pulls/2/reviews", json=_review(fake, bare))
    assert 422 == answer.status_code


# -- replies ----------------------------------------------------------------------------------


def test_a_reply_makes_a_review_of_its_own_listed_in_graphql(
    fake: FakeGitHub, client: httpx.Client, gql: Gql, pr: PrRef
) -> None:
    fake.post_review(
        pr, "alice", "COMMENTED", inline=[("a.py", 3, "why?")], inline_ids=[(None, 77)]
    )
    answer = client.post(f"{API}/pulls/1/comments/77/replies", json={"body": "because"})
    made = answer.json()
    reviews = _threads(gql, pr)["reviews"]["nodes"]
    assert (201, 77, made["pull_request_review_id"], "COMMENTED", [made["node_id"]], True) == (
        answer.status_code,
        made["in_reply_to_id"],
        reviews[-1]["databaseId"],
        reviews[-1]["state"],
        [c["id"] for c in reviews[-1]["comments"]["nodes"]],
        reviews[-1]["viewerDidAuthor"],
    )


def test_a_reply_to_an_unknown_comment_is_not_found(client: httpx.Client, pr: PrRef) -> None:
    assert 404 == client.post(f"{API}/pulls/1/comments/5/replies", json={"body": "x"}).status_code


def test_a_reply_is_listed_by_the_rest_review_listings(
    fake: FakeGitHub, client: httpx.Client, pr: PrRef
) -> None:
    fake.post_review(
        pr, "alice", "COMMENTED", inline=[("a.py", 3, "why?")], inline_ids=[(None, 77)]
    )
    made = client.post(f"{API}/pulls/1/comments/77/replies", json={"body": "because"}).json()
    reviews = client.get(f"{API}/pulls/1/reviews").json()
    comments = client.get(f"{API}/pulls/1/comments").json()
    assert (made["pull_request_review_id"], [77, made["id"]]) == (
        reviews[-1]["id"],
        [c["id"] for c in comments],
    )


# -- listings ---------------------------------------------------------------------------------


def test_a_listing_pages_with_githubs_link_header(
    fake: FakeGitHub, client: httpx.Client, pr: PrRef
) -> None:
    for k in range(5):
        fake.post_comment(pr, "alice", f"c{k}")
    first = client.get(f"{API}/issues/1/comments", params={"per_page": 2})
    last = client.get(f"{API}/issues/1/comments", params={"per_page": 2, "page": 3})
    base = "https://api.github.com/repos/octo/repo/issues/1/comments"
    assert (
        ["c0", "c1"],
        f'<{base}?per_page=2&page=2>; rel="next", <{base}?per_page=2&page=3>; rel="last"',
        ["c4"],
        f'<{base}?per_page=2&page=2>; rel="prev", <{base}?per_page=2&page=1>; rel="first"',
    ) == (
        [c["body"] for c in first.json()],
        first.headers["link"],
        [c["body"] for c in last.json()],
        last.headers["link"],
    )


def test_since_keeps_what_was_updated_at_or_after_it(
    fake: FakeGitHub, client: httpx.Client, clock: FixedClock, pr: PrRef
) -> None:
    edited = fake.post_comment(pr, "alice", "old, edited later")
    fake.post_comment(pr, "alice", "old")
    clock.advance(timedelta(minutes=5))
    fake.edit(edited, "edited")
    fake.post_comment(pr, "alice", "new")
    listed = client.get(f"{API}/issues/1/comments", params={"since": "2030-01-02T03:09:05Z"})
    assert ["edited", "new"] == [c["body"] for c in listed.json()]


def test_a_listing_costs_one_and_a_304_nothing(
    fake: FakeGitHub, client: httpx.Client, pr: PrRef
) -> None:
    first = client.get(f"{API}/issues/1/comments")
    again = client.get(f"{API}/issues/1/comments", headers={"if-none-match": first.headers["etag"]})
    assert ([("listing", 200, 1), ("listing", 304, 0)], 304) == (
        [(r.kind, r.status, r.cost) for r in fake.requests],
        again.status_code,
    )


def test_the_pull_route_answers_the_head(fake: FakeGitHub, client: httpx.Client, pr: PrRef) -> None:
    answer = client.get(f"{API}/pulls/1").json()
    assert (fake.head(pr), 1, "open") == (answer["head"]["sha"], answer["number"], answer["state"])


def test_posts_listed_late_are_hidden_from_graphql_and_rest_until_then(
    fake: FakeGitHub, client: httpx.Client, gql: Gql, clock: FixedClock, pr: PrRef
) -> None:
    fake.list_posts_late = timedelta(seconds=20)
    made = client.post(f"{API}/issues/1/comments", json={"body": "hello"}).json()
    before = (
        _threads(gql, pr)["comments"]["nodes"],
        client.get(f"{API}/issues/1/comments").json(),
        _threads(gql, pr)["updatedAt"],
    )
    clock.advance(timedelta(seconds=20))
    after = [c["id"] for c in _threads(gql, pr)["comments"]["nodes"]]
    listed = [c["id"] for c in client.get(f"{API}/issues/1/comments").json()]
    assert (([], [], made["created_at"]), [made["node_id"]], [made["id"]]) == (
        before,
        after,
        listed,
    )


# -- the content-creation limit ---------------------------------------------------------------


def test_the_81st_post_in_a_minute_is_a_secondary_limit(
    fake: FakeGitHub, client: httpx.Client, clock: FixedClock, pr: PrRef
) -> None:
    for _ in range(80):
        clock.advance(timedelta(milliseconds=500))
        assert 201 == client.post(f"{API}/issues/1/comments", json={"body": "x"}).status_code
    refused = client.post(f"{API}/issues/1/comments", json={"body": "x"})
    assert (403, "21", True, 0) == (
        refused.status_code,
        refused.headers["retry-after"],
        "secondary rate limit" in refused.json()["message"],
        fake.requests[-1].cost,
    )


def test_the_501st_post_in_an_hour_is_a_secondary_limit(
    fake: FakeGitHub, client: httpx.Client, clock: FixedClock, pr: PrRef
) -> None:
    for _ in range(500):
        clock.advance(timedelta(seconds=1))
        client.post(f"{API}/issues/1/comments", json={"body": "x"})
    refused = client.post(f"{API}/issues/1/comments", json={"body": "x"})
    assert (403, str(3600 - 499)) == (refused.status_code, refused.headers["retry-after"])


def test_edits_and_reads_are_not_content_creation(
    fake: FakeGitHub, client: httpx.Client, pr: PrRef
) -> None:
    made = client.post(f"{API}/issues/1/comments", json={"body": "x"}).json()
    for _ in range(90):
        client.patch(f"{API}/issues/comments/{made['id']}", json={"body": "y"})
    assert 201 == client.post(f"{API}/issues/1/comments", json={"body": "x"}).status_code


def test_a_link_over_loopback_names_the_loopback_server(fake: FakeGitHub, pr: PrRef) -> None:
    fake.post_comment(pr, "alice", "a")
    fake.post_comment(pr, "alice", "b")
    with fake.serve_in_thread() as base_url, httpx.Client(base_url=base_url) as c:
        link = c.get(f"/api/v3{API}/issues/1/comments", params={"per_page": 1}).headers["link"]
    assert link.startswith(f"<{base_url}/api/v3{API}/issues/1/comments?per_page=1&page=2>")


def test_a_lost_answer_to_a_mutation_still_makes_the_change(
    fake: FakeGitHub, client: httpx.Client, pr: PrRef
) -> None:
    cid = fake.post_comment(pr, "alice", "hello")
    fake.inject(Fault.lost_answer(kind=None))
    mutation = (
        "mutation($id: ID!) { addReaction(input: {subjectId: $id, content: EYES}) "
        "{ clientMutationId } }"
    )
    with pytest.raises(httpx.ReadTimeout):
        client.post("/graphql", json={"query": mutation, "variables": {"id": cid}})
    assert (("EYES", "octo-worker"),) == fake.reactions(cid)


def test_a_lost_answer_to_a_rest_post_still_makes_the_comment(
    fake: FakeGitHub, client: httpx.Client, gql: Gql, pr: PrRef
) -> None:
    fake.inject(Fault.lost_answer())
    with pytest.raises(httpx.ReadTimeout):
        client.post(f"{API}/issues/1/comments", json={"body": "hello"})
    assert ["hello"] == [c["body"] for c in _threads(gql, pr)["comments"]["nodes"]]
