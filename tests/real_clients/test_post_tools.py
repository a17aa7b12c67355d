"""The posting tools through the real CLIs (issue 27): a Claude Code and a Codex session,
woken with a maintainer's comment, whose scripted model calls ``reply`` to answer it and
``review`` (a summary and one line comment on the checkout's HEAD, the pull request's head)
under the names those CLIs give MCP tools.  The daemon posts both on FakeGitHub under the
token's login, and its next polls pass them over as the worker's own: no second notice.

Claude Code runs headless with only the ``--allowedTools`` that ``bind`` prints for a
binding with the posting tools on, as a headless worker does."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from realclient_cli import Cli, codex_namespace
from realclient_daemon import PR, LiveDaemon, live_daemon
from realclient_model import Call, Say
from realclient_sandbox import Sandbox

from comment_wake.tools import server_name

pytestmark = pytest.mark.real_client

W1 = server_name("w1")
LOGIN = "octo-worker"  # the token's login on FakeGitHub
ANSWER = "Renamed it to gadget."
SUMMARY = "Looks sound apart from one name."
LINE_NOTE = "Name it gadget?"


@contextmanager
def posting_daemon(sandbox: Sandbox, tmp_path: Path) -> Iterator[tuple[LiveDaemon, str]]:
    """A daemon whose w1 has its posting tools on and the CLI's worktree as its checkout,
    whose HEAD is the pull request's head; with that HEAD."""
    head = sandbox.commit_work({"widget.py": "print('widget')\n"})
    with live_daemon(
        tmp_path, post_tools=True, workdir=sandbox.work, head=head, diff={"widget.py": [1]}
    ) as live:
        yield live, head


def review_input(head: str) -> dict[str, Any]:
    return {
        "summary": SUMMARY,
        "comments": [{"path": "widget.py", "line": 1, "body": LINE_NOTE}],
        "commit": head,
    }


def the_posts_passed_over(live: LiveDaemon) -> tuple[object, ...]:
    """Wait for the reply and the review on FakeGitHub and the daemon's decisions on them,
    then two more poll rounds; (the posts, the decisions, the worker's notices)."""
    live.wait(
        lambda: len([i for i in live.fake.items(PR) if i.author == LOGIN]) == 3,
        "the reply, the review and its line comment on GitHub",
    )
    reply, review, _ = [i for i in live.fake.items(PR) if i.author == LOGIN]
    live.wait(
        lambda: all(live.decisions(i.id) for i in (reply, review)),
        "the daemon's decisions on the reply and the review",
    )
    seen = live.rounds()
    live.wait(lambda: live.rounds() >= seen + 2, "two more poll rounds")
    posts = [
        (i.kind, i.author, i.state, i.path, i.line, text in i.body)
        for i, text in zip(
            [i for i in live.fake.items(PR) if i.author == LOGIN],
            (ANSWER, SUMMARY, LINE_NOTE),
            strict=True,
        )
    ]
    decisions = [
        (record["reason"], record["detail"].split(" (key ", 1)[0])
        for record in (live.decisions(i.id)[-1] for i in (reply, review))
    ]
    return posts, decisions, len(live.notices("w1"))


EXPECTED = (
    [
        ("comment", LOGIN, None, None, None, True),
        ("review", LOGIN, "COMMENTED", None, None, True),
        ("review-comment", LOGIN, None, "widget.py", 1, True),
    ],
    [("own-post", "posted by `reply`"), ("own-post", "posted by `review`")],
    1,  # the maintainer's comment; never the worker's own posts
)


def test_claude_replies_and_reviews_and_its_posts_never_wake_it(
    claude_cli: Cli, sandbox: Sandbox, tmp_path: Path
) -> None:
    with posting_daemon(sandbox, tmp_path) as (live, head):
        comment = live.delivered_comment()
        script = {
            "WORKER": [
                Call(
                    f"mcp__{W1}__reply",
                    {"comment": comment["url"], "text": ANSWER, "addressed": "done"},
                ),
                Call(f"mcp__{W1}__review", review_input(head)),
                Say("done"),
            ]
        }
        config = json.dumps({"mcpServers": live.mcp_servers()})
        sandbox.claude(
            claude_cli,
            "WORKER: answer the comment and review the change",
            script,
            "--mcp-config",
            config,
            "--allowedTools",
            live.allowed_tools(),
            skip_permissions=False,
        )
        result = the_posts_passed_over(live)
    assert EXPECTED == result


def test_codex_replies_and_reviews_and_its_posts_never_wake_it(
    codex_cli: Cli, sandbox: Sandbox, tmp_path: Path
) -> None:
    with posting_daemon(sandbox, tmp_path) as (live, head):
        comment = live.delivered_comment()
        sandbox.codex_config(extra_mcp=live.mcp_servers())
        namespace = codex_namespace(W1)
        script = {
            "WORKER": [
                Call(
                    "reply",
                    {"comment": comment["id"], "text": ANSWER, "addressed": "done"},
                    namespace=namespace,
                ),
                Call("review", review_input(head), namespace=namespace),
                Say("done"),
            ]
        }
        sandbox.codex(codex_cli, "WORKER: answer the comment and review the change", script)
        result = the_posts_passed_over(live)
    assert EXPECTED == result
