"""Claude Code sessions and Codex threads resolve to the files the agents write."""

from __future__ import annotations

from pathlib import Path

import pytest

from comment_wake.registry import (
    AgentHomes,
    ClaudeSession,
    CodexThread,
    InboxSpec,
    RefusedInputError,
    Registry,
    claude_project_name,
    resolve_transcript,
)
from review_monitor import PrRef

SID = "3f2a9c4e-1b2c-4d5e-8f90-0123456789ab"
TID = "019a0b1c-2d3e-7f40-8a5b-6c7d8e9f0a1b"


def _write(path: Path, text: str = '{"type":"user"}\n') -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_claude_project_name_turns_every_non_alphanumeric_into_a_dash(tmp_path: Path) -> None:
    cwd = tmp_path / "my.repo_x"
    cwd.mkdir()
    expected = str(cwd.resolve()).replace("/", "-").replace(".", "-").replace("_", "-")
    assert expected == claude_project_name(str(cwd))


def test_claude_project_name_counts_a_composed_letter_once(tmp_path: Path) -> None:
    decomposed = tmp_path / "cafe\u0301"
    decomposed.mkdir()
    assert claude_project_name(str(decomposed)).endswith("-caf-")


def test_a_claude_session_resolves_under_its_cwd_folder(homes: AgentHomes, tmp_path: Path) -> None:
    cwd = tmp_path / "wt"
    cwd.mkdir()
    expected = _write(homes.claude / "projects" / claude_project_name(str(cwd)) / f"{SID}.jsonl")
    assert [expected] == resolve_transcript(ClaudeSession(SID, str(cwd)), homes)


def test_a_long_cwd_matches_the_200_character_prefix_and_any_hash(
    homes: AgentHomes, tmp_path: Path
) -> None:
    cwd = tmp_path / ("d" * 120) / ("e" * 120)
    cwd.mkdir(parents=True)
    name = claude_project_name(str(cwd))
    expected = _write(homes.claude / "projects" / f"{name[:200]}-1x9abc" / f"{SID}.jsonl")
    assert [expected] == resolve_transcript(ClaudeSession(SID, str(cwd)), homes)


def test_a_claude_session_elsewhere_is_found_by_scanning_every_project(
    homes: AgentHomes, tmp_path: Path
) -> None:
    cwd = tmp_path / "moved"
    cwd.mkdir()
    expected = _write(homes.claude / "projects" / "-old-place" / f"{SID}.jsonl")
    assert [expected] == resolve_transcript(ClaudeSession(SID, str(cwd)), homes)


def test_an_empty_file_elsewhere_is_not_taken_for_the_session(
    homes: AgentHomes, tmp_path: Path
) -> None:
    cwd = tmp_path / "moved"
    cwd.mkdir()
    _write(homes.claude / "projects" / "-old-place" / f"{SID}.jsonl", "")
    assert [] == resolve_transcript(ClaudeSession(SID, str(cwd)), homes)


def test_a_codex_thread_resolves_in_its_dated_folder(homes: AgentHomes) -> None:
    expected = _write(
        homes.codex / "sessions" / "2026" / "03" / "14" / f"rollout-2026-03-14T09-26-53-{TID}.jsonl"
    )
    _write(homes.codex / "sessions" / "2026" / "03" / "14" / "rollout-2026-03-14T09-00-00-x.jsonl")
    assert [expected] == resolve_transcript(CodexThread(TID), homes)


def test_a_compacted_codex_thread_gives_every_window_file(homes: AgentHomes) -> None:
    day = homes.codex / "sessions" / "2026" / "03" / "14"
    first = _write(day / f"rollout-2026-03-14T09-26-53-{TID}.jsonl")
    second = _write(day / f"rollout-2026-03-14T09-26-53-{TID}_2.jsonl")
    assert [first, second] == resolve_transcript(CodexThread(TID), homes)


def test_an_archived_codex_thread_resolves_under_archived_sessions(homes: AgentHomes) -> None:
    expected = _write(
        homes.codex / "archived_sessions" / f"rollout-2026-03-14T09-26-53-{TID}.jsonl"
    )
    assert [expected] == resolve_transcript(CodexThread(TID), homes)


def test_agent_homes_follow_the_agents_environment_variables(tmp_path: Path) -> None:
    env = {"CLAUDE_CONFIG_DIR": str(tmp_path / "c"), "CODEX_HOME": str(tmp_path / "x")}
    assert AgentHomes(tmp_path / "c", tmp_path / "x") == AgentHomes.from_env(env, tmp_path)


def test_agent_homes_default_to_the_home_directory(tmp_path: Path) -> None:
    assert AgentHomes(tmp_path / ".claude", tmp_path / ".codex") == AgentHomes.from_env(
        {}, tmp_path
    )


@pytest.mark.parametrize("bad", ["*", "../x", "a/b", "", "a b"])
def test_a_session_id_that_could_escape_or_glob_is_refused(
    registry: Registry, tmp_path: Path, bad: str
) -> None:
    with pytest.raises(RefusedInputError, match="is not an id"):
        registry.bind(
            "w1",
            PrRef("o", "r", 1),
            orchestrator="o1",
            publisher=InboxSpec(),
            transcripts=ClaudeSession(bad, str(tmp_path)),
        )


def test_binding_a_claude_session_records_the_real_cwd(
    registry: Registry, homes: AgentHomes, tmp_path: Path
) -> None:
    cwd = tmp_path / "wt"
    cwd.mkdir()
    _write(homes.claude / "projects" / claude_project_name(str(cwd)) / f"{SID}.jsonl")
    record = registry.bind(
        "w1",
        PrRef("o", "r", 1),
        orchestrator="o1",
        publisher=InboxSpec(),
        transcripts=ClaudeSession(SID, str(tmp_path / "wt" / ".." / "wt")),
    )
    assert (ClaudeSession(SID, str(cwd.resolve())),) == record.transcripts


def test_binding_a_codex_thread_without_a_rollout_is_refused(registry: Registry) -> None:
    with pytest.raises(RefusedInputError, match="no rollout for Codex thread"):
        registry.bind(
            "w1",
            PrRef("o", "r", 1),
            orchestrator="o1",
            publisher=InboxSpec(),
            transcripts=CodexThread(TID),
        )


def test_claude_project_name_gives_a_character_outside_the_bmp_two_dashes(
    tmp_path: Path,
) -> None:
    # Claude Code 2.1.332 named the folder of /tmp/rcx/proj/wt-🚀-x "-tmp-rcx-proj-wt----x".
    cwd = tmp_path / "wt-\U0001f680-x"
    cwd.mkdir()
    assert claude_project_name(str(cwd)).endswith("-wt----x")
