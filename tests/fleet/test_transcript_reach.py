"""Which transcripts a host can read for its workers' own-post checks: in fleet mode an
orchestrator or a sibling bound on another host is named as there ("on host h2, not
local") and never looked for here; ``doctor`` warns once per transcript it cannot read,
saying what is lost; ``explain`` shows them.  A single host's store reads every agent's
transcripts here, as before."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import pytest

from comment_wake.cli import main
from comment_wake.config import AppConfig
from comment_wake.daemon._doctor import Check, run_checks
from comment_wake.registry import InboxSpec, Registry, TranscriptPath, TranscriptSpec
from comment_wake.service import DecisionRecord, namespace_of
from comment_wake.service._records import encode_record, record_key
from comment_wake.store import put_record
from review_monitor import PrRef

from .conftest import PR, fleet_config

T0 = datetime(2026, 1, 1, tzinfo=UTC)
PR2 = PrRef("octo", "repo", 2)
PR3 = PrRef("octo", "repo", 3)


@pytest.fixture(autouse=True)
def clean_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("COMMENT_WAKE_STATE_DIR", "COMMENT_WAKE_CONFIG", "COMMENT_WAKE_INBOX"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg-state"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg-config"))


@dataclass(frozen=True)
class Team:
    """Orchestrator o-1 and its workers: w-1 and w-3 bound on host h1 (w-3's transcript
    since deleted), o-1 and w-2 bound on host h2.  Every file but w-3's exists on this
    machine, so a host that looked for o-1's or w-2's would find them."""

    store: str | None  # the PostgreSQL URL; None: one SQLite store for both
    h1: Path
    h2: Path
    files: dict[str, Path]

    def registry(self, host: str = "h1") -> Registry:
        state = self.h1 if host == "h1" or self.store is None else self.h2
        return Registry.open(state, store=self.store, host_id=host)


def _file(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("", encoding="utf-8")  # an empty transcript: a session just begun
    return path


def _team(tmp_path: Path, store: str | None) -> Team:
    files = {n: _file(tmp_path / "t" / f"{n}.jsonl") for n in ("w-1", "o-1", "w-2", "w-3")}
    team = Team(store, tmp_path / "h1", tmp_path / "h2", files)

    def path(name: str) -> TranscriptSpec:
        return TranscriptPath(str(files[name]))

    with team.registry("h2") as h2:
        h2.add_orchestrator("o-1", InboxSpec(), path("o-1"))
        h2.bind("w-2", PR2, orchestrator="o-1", publisher=InboxSpec(), transcripts=path("w-2"))
    with team.registry("h1") as h1:
        h1.bind("w-1", PR, orchestrator="o-1", publisher=InboxSpec(), transcripts=path("w-1"))
        h1.bind("w-3", PR3, orchestrator="o-1", publisher=InboxSpec(), transcripts=path("w-3"))
    files["w-3"].unlink()
    return team


@pytest.fixture
def fleet(tmp_path: Path, postgres_url: str) -> Team:
    return _team(tmp_path, postgres_url)


@pytest.fixture
def single(tmp_path: Path) -> Team:
    return _team(tmp_path, None)


def test_a_fleet_host_names_other_hosts_agents_as_there_without_looking_for_them(
    fleet: Team,
) -> None:
    with fleet.registry() as registry:
        reach = registry.transcript_reach("w-1", here="h1")
    assert [
        ("worker", "w-1", "readable", "h1"),
        ("orchestrator", "o-1", "elsewhere", "h2"),
        ("sibling", "w-2", "elsewhere", "h2"),
        ("sibling", "w-3", "missing", "h1"),
    ] == [(r.role, r.agent, r.reach, r.host_id) for r in reach]


def test_a_fleet_host_never_resolves_another_hosts_transcripts(
    fleet: Team, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[TranscriptSpec] = []
    resolve = Registry._files

    def spy(self: Registry, spec: TranscriptSpec) -> tuple[Path, ...]:
        asked.append(spec)
        return resolve(self, spec)

    monkeypatch.setattr(Registry, "_files", spy)
    with fleet.registry() as registry:
        registry.transcript_reach("w-1", here="h1")
    assert [str(fleet.files["w-1"]), str(fleet.files["w-3"])] == [
        s.path for s in asked if isinstance(s, TranscriptPath)
    ]


def test_a_single_hosts_store_reads_every_agents_transcripts_here(single: Team) -> None:
    with single.registry() as registry:
        reach = registry.transcript_reach("w-1", here="h1")
    assert [
        ("worker", "w-1", "readable"),
        ("orchestrator", "o-1", "readable"),
        ("sibling", "w-2", "readable"),
        ("sibling", "w-3", "missing"),
    ] == [(r.role, r.agent, r.reach) for r in reach]


def test_a_fleet_hosts_own_post_scan_reads_only_its_own_hosts_transcripts(fleet: Team) -> None:
    # o-1's and w-2's files exist on this machine too: read, another agent's posts by the
    # same path could hide a writer's comment.
    with fleet.registry() as registry:
        sources = registry.transcripts("w-1")
    assert [(str(fleet.files["w-1"]), "worker")] == [(s.path, s.role) for s in sources]


def test_a_single_hosts_own_post_scan_reads_every_agents_transcripts(single: Team) -> None:
    with single.registry() as registry:
        sources = registry.transcripts("w-1")
    roles = (("w-1", "worker"), ("o-1", "orchestrator"), ("w-2", "sibling"))
    assert [(str(single.files[n]), r) for n, r in roles] == [(s.path, s.role) for s in sources]


def _doctor(team: Team, config: AppConfig) -> list[Check]:
    with team.registry() as registry:
        return asyncio.run(
            run_checks(
                config,
                registry,
                token=None,
                token_problem="no token in this test",
                now=T0,
                host_id="h1",
            )
        )


def test_doctor_warns_once_per_transcript_on_another_host_saying_what_is_lost(
    fleet: Team,
) -> None:
    checks = _doctor(fleet, fleet_config(str(fleet.store), "h1"))
    expected = [
        Check(
            "transcript o-1",
            "WARN",
            "orchestrator o-1 is bound on host h2, not here, and its transcript "
            f"({fleet.files['o-1']}) is there: its own posts on the PRs of w-1, w-3 are not "
            "recognised on this host, except those made through the posting tools (by id)",
        ),
        Check(
            "transcript w-2",
            "WARN",
            "worker w-2 is bound on host h2, not here, and its transcript "
            f"({fleet.files['w-2']}) is there: its own posts on the PRs of w-1, w-3 are not "
            "recognised on this host, except those made through the posting tools (by id)",
        ),
    ]
    assert expected == [c for c in checks if c.name.startswith("transcript ")]


def test_doctor_checks_only_this_hosts_workers_transcripts_and_publishers(
    fleet: Team,
) -> None:
    checks = _doctor(fleet, fleet_config(str(fleet.store), "h1"))
    assert (
        ["transcripts w-1", "publisher w-1", "transcripts w-3", "publisher w-3"],
        "2 worker(s) and orchestrator(s) are bound on other hosts: the doctor there checks "
        "their transcripts and publishers",
    ) == (
        [c.name for c in checks if c.name.startswith(("transcripts ", "publisher "))],
        next(c.message for c in checks if c.name == "other hosts"),
    )


def test_doctor_on_a_single_host_warns_of_an_orchestrators_missing_transcript(
    single: Team,
) -> None:
    single.files["o-1"].unlink()
    checks = _doctor(single, AppConfig())
    expected = Check(
        "transcript o-1",
        "WARN",
        f"{single.files['o-1']} of orchestrator o-1 is not found on this host: its own posts "
        "on the PRs of w-1, w-2, w-3 are not recognised; check the session id or path "
        "(comment-wake list) and CLAUDE_CONFIG_DIR / CODEX_HOME",
    )
    assert [expected] == [c for c in checks if c.name.startswith("transcript ")]


def _explain(team: Team, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> list[str]:
    """``explain`` on host h1 of a comment on w-1's PR written with the token's login:
    the lines after the rule walk."""
    record = DecisionRecord(
        at=T0,
        host=PR.host,
        pr=str(PR),
        comment="IC_1",
        outcome="wake",
        reason="writer",
        viewer_did_author=True,
        own_post="not own: no post in the transcripts explains it",
        rules=("own-post",),
    )
    with team.registry() as registry, registry.store.write(at=T0) as tx:
        put_record(tx, namespace_of(PR), record_key(record), encode_record(record))
    config = tmp_path / "config.toml"
    fleet = f'[store]\nurl = "{team.store}"\n[fleet]\nhost_id = "h1"\n'
    config.write_text(fleet if team.store else "", encoding="utf-8")
    capsys.readouterr()
    code = main(
        ["explain", "octo/repo#1", "IC_1", "--config", str(config), "--state-dir", str(team.h1)]
    )
    out = capsys.readouterr().out
    assert 0 == code, out
    return out.split("\n\n")[-1].splitlines()


def test_explain_shows_another_hosts_transcripts_as_not_local(
    fleet: Team, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    f = fleet.files
    assert [
        "own-post transcripts of the PR's worker as bound now, as this host finds them:",
        f"  worker w-1: {f['w-1']}",
        f"  orchestrator o-1: {f['o-1']}: on host h2, not local",
        f"  sibling w-2: {f['w-2']}: on host h2, not local",
        f"  sibling w-3: {f['w-3']}: not found on this host",
    ] == _explain(fleet, tmp_path, capsys)


def test_explain_on_a_single_host_shows_every_transcript_as_read_here(
    single: Team, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    f = single.files
    assert [
        "own-post transcripts of the PR's worker as bound now, as this host finds them:",
        f"  worker w-1: {f['w-1']}",
        f"  orchestrator o-1: {f['o-1']}",
        f"  sibling w-2: {f['w-2']}",
        f"  sibling w-3: {f['w-3']}: not found on this host",
    ] == _explain(single, tmp_path, capsys)


def test_doctor_warns_that_an_unreadable_transcript_holds_its_readers_comments(
    single: Team, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The tests run as root, which opens any file: the refusal is the system's answer.
    boss = str(single.files["o-1"])

    def refuse(path: str) -> None:
        if path == boss:
            raise PermissionError(13, "Permission denied", path)

    monkeypatch.setattr("comment_wake.registry._reach.check_readable", refuse)
    checks = _doctor(single, AppConfig())
    expected = Check(
        "transcript o-1",
        "WARN",
        f"{boss}: Permission denied: a transcript of orchestrator o-1 that cannot be opened "
        "here; the comments on the PRs of w-1, w-2, w-3 are not decided until it can be (fix "
        "its permissions)",
    )
    assert [expected] == [c for c in checks if c.name.startswith("transcript ")]
