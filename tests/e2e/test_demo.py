"""``comment-wake demo``: the shipped story plays through, and its format is checked."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from comment_wake.cli._demo import _summary
from comment_wake.demo import DemoResult, StoryError, load_story, parse_story

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


def _result(tmp_path: Path) -> DemoResult:
    return DemoResult(
        ok=True,
        failures=(),
        seconds=15.0,
        state_dir=tmp_path / "state",
        inbox=tmp_path / "state" / "inbox" / "w",
        transcript=tmp_path / "t.jsonl",
        config=tmp_path / "config.toml",
        notices=5,
        comments={"c1": "IC_1", "c3": "IC_3"},
        pr="o/r#7",
        ids={"c1": 1001, "c3": 1003},
    )


def test_the_summary_prints_explain_with_the_database_id_explain_takes(tmp_path: Path) -> None:
    out = io.StringIO()
    _summary(out, _result(tmp_path), as_json=False)
    where = f"--config {tmp_path / 'config.toml'} --state-dir {tmp_path / 'state'}"
    assert [
        f"Why c3 woke nobody: comment-wake explain {where} o/r#7 1003",
        "Any other comment: the same command with the id the timeline shows beside its label "
        "(c1 1001, c3 1003)",
    ] == out.getvalue().splitlines()[-2:]


@pytest.mark.slow
def test_every_label_on_the_demo_timeline_can_be_explained_as_shown(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "comment_wake", "demo", "--json", "--dir", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    summary = lines[-1]
    shown = [line["text"] for line in lines if line["type"] == "github" and "comment" in line]
    labels = [f"{label} (" for label in summary["ids"]]
    where = ["--config", summary["config"], "--state-dir", summary["state_dir"]]
    explained = []
    for label, db in summary["ids"].items():
        ran = subprocess.run(
            [sys.executable, "-m", "comment_wake", "explain", *where, summary["pr"], str(db)],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        explained.append((label, ran.returncode, f"database id {db}," in ran.stdout))
    assert [f"c{n}" for n in range(1, 9)] == list(summary["ids"])
    assert [True] * 8 == [
        text.startswith(label) and f", id {db}) " in text
        for text, label, db in zip(shown, labels, summary["ids"].values(), strict=True)
    ]
    assert [(label, 0, True) for label in summary["ids"]] == explained


def test_the_readme_and_help_give_the_demo_the_same_duration(repo_root: Path) -> None:
    readme = (repo_root / "README.md").read_text(encoding="utf-8")
    said = re.search(r"plays the demo below \(about ([0-9]+) seconds", readme)
    done = subprocess.run(
        [sys.executable, "-m", "comment_wake", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    helped = re.search(r"loopback, ~([0-9]+) s\)", " ".join(done.stdout.split()))
    assert ("20", "20") == (said and said[1], helped and helped[1])
