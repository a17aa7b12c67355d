"""What a command publisher's child finds in its environment: an allow-list, never a secret."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from comment_wake.delivery import (
    CHILD_ENV,
    WITHHELD_ENV,
    CommandPublisher,
    child_env_allows,
    child_environment,
)
from review_monitor import Notice

NoticeFactory = Callable[..., Notice]

pytestmark = pytest.mark.anyio

PY = sys.executable

# The daemon's environment in a deployment that has a bit of everything.
DAEMON_ENV = {
    "PATH": "/usr/bin",
    "HOME": "/home/op",
    "LOGNAME": "op",
    "LANG": "en_GB.UTF-8",
    "LC_ALL": "en_GB.UTF-8",
    "TZ": "Europe/London",
    "XDG_CONFIG_HOME": "/home/op/.config",
    "https_proxy": "http://proxy:3128",
    "NO_PROXY": "localhost",
    "NODE_EXTRA_CA_CERTS": "/etc/ca.pem",
    "COMMENT_WAKE_STATE_DIR": "/home/op/state",
    "CODEX_HOME": "/home/op/.codex",
    "ANTHROPIC_API_KEY": "sk-ant-worker",
    "OPENAI_BASE_URL": "https://llm.example",
    "GH_TOKEN": "ghp_daemon",
    "GITHUB_TOKEN": "ghp_daemon",
    "COMMENT_WAKE_WEBHOOK_SECRET": "hint-secret",
    "ORCH_HOOK_SECRET": "publisher-secret",
    "AWS_SECRET_ACCESS_KEY": "aws-secret",
    "PROVIDER_KEY": "provider-key",
}


def test_the_child_environment_keeps_only_the_allow_listed_names() -> None:
    allowed = {
        k: v
        for k, v in DAEMON_ENV.items()
        if k
        not in {
            "GH_TOKEN",
            "GITHUB_TOKEN",
            "COMMENT_WAKE_WEBHOOK_SECRET",
            "ORCH_HOOK_SECRET",
            "AWS_SECRET_ACCESS_KEY",
            "PROVIDER_KEY",
        }
    }
    assert allowed == child_environment(DAEMON_ENV)


def test_a_name_the_binding_adds_reaches_the_child() -> None:
    env = child_environment(DAEMON_ENV, extra=("PROVIDER_KEY",))
    assert "provider-key" == env.get("PROVIDER_KEY")


def test_a_withheld_secret_never_passes_even_when_a_binding_asks() -> None:
    env = child_environment(DAEMON_ENV, extra=("GH_TOKEN", "COMMENT_WAKE_WEBHOOK_SECRET"))
    assert set() == {"GH_TOKEN", "COMMENT_WAKE_WEBHOOK_SECRET"} & env.keys()


def test_a_name_in_withhold_beats_the_allow_list_and_the_binding() -> None:
    environ = {"OPENAI_HOOK_SECRET": "x", "PROVIDER_KEY": "y"}
    withhold = ("OPENAI_HOOK_SECRET", "PROVIDER_KEY")
    assert {} == child_environment(environ, extra=("PROVIDER_KEY",), withhold=withhold)


@pytest.mark.parametrize(
    "name",
    ["http_proxy", "HTTPS_PROXY", "no_proxy", "LC_MESSAGES", "XDG_RUNTIME_DIR", "TMPDIR"],
)
def test_proxies_locale_and_xdg_names_are_allowed_in_both_spellings(name: str) -> None:
    assert child_env_allows(name)


@pytest.mark.parametrize("name", sorted(WITHHELD_ENV))
def test_no_withheld_name_is_allowed(name: str) -> None:
    assert not child_env_allows(name)


def test_comment_wake_names_that_hold_no_secret_are_the_only_ones_allowed() -> None:
    allowed = sorted(n for n in CHILD_ENV if n.startswith("COMMENT_WAKE"))
    assert [
        "COMMENT_WAKE_CONFIG",
        "COMMENT_WAKE_INBOX",
        "COMMENT_WAKE_SESSION_ID",
        "COMMENT_WAKE_STATE_DIR",
    ] == allowed


def test_docs_notice_md_lists_exactly_the_allow_list(repo_root: Path) -> None:
    doc = (repo_root / "docs" / "notice.md").read_text()
    section = doc.split("<!-- child-env -->")[1]
    listed = re.findall(r"`([A-Za-z_]+\*?)`", section)
    assert sorted(CHILD_ENV) == sorted(listed)


async def test_a_command_child_sees_no_daemon_secret_and_the_names_it_was_given(
    make_notice: NoticeFactory, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    for name, value in DAEMON_ENV.items():
        monkeypatch.setenv(name, value)
    out = tmp_path / "env.json"
    probe = sorted(DAEMON_ENV)
    program = (
        "import json, os, sys; sys.stdin.buffer.read(); "
        f"json.dump({{k: os.environ.get(k) for k in {probe!r}}}, open({str(out)!r}, 'w'))"
    )
    publisher = CommandPublisher([PY, "-c", program], pass_env=("PROVIDER_KEY",))
    await publisher.publish(make_notice())
    expected = {
        k: (None if k in {"GH_TOKEN", "GITHUB_TOKEN", "COMMENT_WAKE_WEBHOOK_SECRET"} else v)
        for k, v in DAEMON_ENV.items()
    }
    expected["ORCH_HOOK_SECRET"] = None
    expected["AWS_SECRET_ACCESS_KEY"] = None
    assert expected == json.loads(out.read_text())
