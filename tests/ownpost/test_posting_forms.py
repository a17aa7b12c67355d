"""Every posting form the issue lists, read from the transcript: the tool, the PR it names
and the body it posted; and what only reads (or merely mentions words) posts nothing."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from comment_wake.ownpost import read_transcript

T0 = datetime(2026, 8, 3, 14, 0, 0, tzinfo=UTC)
S = timedelta(seconds=1)
LINK = "https://github.com/acme/widget/pull/7#issuecomment-1"


def posts_of(world: Any, *commands: str) -> list[tuple[str, str | None, str | None]]:
    worker = world.claude()
    worker.prompt("Go.", T0)
    for i, command in enumerate(commands):
        worker.bash(command, at=T0 + (10 * i + 1) * S, done=T0 + (10 * i + 2) * S, stdout=LINK)
    report = read_transcript(str(worker.path))
    return [(p.tool, p.pr, p.body) for p in report.posts]


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("gh pr comment 7 --body 'Fixed.'", ("gh pr comment", "?/?#7", "Fixed.")),
        ("gh pr comment 7 -b 'Fixed.'", ("gh pr comment", "?/?#7", "Fixed.")),
        ("gh pr comment 7 --body='Fixed.'", ("gh pr comment", "?/?#7", "Fixed.")),
        ("gh pr comment '#7' -b Fixed.", ("gh pr comment", "?/?#7", "Fixed.")),
        (
            "gh pr comment https://github.com/acme/widget/pull/7 -b Fixed.",
            ("gh pr comment", "acme/widget#7", "Fixed."),
        ),
        ("gh pr comment 7 -R acme/widget -b Fixed.", ("gh pr comment", "acme/widget#7", "Fixed.")),
        (
            "GH_REPO=acme/widget gh pr comment 7 -b Fixed.",
            ("gh pr comment", "acme/widget#7", "Fixed."),
        ),
        ("gh pr comment --body 'Fixed.'", ("gh pr comment", None, "Fixed.")),
        ("gh issue comment 7 --body 'Fixed.'", ("gh issue comment", "?/?#7", "Fixed.")),
        (
            "gh pr comment 7 --edit-last -b 'Fixed, edited.'",
            ("gh pr comment --edit-last", "?/?#7", "Fixed, edited."),
        ),
        (
            "gh pr comment 7 -F - <<'EOF'\nLine one.\nLine two.\nEOF",
            ("gh pr comment", "?/?#7", "Line one.\nLine two.\n"),
        ),
        (
            "gh pr comment 7 --body-file - <<-EOF\n\tIndented.\n\tEOF",
            ("gh pr comment", "?/?#7", "Indented.\n"),
        ),
        (
            "gh pr comment 7 --body \"$(cat <<'EOF'\nFrom a heredoc.\n\nTwo paragraphs.\nEOF\n)\"",
            ("gh pr comment", "?/?#7", "From a heredoc.\n\nTwo paragraphs."),
        ),
        (
            "gh pr review 7 --comment -b 'Looks fine.'",
            ("gh pr review --comment", "?/?#7", "Looks fine."),
        ),
        ("gh pr review 7 --approve -b 'Ship it.'", ("gh pr review --approve", "?/?#7", "Ship it.")),
        (
            "gh pr review 7 --request-changes --body 'Add tests.'",
            ("gh pr review --request-changes", "?/?#7", "Add tests."),
        ),
        (
            "gh api repos/acme/widget/issues/7/comments -f body='Via the API.'",
            ("gh api", "acme/widget#7", "Via the API."),
        ),
        (
            "gh api -X POST repos/acme/widget/pulls/7/comments -F body='Inline.' -f path=a.py",
            ("gh api", "acme/widget#7", "Inline."),
        ),
        (
            "gh api repos/acme/widget/pulls/7/comments/42/replies --raw-field body='Reply.'",
            ("gh api", "acme/widget#7", "Reply."),
        ),
        (
            "gh api repos/{owner}/{repo}/pulls/7/reviews --field body='Review.' -f event=COMMENT",
            ("gh api", "?/?#7", "Review."),
        ),
        ("bash -lc \"gh pr comment 7 -b 'Wrapped.'\"", ("gh pr comment", "?/?#7", "Wrapped.")),
        ("timeout 60 nohup gh pr comment 7 -b 'Wrapped.'", ("gh pr comment", "?/?#7", "Wrapped.")),
        ("env GH_PROMPT_DISABLED=1 command gh pr comment 7 -b W", ("gh pr comment", "?/?#7", "W")),
        (
            "cd /work/widget && gh pr comment 7 -b 'After cd.'",
            ("gh pr comment", "?/?#7", "After cd."),
        ),
        ("echo 'Piped.' | gh pr comment 7 -F -", ("gh pr comment", "?/?#7", "Piped.\n")),
        ('gh pr comment 7 -b "$SUMMARY"', ("gh pr comment", "?/?#7", None)),
        ('gh pr comment 7 -b "$(git log -1 --format=%s)"', ("gh pr comment", "?/?#7", None)),
        (
            "gh pr comment 7 -F - <<EOF\nHead is $(git rev-parse HEAD)\nEOF",
            ("gh pr comment", "?/?#7", None),
        ),
    ],
)
def test_posting_form_is_read_with_its_pr_and_body(
    world: Any, command: str, expected: tuple[str, str | None, str | None]
) -> None:
    assert [expected] == posts_of(world, command)


@pytest.mark.parametrize(
    "command",
    [
        "gh pr view 7 --json comments",
        "gh pr checks 7",
        "gh api repos/acme/widget/issues/7/comments",
        "gh api -X GET repos/acme/widget/issues/7/comments -f per_page=100",
        "gh api --method GET repos/acme/widget/pulls/7/comments -F per_page=50",
        "curl -s -X POST -d 'body=hi' https://api.github.com/repos/acme/widget/issues/7/comments",
        "rm -f ok.txt && grep -f patterns.txt stop.md",
        "echo 'gh pr comment 7 -b stop'",
        "grep -rn 'gh pr comment' docs/",
        "git commit -m 'rebase: go test ok' && git push",
        "gh pr comment 7 --web",
        "gh pr comment 7 --body-file",
        "gh pr review 7 -b 'No verdict flag.'",
    ],
)
def test_read_or_mention_posts_nothing(world: Any, command: str) -> None:
    assert [] == posts_of(world, command)


def test_body_file_written_by_the_write_tool_is_read(world: Any) -> None:
    worker = world.claude()
    worker.prompt("Go.", T0)
    worker.tool(
        "Write",
        {"file_path": "/tmp/reply.md", "content": "Written by the tool."},
        at=T0 + S,
        done=T0 + 2 * S,
        result={"type": "create", "filePath": "/tmp/reply.md"},
    )
    worker.bash("gh pr comment 7 -F /tmp/reply.md", at=T0 + 3 * S, done=T0 + 4 * S, stdout=LINK)

    assert ["Written by the tool."] == [p.body for p in read_transcript(str(worker.path)).posts]


def test_body_file_written_by_cat_heredoc_is_read(world: Any) -> None:
    worker = world.claude()
    worker.prompt("Go.", T0)
    worker.bash("cat > reply.md <<'EOF'\nWritten by cat.\nEOF", at=T0 + S, done=T0 + 2 * S)
    worker.bash("gh pr comment 7 --body-file reply.md", at=T0 + 3 * S, done=T0 + 4 * S)

    assert ["Written by cat.\n"] == [p.body for p in read_transcript(str(worker.path)).posts]


def test_body_file_the_thread_never_wrote_is_unknown(world: Any) -> None:
    worker = world.claude()
    worker.prompt("Go.", T0)
    worker.bash("gh pr comment 7 --body-file notes.md", at=T0 + 3 * S, done=T0 + 4 * S)

    assert [None] == [p.body for p in read_transcript(str(worker.path)).posts]


@pytest.mark.parametrize(
    ("tool", "args", "expected"),
    [
        (
            "mcp__github__add_issue_comment",
            {"owner": "acme", "repo": "widget", "issue_number": 7, "body": "MCP."},
            ("mcp add_issue_comment", "acme/widget#7", "MCP."),
        ),
        (
            "mcp__github__add_reply_to_pull_request_comment",
            {"owner": "acme", "repo": "widget", "pullNumber": 7, "commentId": 3, "body": "R."},
            ("mcp add_reply_to_pull_request_comment", "acme/widget#7", "R."),
        ),
        (
            "mcp__github__pull_request_review_write",
            {
                "method": "create",
                "owner": "acme",
                "repo": "widget",
                "pullNumber": 7,
                "event": "COMMENT",
                "body": "Review.",
            },
            ("mcp pull_request_review_write", "acme/widget#7", "Review."),
        ),
        (
            "mcp__gram__pr_reply_to_thread",
            {"threadId": "PRRT_1", "body": "Thread reply."},
            ("mcp pr_reply_to_thread", None, "Thread reply."),
        ),
    ],
)
def test_mcp_posting_tool_is_read(
    world: Any, tool: str, args: dict[str, Any], expected: tuple[str, str | None, str]
) -> None:
    worker = world.claude()
    worker.prompt("Go.", T0)
    worker.tool(tool, args, at=T0 + S, done=T0 + 2 * S, result=[{"type": "text", "text": "{}"}])

    report = read_transcript(str(worker.path))

    assert [expected] == [(p.tool, p.pr, p.body) for p in report.posts]


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("mcp__gram__pr_review_threads", {"pr": 7}),
        ("mcp__github__get_pull_request_comments", {"owner": "acme", "repo": "widget"}),
        ("mcp__github__pull_request_review_write", {"method": "create", "pullNumber": 7}),
        ("WebFetch", {"url": "https://github.com/acme/widget/pull/7"}),
    ],
)
def test_mcp_read_posts_nothing(world: Any, tool: str, args: dict[str, Any]) -> None:
    worker = world.claude()
    worker.prompt("Go.", T0)
    worker.tool(tool, args, at=T0 + S, done=T0 + 2 * S, result=[{"type": "text", "text": LINK}])

    assert () == read_transcript(str(worker.path)).posts


@pytest.mark.parametrize(
    ("command", "counts"),
    [
        ("gh pr comment 7 -b One.", True),
        ("gh pr comment 7 -b One. && gh pr view 7", False),
        ("gh pr comment 7 -b One. | tee out.txt", False),
        ("cd /w && gh pr comment 7 -b One.", False),
    ],
)
def test_links_count_only_when_every_command_of_the_call_posts(
    world: Any, command: str, counts: bool
) -> None:
    worker = world.claude()
    worker.prompt("Go.", T0)
    worker.bash(command, at=T0 + S, done=T0 + 2 * S, stdout=LINK)

    assert [counts] == [p.links_count for p in read_transcript(str(worker.path)).posts]


@pytest.mark.parametrize(
    ("command", "counts"),
    [
        ('gh pr comment 7 --body "$(git log -1 --pretty=%B)"', True),
        ('gh api repos/acme/widget/issues/7/comments -f body="$(cat notes.md)"', True),
        ('gh pr comment 7 --body "$(printf \'%s\' "$(git log -1 --pretty=%B)")"', True),
        ('B=$(git log -1 --pretty=%B); gh pr comment 7 --body "$B"', True),
        ('B="$(git log -1 --pretty=%B)" && gh pr comment 7 --body "${B}"', True),
        # the assignment does not feed the post, or its value is printed beside it
        ("B=$(git log -1 --pretty=%B); gh pr comment 7 --body One.", False),
        ('B=$(git log -1); echo "$B"; gh pr comment 7 --body "$B"', False),
        ('gh pr comment 7 --body "$(git log -1)" && gh pr view 7', False),
    ],
)
def test_a_substitution_inside_the_post_is_part_of_the_post(
    world: Any, command: str, counts: bool
) -> None:
    worker = world.claude()
    worker.prompt("Go.", T0)
    worker.bash(command, at=T0 + S, done=T0 + 2 * S, stdout=LINK)

    assert [counts] == [p.links_count for p in read_transcript(str(worker.path)).posts]


def test_links_printed_to_stderr_count_against_the_posts(world: Any) -> None:
    # A substitution inside the post printed a user's comment link to stderr.
    quoted = "https://github.com/acme/widget/pull/7#issuecomment-2"
    worker = world.claude()
    worker.prompt("Go.", T0)
    result = {"stdout": LINK, "stderr": quoted, "interrupted": False, "isImage": False}
    worker.bash(
        'gh pr comment 7 --body "$(gh api repos/acme/widget/issues/comments/2 -q .html_url >&2)"',
        at=T0 + S,
        done=T0 + 2 * S,
        stdout=LINK,
        result=result,
    )

    assert [False] == [p.links_count for p in read_transcript(str(worker.path)).posts]


def test_links_do_not_count_when_a_call_printed_more_links_than_it_posted(world: Any) -> None:
    worker = world.claude()
    worker.prompt("Go.", T0)
    quoted = "https://github.com/acme/widget/pull/7#issuecomment-2"
    worker.bash(
        f"gh api repos/acme/widget/issues/7/comments -f body='See {quoted}'",
        at=T0 + S,
        done=T0 + 2 * S,
        stdout=f'{{"html_url":"{LINK}","body":"See {quoted}"}}',
    )

    assert [False] == [p.links_count for p in read_transcript(str(worker.path)).posts]


def test_api_url_of_the_same_item_is_not_another_link(world: Any, tmp_path: Path) -> None:
    worker = world.claude()
    worker.prompt("Go.", T0)
    worker.bash(
        "gh api repos/acme/widget/issues/7/comments -f body=Hi",
        at=T0 + S,
        done=T0 + 2 * S,
        stdout=(
            '{"url":"https://api.github.com/repos/acme/widget/issues/comments/1",'
            f'"html_url":"{LINK}","body":"Hi"}}'
        ),
    )

    report = read_transcript(str(worker.path))

    assert [((LINK,), True)] == [(p.links, p.links_count) for p in report.posts]
