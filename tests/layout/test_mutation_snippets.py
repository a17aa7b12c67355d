"""The mutation script cannot rot unnoticed: every mutation's snippet occurs exactly once
in the file it mutates (issue 25, item 20: a refactor once left one occurring twice, and
``tests/mutation/run.py`` refused to run for a session)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parents[2]


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("mutation_run", REPO / "tests/mutation/run.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while defining
    spec.loader.exec_module(module)
    return module


def test_every_mutation_snippet_occurs_exactly_once_in_its_file() -> None:
    script = _script()
    counts = {
        m.name: (REPO / m.path).read_text(encoding="utf-8").count(m.old) for m in script.MUTATIONS
    }
    assert {} == {name: n for name, n in counts.items() if n != 1}


def test_every_mutation_names_suites_that_exist() -> None:
    script = _script()
    missing = {
        m.name: suite
        for m in script.MUTATIONS
        for suite in m.suites
        if not (REPO / suite.split("::")[0]).exists()
    }
    assert {} == missing
