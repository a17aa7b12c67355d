"""``comment-wake demo``: the real daemon, FakeGitHub on loopback and a scripted story.

    result = anyio.run(play, load_story(), print_event)

``play`` runs ``comment_wake.daemon.Daemon`` (the object ``comment-wake run`` uses) with
its real store, outbox and inbox publisher in a temporary state directory, against a
``FakeGitHub`` served over HTTP on 127.0.0.1, and plays the story shipped in this package
(``story.toml``): each step does one thing on GitHub, and the demo waits for the decision
and the notice the rules call for, reporting any that never came.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from comment_wake._lazy import lazy_exports

if TYPE_CHECKING:
    from ._runner import DemoEvent, DemoResult, demo_config, demo_config_text, play
    from ._story import STEP_KINDS, Expectation, Step, Story, StoryError, load_story, parse_story
    from ._transcript import ClaudeTranscript

__all__ = [
    "STEP_KINDS",
    "ClaudeTranscript",
    "DemoEvent",
    "DemoResult",
    "Expectation",
    "Step",
    "Story",
    "StoryError",
    "demo_config",
    "demo_config_text",
    "load_story",
    "parse_story",
    "play",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    globals(),
    {
        "._runner": ("DemoEvent", "DemoResult", "demo_config", "demo_config_text", "play"),
        "._story": (
            "STEP_KINDS",
            "Expectation",
            "Step",
            "Story",
            "StoryError",
            "load_story",
            "parse_story",
        ),
        "._transcript": ("ClaudeTranscript",),
    },
)
