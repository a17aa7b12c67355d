"""Every duration option of the command line takes the configuration's syntax ("5m");
a bare number stays seconds (issue 25, item 17)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from comment_wake.cli import main
from comment_wake.cli._common import seconds


@pytest.mark.parametrize(
    ("text", "expected"),
    [("5m", 300.0), ("90s", 90.0), ("2h", 7200.0), ("1d", 86400.0), ("90", 90.0), ("1.5", 1.5)],
)
def test_a_duration_option_takes_the_configs_syntax_or_seconds(text: str, expected: float) -> None:
    assert expected == seconds(text)


@pytest.mark.parametrize("text", ["5q", "", "-1", "0", "nan", "inf", "5 m s"])
def test_a_bad_duration_says_what_to_write(text: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError, match='"90s" or "5m"'):
        seconds(text)


@pytest.mark.parametrize("text", ["0s", "0m", "00h"])
def test_a_zero_duration_is_refused_as_a_zero_number_is(text: str) -> None:
    # "0" was refused here while "0s" passed, to be refused later by the publisher spec.
    with pytest.raises(argparse.ArgumentTypeError, match="positive"):
        seconds(text)


def test_bind_timeout_in_minutes_is_stored_in_seconds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    state = ["--state-dir", str(tmp_path / "state")]
    assert 0 == main(["orchestrator", "add", "o1", "--inbox", *state])
    bound = main(
        [
            "bind",
            "w1",
            "octo/repo#1",
            "--orchestrator",
            "o1",
            *state,
            "--timeout",
            "5m",
            "--command",
            "notify",
        ]
    )
    capsys.readouterr()
    assert 0 == main(["list", "--json", *state])
    listed = json.loads(capsys.readouterr().out)
    assert (0, 300.0) == (bound, listed["workers"][0]["publisher"]["timeout"])
