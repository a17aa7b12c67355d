"""``bind``'s sharp edges (issue 25, items 12, 13 and 19): words after ``--command`` that
are bind's own options, a missing or foreign transcript, a webhook's credentials."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import msgspec
import pytest

from comment_wake.cli import main
from comment_wake.daemon._doctor import _transcripts_check
from comment_wake.registry import (
    WORKERS,
    InboxSpec,
    PublisherSpec,
    Registry,
    TranscriptPath,
    WebhookSpec,
    WorkerRecord,
)
from comment_wake.store import open_sync_store, put_record
from review_monitor import PrRef

REAL = Path(__file__).resolve().parents[3] / "fixtures" / "transcripts" / "real-clients"
CLAUDE = REAL / "claude-code-2.1.332-posts.jsonl"
SECRET = "s3cr3t-in-the-url-0123456789"
T0 = datetime(2026, 12, 1, tzinfo=UTC)


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def where(state_dir: Path, capsys: pytest.CaptureFixture[str]) -> list[str]:
    place = ["--state-dir", str(state_dir)]
    assert 0 == _run(capsys, "orchestrator", "add", "o1", "--inbox", *place)[0]
    return place


def _bind(
    capsys: pytest.CaptureFixture[str], where: list[str], *flags: str
) -> tuple[int, str, str]:
    return _run(capsys, "bind", "w1", "octo/repo#7", "--orchestrator", "o1", *where, *flags)


def _bound(state_dir: Path) -> WorkerRecord | None:
    with Registry.open(state_dir) as registry:
        return registry.worker("w1")


# -- item 12: --command and bind's own options ----------------------------------------


@pytest.mark.parametrize("word", ["--inbox", "--transcript", "--state-dir", "--state-dir=x"])
def test_a_bind_option_after_command_is_refused_naming_it(
    capsys: pytest.CaptureFixture[str], where: list[str], state_dir: Path, word: str
) -> None:
    code, _, err = _bind(capsys, where, "--command", "notify", word, "T")
    name = word.split("=")[0]
    assert (2, 1, True, None) == (
        code,
        len(err.splitlines()),
        f"{name} comes after --command" in err,
        _bound(state_dir),
    )


def test_command_after_a_dash_dash_takes_every_word_verbatim(
    capsys: pytest.CaptureFixture[str], where: list[str], state_dir: Path
) -> None:
    code, _, _ = _bind(capsys, where, "--command", "--", "notify", "--inbox", "--", "x")
    record = _bound(state_dir)
    assert (0, ("notify", "--inbox", "--", "x")) == (
        code,
        None if record is None else record.publisher.argv,  # type: ignore[union-attr]
    )


def test_a_dash_dash_inside_the_command_is_the_commands(
    capsys: pytest.CaptureFixture[str], where: list[str], state_dir: Path
) -> None:
    code, _, _ = _bind(capsys, where, "--command", "codex", "exec", "--", "resume")
    record = _bound(state_dir)
    assert (0, ("codex", "exec", "--", "resume")) == (
        code,
        None if record is None else record.publisher.argv,  # type: ignore[union-attr]
    )


def test_the_success_line_names_the_store_the_publisher_and_the_transcripts(
    capsys: pytest.CaptureFixture[str], where: list[str], state_dir: Path
) -> None:
    code, out, _ = _bind(capsys, where, "--transcript", str(CLAUDE), "--command", "notify", "w1")
    assert (0, True, True, True) == (
        code,
        f"  store: {state_dir / 'state.db'}" in out,
        "  publisher: command notify w1" in out,
        f"  transcripts: {CLAUDE}" in out,
    )


# -- item 13: no transcript, or a file that is not one ---------------------------------


def test_bind_without_a_transcript_warns_what_will_not_be_recognised(
    capsys: pytest.CaptureFixture[str], where: list[str]
) -> None:
    code, _, err = _bind(capsys, where, "--inbox")
    assert (0, 1, True) == (
        code,
        len(err.splitlines()),
        "warning: no transcript: comment-wake cannot tell the worker's own posts" in err,
    )


def test_bind_refuses_a_file_that_is_not_a_transcript(
    capsys: pytest.CaptureFixture[str], where: list[str], state_dir: Path, tmp_path: Path
) -> None:
    readme = tmp_path / "README.md"
    readme.write_text("# A project\n\nNot a transcript.\n")
    code, _, err = _bind(capsys, where, "--inbox", "--transcript", str(readme))
    assert (2, True, None) == (
        code,
        "is not a Claude Code or Codex transcript" in err,
        _bound(state_dir),
    )


def test_bind_with_an_empty_transcript_warns_and_binds(
    capsys: pytest.CaptureFixture[str], where: list[str], state_dir: Path, tmp_path: Path
) -> None:
    empty = tmp_path / "session.jsonl"
    empty.write_text("")
    code, _, err = _bind(capsys, where, "--inbox", "--transcript", str(empty))
    assert (0, True, True) == (code, "is empty" in err, _bound(state_dir) is not None)


def test_doctor_calls_a_bound_file_that_is_not_a_transcript_so(
    where: list[str], state_dir: Path, tmp_path: Path
) -> None:
    # Bound before the check existed: written straight into the store.
    readme = tmp_path / "README.md"
    readme.write_text("# A project\n")
    _store_worker(state_dir, InboxSpec(), (TranscriptPath(str(readme)),))
    with Registry.open(state_dir) as registry:
        check = _transcripts_check(registry, "w1")
    assert ("FAIL", True) == (
        check.status,
        "is not a Claude Code or Codex transcript" in check.message,
    )


def _store_worker(
    state_dir: Path, publisher: PublisherSpec, transcripts: tuple[TranscriptPath, ...] = ()
) -> None:
    record = WorkerRecord(
        worker="w1",
        pr=PrRef("octo", "repo", 7),
        orchestrator="o1",
        publisher=publisher,
        transcripts=transcripts,
        bound_at=T0,
    )
    with open_sync_store(state_dir / "state.db") as db, db.write(at=T0) as tx:
        put_record(tx, WORKERS, "w1", msgspec.json.encode(record))


# -- item 19: a webhook's credentials ---------------------------------------------------


@pytest.mark.parametrize("name", ["GH_TOKEN", "GITHUB_TOKEN"])
def test_a_webhook_secret_in_the_daemons_token_variable_is_refused(
    capsys: pytest.CaptureFixture[str], where: list[str], state_dir: Path, name: str
) -> None:
    code, _, err = _bind(capsys, where, "--webhook", "https://h.example/x", "--secret-env", name)
    assert (2, True, None) == (code, "one of the daemon's own secrets" in err, _bound(state_dir))


@pytest.mark.parametrize(
    "tail",
    [f"?token={SECRET}", f"?access_token={SECRET}", f"#token={SECRET}", f"?k=1&api_key={SECRET}"],
)
def test_a_webhook_url_with_a_credential_is_refused_without_echoing_it(
    capsys: pytest.CaptureFixture[str], where: list[str], state_dir: Path, tail: str
) -> None:
    code, out, err = _bind(
        capsys, where, "--webhook", f"https://h.example/x{tail}", "--secret-env", "HOOK_SECRET"
    )
    assert (2, True, False, None) == (
        code,
        "must not carry a credential" in err,
        SECRET in out + err,
        _bound(state_dir),
    )


def test_list_shows_a_stored_webhook_url_without_its_credentials(
    capsys: pytest.CaptureFixture[str], where: list[str], state_dir: Path
) -> None:
    # Stored before such URLs were refused: written straight into the store.
    _store_worker(state_dir, WebhookSpec(f"https://h.example/x?token={SECRET}", "HOOK_SECRET"))
    code, out, _ = _run(capsys, "list", *where)
    assert (0, True, False) == (code, "webhook https://h.example/x " in out, SECRET in out)
