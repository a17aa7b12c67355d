"""Each package's ``__all__`` names exist, and the app's top level loads lazily."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest


@pytest.mark.parametrize("package", ["untrusted_fence", "review_monitor", "comment_wake"])
def test_every_name_in_all_resolves(package: str) -> None:
    module = importlib.import_module(package)
    missing = [name for name in module.__all__ if not hasattr(module, name)]
    assert [] == missing


def test_importing_comment_wake_loads_no_subpackage() -> None:
    code = (
        "import sys, comment_wake; "
        "print(sorted(m for m in sys.modules if m.startswith('comment_wake.')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "[]" == out.stdout.strip()
