"""Token discovery: GH_TOKEN, GITHUB_TOKEN, then a real ``gh auth token`` process."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from review_monitor import TokenNotFoundError
from review_monitor.github import find_token


def _fake_gh(folder: Path, script: str) -> dict[str, str]:
    """Put an executable ``gh`` in ``folder``; return an environment whose PATH is only it."""
    gh = folder / "gh"
    gh.write_text("#!/bin/sh\n" + script)
    gh.chmod(gh.stat().st_mode | stat.S_IXUSR)
    return {"PATH": str(folder)}


def test_gh_token_comes_first() -> None:
    env = {"GH_TOKEN": "ghp_one", "GITHUB_TOKEN": "ghp_two"}

    assert "ghp_one" == find_token(env=env)


def test_github_token_is_second() -> None:
    assert "ghp_two" == find_token(env={"GITHUB_TOKEN": " ghp_two\n", "PATH": ""})


def test_blank_variables_are_skipped(tmp_path: Path) -> None:
    env = {"GH_TOKEN": "  ", "GITHUB_TOKEN": "", "PATH": str(tmp_path)}

    with pytest.raises(TokenNotFoundError):
        find_token(env=env)


def test_gh_auth_token_is_asked_last(tmp_path: Path) -> None:
    env = _fake_gh(tmp_path, 'echo "$@" > "${0%/*}/args"\necho gho_fromgh\n')

    token = find_token(env=env)

    assert ("gho_fromgh", "auth token") == (token, (tmp_path / "args").read_text().strip())


def test_gh_is_asked_for_the_enterprise_host(tmp_path: Path) -> None:
    env = _fake_gh(tmp_path, 'echo "$@" > "${0%/*}/args"\necho gho_ghe\n')

    find_token("ghe.example.com", env=env)

    assert "auth token --hostname ghe.example.com" == (tmp_path / "args").read_text().strip()


def test_enterprise_host_prefers_the_enterprise_variable() -> None:
    env = {"GH_TOKEN": "ghp_dotcom", "GH_ENTERPRISE_TOKEN": "ghp_ghes"}

    assert "ghp_ghes" == find_token("ghe.example.com", env=env)


def test_gh_failure_raises_token_not_found_without_echoing_gh(tmp_path: Path) -> None:
    env = _fake_gh(tmp_path, "echo ghp_LEAKED_on_stderr >&2\nexit 4\n")

    with pytest.raises(TokenNotFoundError) as caught:
        find_token(env=env)

    assert "ghp_LEAKED" not in str(caught.value)
    assert "exited with status 4" in str(caught.value)


def test_message_says_what_to_set(tmp_path: Path) -> None:
    with pytest.raises(TokenNotFoundError) as caught:
        find_token(env={"PATH": str(tmp_path)})

    assert "set GH_TOKEN or GITHUB_TOKEN, or sign in with `gh auth login`" in str(caught.value)


def test_gh_that_hangs_is_given_up_after_the_timeout(tmp_path: Path) -> None:
    env = _fake_gh(tmp_path, "exec /bin/sleep 30\n")

    with pytest.raises(TokenNotFoundError) as caught:
        find_token(env=env, timeout=0.5)

    assert "did not answer within 0.5s" in str(caught.value)


def test_reads_os_environ_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GH_TOKEN", "ghp_from_environ")

    assert "ghp_from_environ" == find_token()
