"""``python -m review_monitor queries`` as a subprocess."""

from __future__ import annotations

import subprocess
import sys

from graphql import parse
from graphql.language import OperationDefinitionNode

from review_monitor.github import all_documents


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "review_monitor", *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_queries_prints_every_document_named_and_separated() -> None:
    out = _run("queries")
    chunks = out.stdout.rstrip("\n").split("\n---\n")
    expected = [f"# name: {name}\n{doc.strip()}" for name, doc in all_documents()]
    assert (0, "", expected) == (out.returncode, out.stderr, chunks)


def test_queries_output_has_no_separator_at_either_end() -> None:
    lines = _run("queries").stdout.splitlines()
    assert ("# name: ", True) == (lines[0][:8], lines[-1] != "---")


def test_each_printed_document_parses_as_graphql() -> None:
    chunks = _run("queries").stdout.rstrip("\n").split("\n---\n")
    parsed = [len(parse(c).definitions) > 0 for c in chunks]
    assert [True] * len(all_documents()) == parsed


def test_each_printed_document_declares_its_variables() -> None:
    chunks = _run("queries").stdout.rstrip("\n").split("\n---\n")
    declared = [
        bool(d.variable_definitions)
        for c in chunks
        for d in parse(c).definitions
        if isinstance(d, OperationDefinitionNode)
    ]
    assert [True] * len(all_documents()) == declared


def test_an_unknown_command_is_a_usage_error() -> None:
    out = _run("nonsense")
    assert (2, "") == (out.returncode, out.stdout)
