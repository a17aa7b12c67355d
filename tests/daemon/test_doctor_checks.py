"""``doctor`` checks what a binding needs: the CLI a recipe runs (not only Python), and that
each bound PR exists and is open (one badge query for all of them), against FakeGitHub on
loopback through ``comment_wake.cli.main``."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from comment_wake.cli import main
from comment_wake.registry import CommandSpec, InboxSpec, Registry
from review_monitor import PrRef

CODEX = (sys.executable, "-m", "comment_wake.delivery.recipes.codex", "--session-id", "t-1")


def _doctor(served: Any, capsys: pytest.CaptureFixture[str]) -> tuple[int, list[str]]:
    capsys.readouterr()
    code = main(["doctor", *served.location()])
    return code, capsys.readouterr().out.splitlines()


def _bind(served: Any, worker: str, pr: PrRef, argv: tuple[str, ...] | None = None) -> None:
    with Registry.open(served.state_dir) as registry:
        if not registry.orchestrators():
            registry.add_orchestrator("orch", InboxSpec())
        publisher = InboxSpec() if argv is None else CommandSpec(argv)
        registry.bind(worker, pr, orchestrator="orch", publisher=publisher)


def _line(lines: list[str], name: str) -> str:
    return next(line for line in lines if line[6:].startswith(name + ":"))


@pytest.fixture
def token(served: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GH_TOKEN", served.token)


@pytest.mark.usefixtures("token")
def test_a_codex_recipe_fails_when_codex_is_not_on_path(
    served: Any,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    _bind(served, "w1", served.pr, CODEX)
    empty = tmp_path / "bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    code, lines = _doctor(served, capsys)
    expected = (
        "FAIL  publisher w1: the codex recipe runs codex, which is not an executable file or "
        "on PATH: install it, or name it with --codex PATH"
    )
    assert (1, expected) == (code, _line(lines, "publisher w1"))


@pytest.mark.usefixtures("token")
def test_a_codex_recipe_is_ok_when_codex_is_on_path(
    served: Any,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    bindir = tmp_path / "bin"
    bindir.mkdir()
    codex = bindir / "codex"
    codex.write_text("#!/bin/sh\nexit 0\n", encoding="utf-8")
    codex.chmod(0o755)
    _bind(served, "w1", served.pr, CODEX)
    monkeypatch.setenv("PATH", str(bindir))
    _, lines = _doctor(served, capsys)
    assert f"ok    publisher w1: codex recipe, {codex}" == _line(lines, "publisher w1")


@pytest.mark.usefixtures("token")
def test_a_recipe_names_its_cli_with_its_flag(
    served: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    _bind(served, "w1", served.pr, (*CODEX, "--codex", "/nonexistent/codex"))
    _, lines = _doctor(served, capsys)
    expected = "FAIL  publisher w1: the codex recipe runs /nonexistent/codex, which is not"
    assert expected == _line(lines, "publisher w1")[: len(expected)]


@pytest.mark.usefixtures("token")
def test_a_bound_pr_that_is_not_found_fails(
    served: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    served.bind()
    _bind(served, "w2", PrRef("octo", "repo", 404))
    code, lines = _doctor(served, capsys)
    expected = "FAIL  pr octo/repo#404: not found: check the number"
    assert (1, expected) == (code, _line(lines, "pr octo/repo#404")[: len(expected)])


@pytest.mark.usefixtures("token")
def test_a_merged_pr_warns(served: Any, capsys: pytest.CaptureFixture[str]) -> None:
    served.bind()
    served.fake.merge(served.pr)
    _, lines = _doctor(served, capsys)
    expected = "WARN  pr octo/repo#1: merged: its comments wake nobody"
    assert expected == _line(lines, "pr octo/repo#1")[: len(expected)]


@pytest.mark.usefixtures("token")
def test_a_closed_pr_warns(served: Any, capsys: pytest.CaptureFixture[str]) -> None:
    served.bind()
    served.fake.close(served.pr)
    _, lines = _doctor(served, capsys)
    expected = "WARN  pr octo/repo#1: closed: its comments wake nobody"
    assert expected == _line(lines, "pr octo/repo#1")[: len(expected)]


@pytest.mark.usefixtures("token")
def test_an_open_pr_is_ok(served: Any, capsys: pytest.CaptureFixture[str]) -> None:
    served.bind()
    _, lines = _doctor(served, capsys)
    assert "ok    pr octo/repo#1: open" == _line(lines, "pr octo/repo#1")


@pytest.mark.usefixtures("token")
def test_every_bound_pr_is_checked_in_one_cheap_query(
    served: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    served.bind()
    for n in range(2, 6):
        _bind(served, f"w{n}", served.fake.add_pr("octo/repo", n))
    _bind(served, "w9", PrRef("octo", "repo", 99))
    served.fake.clear_requests()
    _doctor(served, capsys)
    badges = [r for r in served.fake.requests if r.kind == "badge"]
    assert (1, 1) == (len(badges), badges[0].cost)
