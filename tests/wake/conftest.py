"""Builders for the wake core's tests: a time origin and an in-memory service."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from comment_wake.wake import WakeConfig
from comment_wake.wake.testing import WakeSim

T0 = datetime(2025, 6, 2, 9, 0, tzinfo=UTC)


def _at(seconds: float = 0, *, minutes: float = 0, hours: float = 0) -> datetime:
    return T0 + timedelta(seconds=seconds, minutes=minutes, hours=hours)


@pytest.fixture
def at() -> Any:
    """``at(s, minutes=m, hours=h)``: a time that many after the tests' origin."""
    return _at


@pytest.fixture
def make_sim() -> Any:
    """``make_sim(**config)``: a service with alice (the viewer) and bob as writers, whose
    first look (the baseline) has already happened on an empty PR at the origin."""

    def make(*, baseline: bool = True, **config: Any) -> WakeSim:
        sim = WakeSim(config=WakeConfig(**config))
        sim.permissions.update({"alice": "admin", "bob": "write", "carol": "write"})
        if baseline:
            sim.poll(_at(-60))
        return sim

    return make
