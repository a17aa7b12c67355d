"""Every scenario in fixtures/scenarios (one per test in the seed's list) through the real
harness, checked against its own ``[expect]`` table."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from comment_wake.replay import load_scenario, run_scenario

SCENARIOS = sorted((Path(__file__).resolve().parents[2] / "fixtures" / "scenarios").glob("*.toml"))


def test_there_is_a_scenario_per_seed_test() -> None:
    assert 30 <= len(SCENARIOS)


@pytest.mark.anyio
@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem for p in SCENARIOS])
async def test_scenario_meets_its_expectations(path: Path, problems: Any) -> None:
    scenario = load_scenario(path)
    result = await run_scenario(scenario)
    assert scenario.expect, "a scenario states what it expects"
    assert [] == problems(scenario.expect, result)
