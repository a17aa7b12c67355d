"""The posting calls over a scripted transport: what they send, what they answer, how they fail."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest

from review_monitor import PrRef, TransientError
from review_monitor.github import (
    GitHubClient,
    Posted,
    PostRefused,
    PostUncertain,
    PostUnexpected,
    ReviewLine,
    create_issue_comment,
    create_review,
    list_issue_comments,
    pull_head,
    reply_to_review_comment,
    update_issue_comment,
)

Factory = Callable[..., GitHubClient]
Reply = Callable[..., httpx.Response]

PR = PrRef("octo", "repo", 7)
SECRET_BODY = "a body no error message may quote"
CREATED = {
    "id": 11,
    "node_id": "IC_11",
    "html_url": "https://github.com/octo/repo/pull/7#issuecomment-11",
    "created_at": "2030-01-02T03:04:05Z",
}
WHEN = datetime(2030, 1, 2, 3, 4, 5, tzinfo=UTC)


@pytest.mark.anyio
async def test_a_comment_is_posted_to_the_issue_route_and_answered_as_posted(
    make_client: Factory, script_class: Any, reply_fn: Reply
) -> None:
    script = script_class([reply_fn(201, CREATED)])

    posted = await create_issue_comment(make_client(script), PR, "hello")

    assert (
        Posted(database_id=11, node_id="IC_11", html_url=CREATED["html_url"], created_at=WHEN),
        "POST",
        "/repos/octo/repo/issues/7/comments",
        {"body": "hello"},
    ) == (posted, script.requests[0].method, script.requests[0].url.path, script.body(0))


@pytest.mark.anyio
async def test_a_review_is_sent_as_a_comment_event_with_its_lines(
    make_client: Factory, script_class: Any, reply_fn: Reply
) -> None:
    answer = {"id": 5, "node_id": "PRR_5", "html_url": "u", "state": "COMMENTED",
              "submitted_at": "2030-01-02T03:04:05Z"}  # fmt: skip
    script = script_class([reply_fn(200, answer)])
    lines = [ReviewLine(path="a.py", line=3, start_line=1, side="RIGHT", body="x")]

    posted = await create_review(make_client(script), PR, commit_id="abc", body="b", comments=lines)

    sent = {"commit_id": "abc", "body": "b", "event": "COMMENT",
            "comments": [{"path": "a.py", "line": 3, "body": "x", "side": "RIGHT",
                          "start_line": 1, "start_side": "RIGHT"}]}  # fmt: skip
    assert (sent, 5, 5) == (script.body(0), posted.database_id, posted.review_database_id)


@pytest.mark.anyio
async def test_a_review_answered_in_another_state_is_unexpected(
    make_client: Factory, script_class: Any, reply_fn: Reply
) -> None:
    answer = {"id": 5, "node_id": "PRR_5", "html_url": "u", "state": "PENDING"}
    script = script_class([reply_fn(200, answer)])

    with pytest.raises(PostUnexpected):
        await create_review(make_client(script), PR, commit_id="abc", body="b")


@pytest.mark.anyio
async def test_a_review_answered_approved_is_unexpected(
    make_client: Factory, script_class: Any, reply_fn: Reply
) -> None:
    # Seed 002: an agent's review only comments; a submitted verdict is never taken as done.
    answer = {"id": 5, "node_id": "PRR_5", "html_url": "u", "state": "APPROVED",
              "submitted_at": "2030-01-02T03:04:05Z"}  # fmt: skip
    script = script_class([reply_fn(200, answer)])

    with pytest.raises(PostUnexpected):
        await create_review(make_client(script), PR, commit_id="abc", body="b")


@pytest.mark.anyio
async def test_a_reply_keeps_the_review_github_made_for_it(
    make_client: Factory, script_class: Any, reply_fn: Reply
) -> None:
    script = script_class([reply_fn(201, {**CREATED, "pull_request_review_id": 99})])

    posted = await reply_to_review_comment(make_client(script), PR, 42, "thanks")

    assert (99, "/repos/octo/repo/pulls/7/comments/42/replies") == (
        posted.review_database_id,
        script.requests[0].url.path,
    )


NOT_IN_DIFF = {"message": "Unprocessable Entity",
               "errors": ["Pull request review thread line must be part of the diff and Pull "
                          "request review thread diff hunk can't be blank"]}  # fmt: skip
LOCKED = {"message": "Unable to create comment because issue is locked."}
TOO_LONG = {"message": "Validation Failed", "errors": [{"resource": "IssueComment",
            "code": "unprocessable", "field": "data",
            "message": "Body is too long (maximum is 65536 characters)"}]}  # fmt: skip
HEAD_MOVED = {"message": "Unprocessable Entity",
              "errors": ["The commitOID is not part of the pull request"]}  # fmt: skip


@pytest.mark.parametrize(
    ("status", "body", "kind"),
    [
        (422, NOT_IN_DIFF, "not-in-diff"),
        (403, LOCKED, "locked"),
        (422, TOO_LONG, "too-long"),
        (404, {"message": "Not Found"}, "not-found"),
        (422, HEAD_MOVED, "head-moved"),
        (
            422,
            {"errors": ["User can only have one pending review per pull request"]},
            "pending-review",
        ),
        (422, {"message": "Validation Failed", "errors": ["something else"]}, "invalid"),
        (403, {"message": "Resource not accessible by integration"}, "forbidden"),
    ],
)
@pytest.mark.anyio
async def test_each_refusal_is_named_by_its_kind(
    make_client: Factory, script_class: Any, reply_fn: Reply, status: int, body: Any, kind: str
) -> None:
    script = script_class([reply_fn(status, body)])

    with pytest.raises(PostRefused) as caught:
        await create_review(make_client(script), PR, commit_id="abc", body=SECRET_BODY)

    assert (kind, status, False) == (
        caught.value.kind,
        caught.value.status,
        SECRET_BODY in str(caught.value),
    )


@pytest.mark.anyio
async def test_a_body_over_githubs_limit_is_refused_before_sending(
    make_client: Factory, script_class: Any, reply_fn: Reply
) -> None:
    script = script_class([reply_fn(201, CREATED)])

    with pytest.raises(PostRefused) as caught:
        await create_issue_comment(make_client(script), PR, "x" * 65_537)

    assert ("too-long", None, 0) == (caught.value.kind, caught.value.status, script.calls)


@pytest.mark.parametrize(
    "fault",
    [
        httpx.ReadTimeout("lost"),
        httpx.RemoteProtocolError("dropped"),
        httpx.Response(502, content=b"{}"),
    ],
    ids=["timeout", "dropped", "502"],
)
@pytest.mark.anyio
async def test_a_post_without_an_answer_is_uncertain_and_sent_once(
    make_client: Factory, script_class: Any, fault: Any
) -> None:
    script = script_class([fault])

    with pytest.raises(PostUncertain) as caught:
        await create_issue_comment(make_client(script), PR, SECRET_BODY)

    assert (1, False) == (script.calls, SECRET_BODY in str(caught.value))


@pytest.mark.anyio
async def test_a_post_that_never_connected_is_transient_not_uncertain(
    make_client: Factory, script_class: Any
) -> None:
    script = script_class([httpx.ConnectError("refused")])

    with pytest.raises(TransientError) as caught:
        await create_issue_comment(make_client(script), PR, "hello")

    assert (False, 4) == (isinstance(caught.value, PostUncertain), script.calls)


@pytest.mark.anyio
async def test_an_edit_is_a_patch_retried_after_a_502(
    make_client: Factory, script_class: Any, reply_fn: Reply
) -> None:
    script = script_class([reply_fn(502, {}), reply_fn(200, CREATED)])

    posted = await update_issue_comment(make_client(script), PR, 11, "new")

    assert (11, ["PATCH", "PATCH"], "/repos/octo/repo/issues/comments/11") == (
        posted.database_id,
        [r.method for r in script.requests],
        script.requests[1].url.path,
    )


@pytest.mark.anyio
async def test_a_listing_follows_the_next_link(
    make_client: Factory, script_class: Any, reply_fn: Reply
) -> None:
    item = {**CREATED, "user": {"login": "octo-worker"}, "body": "b",
            "updated_at": "2030-01-02T03:04:05Z"}  # fmt: skip
    nxt = '<http://127.0.0.1:8765/repos/octo/repo/issues/7/comments?page=2>; rel="next"'
    script = script_class(
        [reply_fn(200, [item], {"link": nxt}), reply_fn(200, [{**item, "id": 12}])]
    )

    listed = await list_issue_comments(make_client(script), PR, WHEN)

    assert ([11, 12], "since=2030-01-02T03:04:05Z&per_page=100") == (
        [c.database_id for c in listed],
        script.requests[0].url.query.decode(),
    )


@pytest.mark.anyio
async def test_pull_head_reads_the_head_sha(
    make_client: Factory, script_class: Any, reply_fn: Reply
) -> None:
    script = script_class([reply_fn(200, {"number": 7, "head": {"sha": "f00"}})])

    assert "f00" == await pull_head(make_client(script), PR)


@pytest.mark.anyio
async def test_a_listing_whose_first_page_is_a_304_still_follows_its_next_link(
    make_client: Factory, script_class: Any, reply_fn: Reply
) -> None:
    item = {**CREATED, "user": {"login": "octo-worker"}, "body": "b"}
    nxt = '<http://127.0.0.1:8765/repos/octo/repo/issues/7/comments?page=2>; rel="next"'
    first = reply_fn(200, [item], {"link": nxt, "etag": '"e1"'})
    second = reply_fn(200, [{**item, "id": 12}])
    script = script_class([first, second, reply_fn(304), second])
    client = make_client(script)
    await list_issue_comments(client, PR, WHEN)

    listed = await list_issue_comments(client, PR, WHEN)

    assert ([11, 12], 4) == ([c.database_id for c in listed], script.calls)


@pytest.mark.anyio
async def test_a_success_answer_the_client_cannot_read_is_uncertain(
    make_client: Factory, script_class: Any, reply_fn: Reply
) -> None:
    script = script_class([reply_fn(201, {"id": "not a number"})])

    with pytest.raises(PostUncertain):
        await create_issue_comment(make_client(script), PR, "hello")
