"""Builders for the wake core's tests: a time origin and an in-memory service."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace
from typing import Any

import pytest

import untrusted_fence
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


# The fence library lands separately; until it does, these stand-ins let the core's
# own tests run.  They are used only when untrusted_fence lacks the real functions.
_HIDDEN = re.compile(r"<!--.*?(-->|$)|^\s*\[[^\]]*\]:\s*#\s*\(.*?\)\s*$", re.S | re.M)


def _standin_fence(text: str, *, kind: str, source: str, max_chars: int, rng: Any) -> Any:
    nonce = f"{rng.getrandbits(64):016x}" if rng is not None else "0" * 16
    body = f"BEGIN {kind} from {source} [{nonce}]\n{text[:max_chars]}\nEND [{nonce}]"
    return SimpleNamespace(text=body)


@pytest.fixture(autouse=True)
def _fence_standin(monkeypatch: pytest.MonkeyPatch) -> None:
    if not hasattr(untrusted_fence, "fence"):
        monkeypatch.setattr(untrusted_fence, "clean", lambda t: t, raising=False)
        monkeypatch.setattr(
            untrusted_fence, "is_blank", lambda t: not _HIDDEN.sub("", t).strip(), raising=False
        )
        monkeypatch.setattr(untrusted_fence, "fence", _standin_fence, raising=False)
