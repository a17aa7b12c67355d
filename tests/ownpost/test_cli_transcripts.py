"""``comment-wake transcripts scan``: per-file figures and posts, as text or JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from comment_wake.cli import main

SESSION = "claude-code/3c5e7a90-1b2d-4e6f-8a9b-0c1d2e3f4a5b.jsonl"


def test_scan_json_prints_one_object_per_file_with_the_documented_keys(
    fixtures_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(["transcripts", "scan", "--json", str(fixtures_dir / SESSION)])
    objects = [json.loads(line) for line in capsys.readouterr().out.splitlines()]

    assert (0, 2) == (status, len(objects))
    assert [
        ["format", "ignored", "lines", "path", "posts", "tool_calls", "unpaired", "unreadable"]
    ] * 2 == [sorted(o) for o in objects]


def test_scan_json_shows_each_posts_tool_pr_body_and_links(
    fixtures_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    main(
        [
            "transcripts",
            "scan",
            "--json",
            str(fixtures_dir / "codex/rollout-2026-08-04T10-00-00-0198f0aa.jsonl"),
        ]
    )
    post = json.loads(capsys.readouterr().out)["posts"][0]

    assert {
        "tool": "gh pr comment",
        "pr": "?/?#58",
        "names_pr": True,
        "body": "Flicker fix landed in 9ab3c21.",
        "links": ["https://github.com/lantern-dev/lantern/pull/58#issuecomment-4200000001"],
        "links_count": True,
    } == {k: post[k] for k in ("tool", "pr", "names_pr", "body", "links", "links_count")}


def test_scan_text_says_unknown_for_a_body_the_shell_computed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "s.jsonl"
    lines = [
        {
            "type": "assistant",
            "timestamp": "2026-08-04T10:00:00Z",
            "sessionId": "s",
            "message": {
                "id": "m",
                "role": "assistant",
                "content": [
                    {
                        "type": "tool_use",
                        "id": "t1",
                        "name": "Bash",
                        "input": {"command": 'gh pr comment -b "$(date)"'},
                    }
                ],
            },
        },
        {
            "type": "user",
            "timestamp": "2026-08-04T10:00:02Z",
            "message": {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "t1", "content": ""}],
            },
        },
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))

    main(["transcripts", "scan", str(path)])
    out = capsys.readouterr().out

    assert 'body: "unknown"' in out
    assert "current branch (no PR named)" in out


def test_scan_of_a_missing_file_fails_with_a_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(["transcripts", "scan", str(tmp_path / "absent.jsonl")])

    assert (1, True) == (status, "cannot read" in capsys.readouterr().err)


def test_scan_of_a_file_of_no_known_format_exits_1_saying_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    notes = tmp_path / "notes.jsonl"
    notes.write_text('{"hello": "world"}\nplain text\n')
    status = main(["transcripts", "scan", str(notes)])
    err = capsys.readouterr().err
    assert (1, True) == (status, "not a Claude Code or Codex transcript" in err)


def test_scan_of_an_empty_file_is_not_a_failure(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = tmp_path / "new-session.jsonl"
    empty.write_text("")
    assert 0 == main(["transcripts", "scan", str(empty)])
