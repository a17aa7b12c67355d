"""Transcripts the real CLIs wrote (Claude Code 2.1.197 and 2.1.332, Codex 0.130.0, 0.169.0
and 0.171.0), recorded under ``fixtures/transcripts/real-clients/`` by the ``real_client``
suite's sessions: a ``gh pr comment`` that posts, one that fails (PR 13), a flat-named MCP
call Codex rejects, an MCP ``add_issue_comment`` by namespace that posts and one that fails.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from comment_wake.ownpost import OwnPostState, TranscriptSource, read_transcript, scan

REPO = Path(__file__).resolve().parents[2]
REAL = REPO / "fixtures" / "transcripts" / "real-clients"
NOW = datetime(2026, 12, 1, 10, 30, tzinfo=UTC)
GH_POST = ("gh pr comment", "Fixed in abc123.", True)
MCP_POST = ("mcp add_issue_comment", "via mcp", True)


def posts(name: str) -> list[tuple[str, str | None, bool]]:
    return [(p.tool, p.body, p.links_count) for p in read_transcript(str(REAL / name)).posts]


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("codex-0.171.0-posts.jsonl", ("codex", 0, 5, [GH_POST, MCP_POST])),
        ("codex-0.169.0-posts.jsonl", ("codex", 0, 5, [GH_POST, MCP_POST])),
        ("codex-0.130.0-posts.jsonl", ("codex", 0, 5, [GH_POST, MCP_POST])),
        ("claude-code-2.1.332-posts.jsonl", ("claude-code", 0, 2, [GH_POST])),
        ("claude-code-2.1.197-posts.jsonl", ("claude-code", 0, 2, [GH_POST])),
        ("claude-code-2.1.332-stop-hook.jsonl", ("claude-code", 0, 0, [])),
        ("claude-code-2.1.197-stop-hook.jsonl", ("claude-code", 0, 0, [])),
    ],
)
def test_real_transcript_has_no_unreadable_line_and_only_its_successful_posts(
    name: str, expected: tuple[str, int, int, list[tuple[str, str | None, bool]]]
) -> None:
    report = read_transcript(str(REAL / name))
    actual = (report.format, report.unreadable, report.tool_calls, posts(name))
    assert expected == actual


@pytest.mark.parametrize(
    ("name", "ignored"),
    [
        ("codex-0.171.0-posts.jsonl", 24),
        ("codex-0.130.0-posts.jsonl", 20),
        ("claude-code-2.1.332-posts.jsonl", 28),
        ("claude-code-2.1.197-posts.jsonl", 5),
    ],
)
def test_known_line_types_are_counted_as_ignored_not_unreadable(name: str, ignored: int) -> None:
    report = read_transcript(str(REAL / name))
    assert (0, ignored) == (report.unreadable, report.ignored)


def test_a_line_type_nobody_knows_is_still_counted_as_unreadable(tmp_path: Path) -> None:
    lines = (REAL / "codex-0.171.0-posts.jsonl").read_text().splitlines()
    lines.insert(
        3, json.dumps({"timestamp": "2026-12-01T09:54:51Z", "type": "brand_new", "payload": {}})
    )
    path = tmp_path / "rollout.jsonl"
    path.write_text("\n".join(lines) + "\n")
    assert (1, 24) == (read_transcript(str(path)).unreadable, read_transcript(str(path)).ignored)


def without(name: str, tmp_path: Path, drop: str) -> Path:
    """The transcript without the lines that contain ``drop``."""
    lines = [line for line in (REAL / name).read_text().splitlines() if drop not in line]
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize(
    ("name", "end_event"),
    [
        ("codex-0.171.0-posts.jsonl", '"McpToolCall"'),
        ("codex-0.169.0-posts.jsonl", '"McpToolCall"'),
        ("codex-0.130.0-posts.jsonl", '"mcp_tool_call_end"'),
    ],
)
def test_codex_mcp_output_without_its_end_event_is_not_a_post(
    name: str, end_event: str, tmp_path: Path
) -> None:
    # The output alone carries no success flag: only the end event says the call worked.
    path = without(name, tmp_path, end_event)
    actual = [(p.tool, p.body) for p in read_transcript(str(path)).posts]
    assert [("gh pr comment", "Fixed in abc123.")] == actual


def test_codex_call_the_router_rejected_is_not_a_post(tmp_path: Path) -> None:
    # A flat-named MCP call with a success flag still is no post when Codex did not run it.
    rollout = [
        {"type": "session_meta", "payload": {"id": "t", "cwd": "/w"}},
        {
            "type": "response_item",
            "payload": {
                "type": "function_call",
                "name": "mcp__github__add_issue_comment",
                "arguments": json.dumps(
                    {"owner": "a", "repo": "b", "issue_number": 1, "body": "x"}
                ),
                "call_id": "c1",
            },
        },
        {
            "type": "response_item",
            "payload": {
                "type": "function_call_output",
                "call_id": "c1",
                "output": "unsupported call: mcp__github__add_issue_comment",
            },
        },
    ]
    path = tmp_path / "rollout.jsonl"
    path.write_text(
        "".join(json.dumps({"timestamp": "2026-12-01T10:00:00Z", **r}) + "\n" for r in rollout)
    )
    assert () == read_transcript(str(path)).posts


def turns(name: str) -> int:
    state = scan(
        OwnPostState(), [TranscriptSource(path=str(REAL / name))], NOW, window=timedelta(hours=2)
    )
    return len(state.sources[0].turns)


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("codex-0.171.0-posts.jsonl", 1),
        ("codex-0.169.0-posts.jsonl", 1),
        ("codex-0.130.0-posts.jsonl", 1),
        ("claude-code-2.1.332-posts.jsonl", 1),
        ("claude-code-2.1.197-posts.jsonl", 1),
        # the prompt, then the Stop hook's notice (a hook_blocking_error attachment)
        ("claude-code-2.1.332-stop-hook.jsonl", 2),
        ("claude-code-2.1.197-stop-hook.jsonl", 2),
    ],
)
def test_each_prompt_and_each_stop_hook_notice_starts_a_turn(name: str, expected: int) -> None:
    assert expected == turns(name)


def test_a_posting_call_copied_into_an_api_request_blob_is_never_a_post(tmp_path: Path) -> None:
    blob = {
        "type": "api-request-blob",
        "sessionId": "s",
        "hash": "h",
        "message": {
            "role": "assistant",
            "content": [
                {
                    "type": "tool_use",
                    "id": "toolu_1",
                    "name": "Bash",
                    "input": {"command": "gh pr comment 12 --body hi"},
                }
            ],
        },
    }
    result = {
        "type": "user",
        "timestamp": "2026-12-01T10:00:01Z",
        "message": {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "ok"}],
        },
    }
    path = tmp_path / "s.jsonl"
    path.write_text(json.dumps(blob) + "\n" + json.dumps(result) + "\n")
    report = read_transcript(str(path))
    assert (0, 0, []) == (report.unreadable, report.tool_calls, list(report.posts))
