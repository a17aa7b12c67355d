"""Transcript readers: every format, pairing, bad lines, incremental reads, real sessions."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from comment_wake.ownpost import (
    OwnPostState,
    TranscriptSource,
    read_transcript,
    scan,
    transcript_files,
)

NOW = datetime(2026, 8, 5, tzinfo=UTC)
WINDOW = timedelta(hours=2)
SESSION = "claude-code/3c5e7a90-1b2d-4e6f-8a9b-0c1d2e3f4a5b.jsonl"
SUBAGENT = "claude-code/3c5e7a90-1b2d-4e6f-8a9b-0c1d2e3f4a5b/subagents/agent-b41c7de.jsonl"
CODEX = "codex/rollout-2026-08-04T10-00-00-0198f0aa.jsonl"
LEGACY = "codex/rollout-2025-08-20T08-00-00-5e1f9c3a.jsonl"


def summary(path: Path) -> tuple[str, int, int, int, int, list[tuple[str, bool, bool]]]:
    report = read_transcript(str(path), now=NOW)
    posts = [(p.tool, p.body is not None, p.links_count) for p in report.posts]
    return (
        report.format,
        report.lines,
        report.unreadable,
        report.tool_calls,
        report.unpaired,
        posts,
    )


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        (
            SESSION,
            (
                "claude-code",
                15,
                0,
                4,
                0,
                [("gh pr comment", True, True), ("mcp add_issue_comment", True, True)],
            ),
        ),
        (SUBAGENT, ("claude-code", 3, 0, 1, 0, [("gh api", True, True)])),
        (
            CODEX,
            (
                "codex",
                17,
                0,
                6,
                0,
                [
                    ("gh pr comment", True, True),
                    ("gh pr review --comment", True, True),
                    ("gh issue comment", True, True),
                    ("mcp add_issue_comment", True, True),
                ],
            ),
        ),
        (LEGACY, ("codex-legacy", 9, 0, 1, 0, [("gh pr comment", True, True)])),
        (
            "claude-code/malformed.jsonl",
            ("claude-code", 8, 4, 1, 0, [("gh pr comment", True, True)]),
        ),
    ],
)
def test_fixture_transcript_is_read_as_expected(
    fixtures_dir: Path, name: str, expected: tuple[Any, ...]
) -> None:
    assert expected == summary(fixtures_dir / name)


def test_claude_results_pair_by_tool_use_id_not_by_position(fixtures_dir: Path) -> None:
    # The session's two parallel calls get their results in the reverse order, with
    # progress lines between: the post's link is its own, the listing's is not a post.
    report = read_transcript(str(fixtures_dir / SESSION), now=NOW)

    assert [
        ("toolu_post", ("https://github.com/lantern-dev/lantern/pull/58#issuecomment-4100000001",))
    ] == [(p.call_id, p.links) for p in report.posts if p.tool == "gh pr comment"]


def test_claude_post_time_is_the_calls_interval_not_the_message_start(fixtures_dir: Path) -> None:
    report = read_transcript(str(fixtures_dir / SESSION), now=NOW)
    post = report.posts[0]

    assert ("09:05:02", "09:05:04") == (
        post.started.strftime("%H:%M:%S"),
        post.finished.strftime("%H:%M:%S"),
    )


def test_session_brings_its_subagent_transcripts(fixtures_dir: Path) -> None:
    assert [str(fixtures_dir / SESSION), str(fixtures_dir / SUBAGENT)] == transcript_files(
        str(fixtures_dir / SESSION)
    )


def test_codex_running_process_and_failed_exit_post_nothing(fixtures_dir: Path) -> None:
    report = read_transcript(str(fixtures_dir / CODEX), now=NOW)

    assert "Still running." not in [p.body for p in report.posts]


def test_legacy_codex_post_without_line_times_ends_at_the_scan(fixtures_dir: Path) -> None:
    report = read_transcript(str(fixtures_dir / LEGACY), now=NOW)

    assert [(datetime(2025, 8, 20, 8, 0, tzinfo=UTC), NOW)] == [
        (p.started, p.finished) for p in report.posts
    ]


def _sample_posts(path: Path) -> list[tuple[int, str, tuple[str, ...], bool]]:
    report = read_transcript(str(path), now=NOW)
    return [(p.line, p.tool, p.links, p.links_count) for p in report.posts]


def test_sample_claude_code_transcript_classifies_every_line(shared_dir: Path) -> None:
    base = "https://github.com/acme-labs/widget-service/pull/142#"
    path = shared_dir / "reference/transcript-samples/claude-code.jsonl"

    assert [
        (3, "gh pr comment", (base + "issuecomment-3155012345",), True),
        (5, "gh api", (base + "discussion_r2299001122",), True),
        (7, "gh pr review --comment", (), True),
        (9, "mcp add_issue_comment", (base + "issuecomment-3155099999",), True),
    ] == _sample_posts(path)


def test_sample_codex_transcript_classifies_every_line(shared_dir: Path) -> None:
    base = "https://github.com/acme-labs/widget-service/pull/142#"
    path = shared_dir / "reference/transcript-samples/codex.jsonl"

    assert [
        (7, "gh pr comment", (base + "issuecomment-3155212121",), True),
        (10, "gh api", (base + "discussion_r2299117788",), True),
        (12, "mcp add_issue_comment", (base + "issuecomment-3155230000",), True),
    ] == _sample_posts(path)


def test_sample_codex_legacy_shell_transcript_classifies_every_line(shared_dir: Path) -> None:
    path = shared_dir / "reference/transcript-samples/codex-legacy-shell.jsonl"

    assert [
        (
            3,
            "gh pr comment",
            ("https://github.com/acme-labs/widget-service/pull/142#issuecomment-3271100456",),
            True,
        ),
        (
            7,
            "gh issue comment",
            ("https://github.com/acme-labs/widget-service/issues/151#issuecomment-3271101999",),
            True,
        ),
    ] == _sample_posts(path)


def test_real_claude_code_transcripts_reproduce_the_expected_figures(shared_dir: Path) -> None:
    root = shared_dir / "reference/real-transcripts"
    expected = json.loads((root / "expected-claude-code.json").read_text())
    actual = {}
    for name in expected:
        report = read_transcript(str(root / "claude-code" / name), now=NOW)
        assert 0 == report.unreadable, name
        actual[name] = {
            "lines": report.lines,
            "tool_calls": report.tool_calls,
            "unpaired": report.unpaired,
            "github_posts": len(report.posts),
        }

    assert expected == actual


# --- incremental reading -------------------------------------------------------------


def _line(call: int, at: str) -> str:
    return json.dumps(
        {
            "type": "assistant",
            "timestamp": at,
            "sessionId": "s",
            "message": {
                "id": f"msg_{call}",
                "role": "assistant",
                "content": [
                    {
                        "type": "tool_use",
                        "id": f"toolu_{call}",
                        "name": "Bash",
                        "input": {"command": f"gh pr comment 7 -b 'Post {call}.'"},
                    }
                ],
            },
        }
    )


def _result(call: int, at: str) -> str:
    return json.dumps(
        {
            "type": "user",
            "timestamp": at,
            "message": {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": f"toolu_{call}", "content": ""}],
            },
            "toolUseResult": {"stdout": "", "stderr": "", "interrupted": False, "isImage": False},
        }
    )


def _scan(state: OwnPostState, path: Path) -> OwnPostState:
    return scan(state, [TranscriptSource(path=str(path))], NOW, window=WINDOW)


def test_incremental_scan_reads_only_what_was_appended(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text(
        _line(1, "2026-08-04T23:00:00Z") + "\n" + _result(1, "2026-08-04T23:00:01Z") + "\n"
    )
    first = _scan(OwnPostState(), path)
    with path.open("a") as fh:
        fh.write(
            _line(2, "2026-08-04T23:01:00Z") + "\n" + _result(2, "2026-08-04T23:01:01Z") + "\n"
        )

    second = _scan(first, path)

    assert (4, os.path.getsize(path), ["toolu_1", "toolu_2"]) == (
        second.sources[0].lines,
        second.sources[0].offset,
        [p.call_id for p in second.posts],
    )


def test_incomplete_last_line_waits_for_its_newline(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    result = _result(1, "2026-08-04T23:00:01Z")
    path.write_text(_line(1, "2026-08-04T23:00:00Z") + "\n" + result[:40])
    first = _scan(OwnPostState(), path)
    with path.open("a") as fh:
        fh.write(result[40:] + "\n")

    second = _scan(first, path)

    assert [(1, 0, 0, 1), (2, 0, 1, 0)] == [
        (s.sources[0].lines, s.sources[0].unreadable, len(s.posts), s.sources[0].unpaired)
        for s in (first, second)
    ]


def test_call_and_result_split_over_two_scans_still_pair(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text(_line(1, "2026-08-04T23:00:00Z") + "\n")
    first = _scan(OwnPostState(), path)
    with path.open("a") as fh:
        fh.write(_result(1, "2026-08-04T23:00:01Z") + "\n")

    second = _scan(first, path)

    assert ["toolu_1"] == [p.call_id for p in second.posts]


def test_truncated_file_is_read_again_from_the_start(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text((_line(1, "2026-08-04T23:00:00Z") + "\n") * 3)
    first = _scan(OwnPostState(), path)
    path.write_text(_line(2, "2026-08-04T23:05:00Z") + "\n")

    second = _scan(first, path)

    assert (1, 1) == (second.sources[0].lines, second.sources[0].tool_calls)


def test_replaced_file_is_read_again_from_the_start(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text(_line(1, "2026-08-04T23:00:00Z") + "\n")
    first = _scan(OwnPostState(), path)
    replacement = tmp_path / "new.jsonl"
    replacement.write_text(
        _line(2, "2026-08-04T23:05:00Z") + "\n" + _line(3, "2026-08-04T23:06:00Z") + "\n"
    )
    os.replace(replacement, path)

    second = _scan(first, path)

    assert (2, 2) == (second.sources[0].lines, second.sources[0].tool_calls)


def test_missing_transcript_is_not_an_error(tmp_path: Path) -> None:
    state = _scan(OwnPostState(), tmp_path / "absent.jsonl")

    assert (0, 0) == (state.sources[0].lines, state.sources[0].offset)


def test_repeated_tool_use_block_is_one_call(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text(
        _line(1, "2026-08-04T23:00:00Z") + "\n" + _line(1, "2026-08-04T23:00:00Z") + "\n"
    )

    assert 1 == read_transcript(str(path), now=NOW).tool_calls
