"""``comment-wake demo``: the shipped story plays through, and its format is checked."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from comment_wake.demo import StoryError, load_story, parse_story

_MINIMAL = """
title = "t"
repo = "o/r"
number = 1
pr_title = "p"
viewer = "v"
worker = "w"
orchestrator = "o"
[[steps]]
kind = "merge"
say = "merge it"
"""


def test_the_shipped_story_shows_every_rule() -> None:
    story = load_story()
    expected = {"wake writer", "skip bot", "skip not-writer", "skip own-post", "held rate-limit"}
    shown = {str(e) for step in story.steps for e in step.expect}
    assert expected <= shown
    assert {"comment-wake", "review-verdict", "pr-merged"} <= {s.notice for s in story.steps}


def test_a_minimal_story_parses() -> None:
    assert "merge" == parse_story(_MINIMAL).steps[0].kind


def test_an_unknown_step_key_is_named() -> None:
    with pytest.raises(StoryError, match="step 1 \\(merge\\): unknown key 'colour'"):
        parse_story(_MINIMAL + 'colour = "red"\n')


def test_a_malformed_expectation_is_refused() -> None:
    with pytest.raises(StoryError, match="OUTCOME REASON"):
        parse_story(_MINIMAL + 'expect = ["wake"]\n')


@pytest.mark.slow
def test_the_demo_plays_through_in_under_30_seconds_and_keeps_its_inbox(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "comment_wake", "demo", "--json", "--dir", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    summary = lines[-1]
    kinds = [line["notice_kind"] for line in lines if line["type"] == "notice"]
    assert (0, True, []) == (done.returncode, summary["ok"], summary["failures"])
    assert summary["seconds"] < 30
    assert ["comment-wake", "comment-wake", "comment-wake", "review-verdict", "pr-merged"] == kinds
    assert 5 == len(list(Path(summary["inbox"]).glob("taken/*.json")))
