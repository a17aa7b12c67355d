"""The replay harness: run a scenario (``docs/scenarios.md``) through the real service on a
virtual clock, against ``FakeGitHub``, and print what it decided; ``check_expectations``
compares a replay with its scenario's ``[expect]`` table."""

from __future__ import annotations

from typing import TYPE_CHECKING

from comment_wake._lazy import lazy_exports

if TYPE_CHECKING:
    from ._expect import check_expectations
    from ._output import Line, format_json, format_timeline, iso, sort_lines
    from ._runner import ReplayResult, run_scenario, run_scenario_sync
    from ._scenario import (
        EVENT_KINDS,
        Event,
        InlineSpec,
        PrSpec,
        Scenario,
        ScenarioError,
        WorkerSpec,
        load_scenario,
        parse_scenario,
    )

__all__ = [
    "EVENT_KINDS",
    "Event",
    "InlineSpec",
    "Line",
    "PrSpec",
    "ReplayResult",
    "Scenario",
    "ScenarioError",
    "WorkerSpec",
    "check_expectations",
    "format_json",
    "format_timeline",
    "iso",
    "load_scenario",
    "parse_scenario",
    "run_scenario",
    "run_scenario_sync",
    "sort_lines",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    globals(),
    {
        "._expect": ("check_expectations",),
        "._output": ("Line", "format_json", "format_timeline", "iso", "sort_lines"),
        "._runner": ("ReplayResult", "run_scenario", "run_scenario_sync"),
        "._scenario": (
            "EVENT_KINDS",
            "Event",
            "InlineSpec",
            "PrSpec",
            "Scenario",
            "ScenarioError",
            "WorkerSpec",
            "load_scenario",
            "parse_scenario",
        ),
    },
)
