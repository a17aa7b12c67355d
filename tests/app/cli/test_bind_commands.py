"""``comment-wake bind | unbind | archive | list | orchestrator`` through ``cli.main``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from comment_wake.cli import main
from comment_wake.registry import (
    ClaudeSession,
    CommandSpec,
    InboxSpec,
    Registry,
    WebhookSpec,
    claude_project_name,
)
from comment_wake.store import open_sync_store
from review_monitor import PrRef, Watch

SID = "3f2a9c4e-1b2c-4d5e-8f90-0123456789ab"


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _orchestrator(capsys: pytest.CaptureFixture[str], state: Path) -> None:
    assert 0 == _run(capsys, "orchestrator", "add", "o1", "--inbox", "--state-dir", str(state))[0]


def _registry(state: Path) -> Registry:
    return Registry.open(state)


def test_bind_records_the_worker_and_watches_its_pr(
    capsys: pytest.CaptureFixture[str], state_dir: Path
) -> None:
    _orchestrator(capsys, state_dir)
    code, out, _ = _run(
        capsys, "bind", "w1", "octo/repo#7", "--orchestrator", "o1", "--inbox",
        "--state-dir", str(state_dir),
    )  # fmt: skip
    store = open_sync_store(state_dir / "state.db")
    try:
        assert (0, (Watch("w1", PrRef("octo", "repo", 7)),)) == (code, store.watches())
    finally:
        store.close()
    assert "bound w1 to octo/repo#7" in out


def test_command_takes_everything_after_it_as_the_argv(
    capsys: pytest.CaptureFixture[str], state_dir: Path
) -> None:
    _orchestrator(capsys, state_dir)
    _run(
        capsys, "bind", "w1", "octo/repo#7", "--orchestrator", "o1", "--state-dir",
        str(state_dir), "--command", "notify", "--worker", "w1", "-v",
    )  # fmt: skip
    with _registry(state_dir) as reg:
        record = reg.worker("w1")
    assert record is not None
    assert CommandSpec(("notify", "--worker", "w1", "-v")) == record.publisher


def test_webhook_stores_the_secret_variable_name_and_timeout(
    capsys: pytest.CaptureFixture[str], state_dir: Path
) -> None:
    _orchestrator(capsys, state_dir)
    _run(
        capsys, "bind", "w1", "octo/repo#7", "--orchestrator", "o1", "--webhook",
        "https://hooks.example/w1", "--secret-env", "W1_SECRET", "--timeout", "5",
        "--state-dir", str(state_dir),
    )  # fmt: skip
    with _registry(state_dir) as reg:
        record = reg.worker("w1")
    assert record is not None
    assert WebhookSpec("https://hooks.example/w1", "W1_SECRET", 5.0) == record.publisher


def test_inbox_with_a_directory_stores_its_absolute_path(
    capsys: pytest.CaptureFixture[str], state_dir: Path, tmp_path: Path
) -> None:
    _orchestrator(capsys, state_dir)
    _run(
        capsys, "bind", "w1", "octo/repo#7", "--orchestrator", "o1", "--inbox",
        str(tmp_path / "box"), "--state-dir", str(state_dir),
    )  # fmt: skip
    with _registry(state_dir) as reg:
        record = reg.worker("w1")
    assert record is not None
    assert InboxSpec(str(tmp_path / "box")) == record.publisher


def test_a_claude_session_is_found_under_claude_config_dir(
    capsys: pytest.CaptureFixture[str], state_dir: Path, tmp_path: Path
) -> None:
    cwd = tmp_path / "wt"
    cwd.mkdir()
    folder = tmp_path / "claude-home" / "projects" / claude_project_name(str(cwd))
    folder.mkdir(parents=True)
    (folder / f"{SID}.jsonl").write_text("{}\n")
    _orchestrator(capsys, state_dir)
    code, _, err = _run(
        capsys, "bind", "w1", "octo/repo#7", "--orchestrator", "o1", "--inbox",
        "--claude-session", SID, "--cwd", str(cwd), "--state-dir", str(state_dir),
    )  # fmt: skip
    with _registry(state_dir) as reg:
        record = reg.worker("w1")
    assert (0, "") == (code, err)
    assert record is not None
    assert (ClaudeSession(SID, str(cwd.resolve())),) == record.transcripts


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["octo/repo", "--orchestrator", "o1", "--inbox"], "write it as owner/name#N"),
        (["octo/repo#7", "--orchestrator", "nope", "--inbox"], "orchestrator add nope"),
        (["octo/repo#7", "--orchestrator", "o1", "--webhook", "https://h/x"], "--secret-env"),
        (
            ["octo/repo#7", "--orchestrator", "o1", "--inbox", "--transcript", "/no/such.jsonl"],
            "does not exist",
        ),
        (
            ["octo/repo#7", "--orchestrator", "o1", "--inbox", "--claude-session", SID],
            "needs --cwd",
        ),
        (
            ["octo/repo#7", "--orchestrator", "o1", "--inbox", "--codex-thread", "abc"],
            "no rollout for Codex thread abc",
        ),
    ],
)
def test_refused_input_exits_2_with_what_to_fix_and_writes_nothing(
    capsys: pytest.CaptureFixture[str], state_dir: Path, argv: list[str], fragment: str
) -> None:
    _orchestrator(capsys, state_dir)
    code, out, err = _run(capsys, "bind", "w1", *argv, "--state-dir", str(state_dir))
    with _registry(state_dir) as reg:
        workers = reg.list()
    assert (2, "", (), True) == (code, out, workers, fragment in err)


def test_a_missing_publisher_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], state_dir: Path
) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["bind", "w1", "octo/repo#7", "--orchestrator", "o1", "--state-dir", str(state_dir)])
    assert 2 == caught.value.code


def test_unbind_of_an_unknown_worker_exits_2(
    capsys: pytest.CaptureFixture[str], state_dir: Path
) -> None:
    _orchestrator(capsys, state_dir)
    code, _, err = _run(capsys, "unbind", "ghost", "--state-dir", str(state_dir))
    assert (2, "comment-wake unbind: no worker 'ghost' is bound") == (code, err.split(";")[0])


def test_unbind_and_archive_change_the_listing(
    capsys: pytest.CaptureFixture[str], state_dir: Path
) -> None:
    _orchestrator(capsys, state_dir)
    for worker, pr in (("w1", "octo/repo#1"), ("w2", "octo/repo#2")):
        _run(
            capsys, "bind", worker, pr, "--orchestrator", "o1", "--inbox",
            "--state-dir", str(state_dir),
        )  # fmt: skip
    _run(capsys, "archive", "w1", "--state-dir", str(state_dir))
    _run(capsys, "unbind", "w2", "--state-dir", str(state_dir))
    code, out, _ = _run(capsys, "list", "--json", "--state-dir", str(state_dir))
    listing = json.loads(out)
    assert (0, [("w1", True)], ["o1"]) == (
        code,
        [(w["worker"], w["archived"]) for w in listing["workers"]],
        [o["id"] for o in listing["orchestrators"]],
    )


def test_list_json_gives_the_pr_reference_and_the_publisher_kind(
    capsys: pytest.CaptureFixture[str], state_dir: Path
) -> None:
    _orchestrator(capsys, state_dir)
    _run(
        capsys, "bind", "w1", "octo/repo#7", "--orchestrator", "o1", "--host",
        "ghe.example.com", "--inbox", "--state-dir", str(state_dir),
    )  # fmt: skip
    _, out, _ = _run(capsys, "list", "--json", "--state-dir", str(state_dir))
    (worker,) = json.loads(out)["workers"]
    assert ("octo/repo#7", "ghe.example.com", "inbox") == (
        worker["pr"]["ref"],
        worker["pr"]["host"],
        worker["publisher"]["kind"],
    )


def test_list_text_names_each_worker_and_orchestrator(
    capsys: pytest.CaptureFixture[str], state_dir: Path
) -> None:
    _orchestrator(capsys, state_dir)
    _run(
        capsys, "bind", "w1", "octo/repo#7", "--orchestrator", "o1", "--inbox",
        "--state-dir", str(state_dir),
    )  # fmt: skip
    _, out, _ = _run(capsys, "list", "--state-dir", str(state_dir))
    starts = [line.split("  ")[0] for line in out.splitlines() if not line.startswith(" ")]
    assert ["worker w1", "orchestrator o1"] == starts


def test_the_state_dir_comes_from_the_environment(
    capsys: pytest.CaptureFixture[str], state_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COMMENT_WAKE_STATE_DIR", str(state_dir))
    _run(capsys, "orchestrator", "add", "o1", "--inbox")
    assert (state_dir / "state.db").is_file()


def test_the_state_dir_comes_from_the_config_file(
    capsys: pytest.CaptureFixture[str], state_dir: Path, tmp_path: Path
) -> None:
    config = tmp_path / "c.toml"
    config.write_text(f'state_dir = "{state_dir}"\n')
    _run(capsys, "orchestrator", "add", "o1", "--inbox", "--config", str(config))
    assert (state_dir / "state.db").is_file()


def test_a_bad_config_file_exits_2_naming_the_key(
    capsys: pytest.CaptureFixture[str], state_dir: Path, tmp_path: Path
) -> None:
    config = tmp_path / "c.toml"
    config.write_text('[monitor]\npolll_interval = "5m"\n')
    code, _, err = _run(
        capsys,
        "orchestrator",
        "add",
        "o1",
        "--inbox",
        "--config",
        str(config),
        "--state-dir",
        str(state_dir),
    )
    assert (2, True) == (code, "unknown key `polll_interval` in [monitor]" in err)


def test_list_reads_only_the_state_dir_of_the_config_file(
    capsys: pytest.CaptureFixture[str], state_dir: Path, tmp_path: Path
) -> None:
    # list starts without validating the whole file (issue 26: a fast command line);
    # run, doctor and the commands that bind check every key.
    _run(capsys, "orchestrator", "add", "o1", "--inbox", "--state-dir", str(state_dir))
    config = tmp_path / "c.toml"
    config.write_text(f'state_dir = "{state_dir}"\n[monitor]\npolll_interval = "5m"\n')
    code, out, _ = _run(capsys, "list", "--config", str(config))
    assert (0, True) == (code, "o1" in out)


def test_the_host_defaults_to_the_configured_one(
    capsys: pytest.CaptureFixture[str], state_dir: Path, tmp_path: Path
) -> None:
    config = tmp_path / "c.toml"
    config.write_text('[github]\nhost = "ghe.example.com"\n')
    _orchestrator(capsys, state_dir)
    _run(
        capsys, "bind", "w1", "octo/repo#7", "--orchestrator", "o1", "--inbox",
        "--config", str(config), "--state-dir", str(state_dir),
    )  # fmt: skip
    with _registry(state_dir) as reg:
        record = reg.worker("w1")
    assert record is not None
    assert "ghe.example.com" == record.pr.host


def test_orchestrator_remove_is_refused_while_it_has_workers(
    capsys: pytest.CaptureFixture[str], state_dir: Path
) -> None:
    _orchestrator(capsys, state_dir)
    _run(
        capsys, "bind", "w1", "octo/repo#7", "--orchestrator", "o1", "--inbox",
        "--state-dir", str(state_dir),
    )  # fmt: skip
    code, _, err = _run(capsys, "orchestrator", "remove", "o1", "--state-dir", str(state_dir))
    assert (2, True) == (code, "unbind them first" in err)


def test_the_installed_command_binds_and_lists_in_a_subprocess(
    state_dir: Path, tmp_path: Path
) -> None:
    env = {**os.environ, "COMMENT_WAKE_STATE_DIR": str(state_dir)}
    cmd = [sys.executable, "-m", "comment_wake"]

    def run(*argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*cmd, *argv], env=env, capture_output=True, text=True, timeout=60, check=False
        )

    added = run("orchestrator", "add", "o1", "--inbox")
    bound = run("bind", "w1", "octo/repo#7", "--orchestrator", "o1", "--command", "true")
    refused = run("bind", "w2", "octo/repo", "--orchestrator", "o1", "--inbox")
    listed = run("list", "--json")
    assert (0, 0, 2, 0) == (
        added.returncode,
        bound.returncode,
        refused.returncode,
        listed.returncode,
    )
    assert "write it as owner/name#N" in refused.stderr
    assert ["w1"] == [w["worker"] for w in json.loads(listed.stdout)["workers"]]


@pytest.mark.parametrize(
    ("recipe", "session", "warned"),
    [
        ("claude", "worker-7.session", "Claude Code will take it as a session title"),
        ("codex", "worker-7", "looks it up as a thread name"),
        ("claude", SID, ""),
        ("codex", SID, ""),
    ],
)
def test_bind_warns_when_a_recipes_session_id_is_not_a_uuid_but_binds_it(
    capsys: pytest.CaptureFixture[str], state_dir: Path, recipe: str, session: str, warned: str
) -> None:
    _orchestrator(capsys, state_dir)
    code, _, err = _run(
        capsys, "bind", "w1", "octo/repo#7", "--orchestrator", "o1", "--state-dir",
        str(state_dir), "--command", "python", "-m", f"comment_wake.delivery.recipes.{recipe}",
        "--session-id", session,
    )  # fmt: skip
    with _registry(state_dir) as reg:
        bound = reg.worker("w1") is not None
    # (The binding has no transcript: that warning is another line, not counted here.)
    said = "is not a UUID" in err
    assert (0, True, bool(warned), warned in err) == (code, bound, said, True)


def test_archive_says_its_pr_is_no_longer_polled(
    capsys: pytest.CaptureFixture[str], state_dir: Path
) -> None:
    _orchestrator(capsys, state_dir)
    _run(
        capsys, "bind", "w1", "octo/repo#1", "--orchestrator", "o1", "--inbox",
        "--state-dir", str(state_dir),
    )  # fmt: skip
    code, out, _ = _run(capsys, "archive", "w1", "--state-dir", str(state_dir))
    assert (
        0,
        [
            "archived w1 (octo/repo#1); its notices now go to o1",
            "octo/repo#1 is no longer polled: comments on it from now on are never seen (only a "
            "PR bound to a live worker wakes anyone); bind a worker to it to watch it again",
        ],
    ) == (code, out.splitlines())
