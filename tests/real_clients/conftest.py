"""Fixtures for the ``real_client`` suite: the real Claude Code and Codex CLIs, each run in a
temporary ``HOME`` against the scripted model server on 127.0.0.1 and a fake ``gh``.

Without the CLIs these tests skip with the reason; with ``COMMENT_WAKE_REQUIRE_REAL_CLIENTS=1``
or under ``CI=true`` no ``real_client`` test may skip, for any reason: a skip is turned into a
failure.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from realclient_cli import Cli, find_claude, find_codex, required
from realclient_model import ModelServer
from realclient_sandbox import Sandbox


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    outcome = yield
    report = outcome.get_result()  # type: ignore[attr-defined]
    if report.skipped and item.get_closest_marker("real_client") and required():
        report.outcome = "failed"
        report.longrepr = f"a real_client test may not skip here (CI): {report.longrepr}"


def _cli(found: Cli | str) -> Cli:
    if isinstance(found, str):
        if required():
            pytest.fail(f"the real CLI is required here: {found}")
        pytest.skip(found)
    return found


@pytest.fixture(scope="session")
def claude_cli() -> Cli:
    return _cli(find_claude())


@pytest.fixture(scope="session")
def codex_cli() -> Cli:
    return _cli(find_codex())


@pytest.fixture
def model() -> Iterator[ModelServer]:
    server = ModelServer().start()
    yield server
    server.stop()


@pytest.fixture
def sandbox(tmp_path: Path, model: ModelServer) -> Sandbox:
    return Sandbox(root=tmp_path, model=model)
