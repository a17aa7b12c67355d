"""Scenario expectations: the ``[expect]`` table, checked by ``check_expectations``."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest

from comment_wake.replay import ReplayResult, check_expectations

SCENARIOS = Path(__file__).resolve().parents[2] / "fixtures" / "scenarios"

Check = Callable[[Mapping[str, Any], ReplayResult], list[str]]


@pytest.fixture
def problems() -> Check:
    """``problems(expect, result)``: how a replay differs from its scenario's ``[expect]``
    (``comment_wake.replay.check_expectations``, what ``replay --check`` runs)."""
    return check_expectations


@pytest.fixture
def scenarios_dir() -> Path:
    return SCENARIOS
