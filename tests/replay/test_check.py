"""``comment-wake replay --check``: a scenario held to its own ``[expect]`` table."""

from __future__ import annotations

from pathlib import Path

import pytest

from comment_wake.cli import main

SCENARIO = "bot-comments-no-permission-lookup.toml"


def test_check_of_a_scenario_that_meets_its_expectations_exits_0(
    scenarios_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["replay", "--check", str(scenarios_dir / SCENARIO)])
    assert (0, "") == (code, capsys.readouterr().err)


def test_check_prints_one_line_per_unmet_expectation_and_exits_1(
    scenarios_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = (scenarios_dir / SCENARIO).read_text(encoding="utf-8")
    wrong = text.replace("wake = []", 'wake = ["IC_dep"]').replace(
        "permission_lookups = 0", "permission_lookups = 3"
    )
    path = tmp_path / "wrong.toml"
    path.write_text(wrong, encoding="utf-8")
    code = main(["replay", "--check", str(path)])
    lines = capsys.readouterr().err.splitlines()
    assert (1, [f"{path}: woken", f"{path}: permission lookups"]) == (
        code,
        [line.split(": expected")[0] for line in lines],
    )


def test_without_check_the_expectations_are_not_held(
    scenarios_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = (scenarios_dir / SCENARIO).read_text(encoding="utf-8")
    path = tmp_path / "wrong.toml"
    path.write_text(text.replace("wake = []", 'wake = ["IC_dep"]'), encoding="utf-8")
    assert 0 == main(["replay", str(path)])
