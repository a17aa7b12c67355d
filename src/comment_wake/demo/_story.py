"""The demo's story: a small TOML file shipped as package data, parsed into frozen data.

The format is the demo's own (``story.toml`` documents it): one PR, one worker, and steps
that each do one thing on GitHub and name the decisions and the notice they must cause.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Any, Literal

__all__ = ["STEP_KINDS", "Expectation", "Step", "Story", "StoryError", "load_story", "parse_story"]

StepKind = Literal["comment", "review", "own-post", "merge"]
STEP_KINDS: tuple[str, ...] = ("comment", "review", "own-post", "merge")
"""The kinds of step a demo story may have."""
_OUTCOMES = ("wake", "held", "retry", "skip", "drop")
_TOP = frozenset(
    {"title", "repo", "number", "pr_title", "viewer", "worker", "orchestrator", "permissions"}
)
_STEP = frozenset(
    {"kind", "author", "body", "state", "say", "expect", "notice", "wait", "wait_gap"}
)


class StoryError(ValueError):
    """The story file is malformed; the message names the step and the key."""


@dataclass(frozen=True)
class Expectation:
    """One decision a comment must get: an outcome and its reason."""

    outcome: str
    reason: str

    def __str__(self) -> str:
        return f"{self.outcome} {self.reason}"


@dataclass(frozen=True)
class Step:
    kind: StepKind
    say: str
    author: str | None = None
    body: str = ""
    state: str = "COMMENTED"
    expect: tuple[Expectation, ...] = ()
    notice: str | None = None
    wait: bool = True  # wait for what this step expects before the next one
    wait_gap: bool = False  # first let the rate limit's minimum gap since the last wake pass


@dataclass(frozen=True)
class Story:
    title: str
    repo: str
    number: int
    pr_title: str
    viewer: str
    worker: str
    orchestrator: str
    permissions: Mapping[str, str]
    steps: tuple[Step, ...]


def _str(table: Mapping[str, Any], key: str, where: str, default: str | None = None) -> str:
    value = table.get(key, default)
    if not isinstance(value, str) or not value:
        raise StoryError(f"{where}: {key!r} must be a non-empty string")
    return value


def _expectation(text: object, where: str) -> Expectation:
    parts = text.split() if isinstance(text, str) else []
    if len(parts) != 2 or parts[0] not in _OUTCOMES:
        raise StoryError(f"{where}: each expect entry is 'OUTCOME REASON', not {text!r}")
    return Expectation(parts[0], parts[1])


def _step(n: int, raw: object) -> Step:
    where = f"step {n}"
    if not isinstance(raw, dict):
        raise StoryError(f"{where}: a step is a table")
    kind = raw.get("kind")
    if kind not in STEP_KINDS:
        raise StoryError(f"{where}: 'kind' must be one of {', '.join(STEP_KINDS)}")
    where = f"step {n} ({kind})"
    unknown = sorted(set(raw) - _STEP)
    if unknown:
        raise StoryError(f"{where}: unknown key {unknown[0]!r}")
    expect = raw.get("expect", [])
    if not isinstance(expect, list):
        raise StoryError(f"{where}: 'expect' is a list")
    author = raw.get("author")
    if kind in ("comment", "review") and not isinstance(author, str):
        raise StoryError(f"{where}: the key 'author' is missing")
    if kind in ("comment", "own-post") and not isinstance(raw.get("body"), str):
        raise StoryError(f"{where}: the key 'body' is missing")
    notice = raw.get("notice")
    if notice is not None and not isinstance(notice, str):
        raise StoryError(f"{where}: 'notice' is a notice kind")
    for flag in ("wait", "wait_gap"):
        if not isinstance(raw.get(flag, False), bool):
            raise StoryError(f"{where}: {flag!r} is true or false")
    return Step(
        kind=kind,
        say=_str(raw, "say", where),
        author=author,
        body=str(raw.get("body", "")),
        state=str(raw.get("state", "COMMENTED")),
        expect=tuple(_expectation(e, where) for e in expect),
        notice=notice,
        wait=bool(raw.get("wait", True)),
        wait_gap=bool(raw.get("wait_gap", False)),
    )


def parse_story(text: str) -> Story:
    """Parse a story; ``StoryError`` names the step and key that are wrong."""
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise StoryError(f"not TOML: {exc}") from None
    unknown = sorted(set(raw) - _TOP - {"steps"})
    if unknown:
        raise StoryError(f"story: unknown key {unknown[0]!r}")
    number = raw.get("number")
    if not isinstance(number, int) or number < 1:
        raise StoryError("story: 'number' must be a positive integer")
    permissions = raw.get("permissions", {})
    if not isinstance(permissions, dict) or not all(
        isinstance(v, str) for v in permissions.values()
    ):
        raise StoryError("story: [permissions] maps logins to roles")
    steps = raw.get("steps", [])
    if not isinstance(steps, list) or not steps:
        raise StoryError("story: at least one [[steps]] table")
    return Story(
        title=_str(raw, "title", "story"),
        repo=_str(raw, "repo", "story"),
        number=number,
        pr_title=_str(raw, "pr_title", "story"),
        viewer=_str(raw, "viewer", "story"),
        worker=_str(raw, "worker", "story"),
        orchestrator=_str(raw, "orchestrator", "story"),
        permissions=dict(permissions),
        steps=tuple(_step(n, s) for n, s in enumerate(steps, start=1)),
    )


def load_story() -> Story:
    """The story shipped inside the package (works from an installed wheel too)."""
    text = resources.files("comment_wake.demo").joinpath("story.toml").read_text("utf-8")
    return parse_story(text)
