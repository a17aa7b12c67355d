"""``bind`` names a pull request in any of GitHub's forms, folds its letter case, and
refuses numbers GitHub cannot hold (through ``cli.main``; the embedding API too)."""

from __future__ import annotations

from pathlib import Path

import pytest

from comment_wake.cli import main
from comment_wake.registry import InboxSpec, RefusedInputError, Registry
from comment_wake.store import open_sync_store
from review_monitor import PrRef


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _bind(
    capsys: pytest.CaptureFixture[str], state: Path, worker: str, pr: str, *extra: str
) -> tuple[int, str, str]:
    return _run(
        capsys, "bind", worker, pr, "--orchestrator", "o1", "--inbox", "--state-dir", str(state),
        *extra,
    )  # fmt: skip


@pytest.fixture
def state(capsys: pytest.CaptureFixture[str], state_dir: Path) -> Path:
    assert (
        0 == _run(capsys, "orchestrator", "add", "o1", "--inbox", "--state-dir", str(state_dir))[0]
    )
    return state_dir


def _watched(state: Path) -> list[str]:
    with open_sync_store(state / "state.db") as db:
        return [f"{w.thread_id} {w.pr.host} {w.pr}" for w in db.watches()]


def test_a_second_worker_on_one_pr_in_other_letter_case_is_refused(
    capsys: pytest.CaptureFixture[str], state: Path
) -> None:
    _bind(capsys, state, "w1", "octo/repo#1")
    code, _, err = _bind(capsys, state, "w2", "Octo/Repo#1")
    assert (2, ["w1 github.com octo/repo#1"]) == (code, _watched(state))
    assert "Octo/Repo#1 is already bound to worker 'w1'" in err


@pytest.mark.parametrize(
    "form",
    [
        "https://github.com/octo/repo/pull/12",
        "https://github.com/octo/repo/pull/12/files",
        "https://github.com/octo/repo/pull/12#issuecomment-99",
        "octo/repo/pull/12",
    ],
)
def test_bind_takes_a_pull_requests_url_or_path(
    capsys: pytest.CaptureFixture[str], state: Path, form: str
) -> None:
    code, _, _ = _bind(capsys, state, "w1", form)
    assert (0, ["w1 github.com octo/repo#12"]) == (code, _watched(state))


def test_bind_takes_an_enterprise_url_on_the_host_given(
    capsys: pytest.CaptureFixture[str], state: Path
) -> None:
    url = "https://ghe.example.com/team/app/pull/3/commits"
    code, _, _ = _bind(capsys, state, "w1", url, "--host", "ghe.example.com")
    assert (0, ["w1 ghe.example.com team/app#3"]) == (code, _watched(state))


def test_bind_refuses_a_url_on_another_host_than_host(
    capsys: pytest.CaptureFixture[str], state: Path
) -> None:
    code, _, err = _bind(capsys, state, "w1", "https://ghe.example.com/team/app/pull/3")
    assert (2, []) == (code, _watched(state))
    assert "on ghe.example.com, but the host is github.com; pass --host ghe.example.com" in err


def test_bind_refuses_a_number_github_cannot_hold_in_one_line(
    capsys: pytest.CaptureFixture[str], state: Path
) -> None:
    code, _, err = _bind(capsys, state, "w1", "octo/repo#3000000000")
    assert (2, [], 1) == (code, _watched(state), len(err.splitlines()))
    assert "from 1 to 2147483647" in err


def test_bind_refuses_an_owner_github_would_not_allow_saying_the_forms(
    capsys: pytest.CaptureFixture[str], state: Path
) -> None:
    code, _, err = _bind(capsys, state, "w1", "octo.org/repo#1")
    assert (2, []) == (code, _watched(state))
    assert "owner/name#N, owner/name/pull/N or https://HOST/owner/name/pull/N" in err


def test_the_embedding_api_refuses_a_ref_github_cannot_hold(state: Path) -> None:
    with Registry.open(state) as registry, pytest.raises(RefusedInputError, match="2147483647"):
        registry.bind(
            "w1", PrRef("octo", "repo", 3000000000), orchestrator="o1", publisher=InboxSpec()
        )
