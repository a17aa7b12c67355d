"""End to end: the daemon as a subprocess, SIGKILLed 30 times, GitHub failing under it.

One proof run (``harness.run_proof``) serves the whole module: a story of 110 trusted
comments over 12 PRs plus strangers, bots and verdicts, faults injected every second or
two, windows shortened 60-fold (gap 1 s, hour 60 s, day 24 min).  Each test checks one
property of what reached the workers' inboxes.
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def proof(harness: ModuleType, tmp_path_factory: pytest.TempPathFactory) -> Any:
    workdir: Path = tmp_path_factory.mktemp("e2e")
    return harness.run_proof(harness.Settings(), workdir)


def test_the_daemon_was_killed_at_least_30_times_under_faults(proof: Any) -> None:
    assert proof.kills >= 30
    assert {"5xx", "secondary-limit", "partial-graphql"} <= set(proof.faults)


def test_every_trusted_comment_reached_its_worker(proof: Any) -> None:
    assert proof.trusted >= 100
    assert [] == proof.lost


def test_no_trusted_comment_reached_its_worker_twice(proof: Any) -> None:
    assert [] == proof.duplicated


def test_nothing_untrusted_reached_a_worker(proof: Any) -> None:
    assert [] == proof.untrusted_delivered


def test_the_rate_limit_held_across_kills(proof: Any) -> None:
    assert [] == proof.rate_limit_violations


def test_the_token_never_reached_the_daemons_output(proof: Any) -> None:
    assert proof.leaked_token is False
