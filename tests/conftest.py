"""Shared fixtures.  ``shared_dir`` gives ``../shared/`` or skips (fails under CI)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# Hypothesis: no per-example deadline on a shared 2-core machine; derandomised under CI so a
# run is reproducible.  Individual tests set their own max_examples.
settings.register_profile("default", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile(
    "ci", deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("ci" if os.environ.get("CI") else "default")

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"
REAL_CLIENTS = Path(__file__).resolve().parent / "real_clients"


def pytest_report_header(config: pytest.Config) -> list[str]:
    """One line per real CLI the ``real_client`` suite found, with its version."""
    sys.path.insert(0, str(REAL_CLIENTS))
    import realclient_cli

    return realclient_cli.header_lines()


@pytest.fixture
def shared_dir() -> Path:
    """The project's reference data beside the clone; absent in a user's clone."""
    if SHARED.is_dir():
        return SHARED
    reason = f"{SHARED} is absent (it holds reference data beside a developer's clone)"
    if os.environ.get("COMMENT_WAKE_REQUIRE_SHARED") == "1":
        pytest.fail(f"COMMENT_WAKE_REQUIRE_SHARED=1 but {reason}")
    pytest.skip(reason)


@pytest.fixture
def anyio_backend() -> str:
    """Async tests run on asyncio only."""
    return "asyncio"


@pytest.fixture
def repo_root() -> Path:
    return REPO
