"""Dependencies run one way: untrusted_fence <- review_monitor <- comment_wake."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PACKAGES = {
    "untrusted_fence": REPO / "fence" / "src" / "untrusted_fence",
    "review_monitor": REPO / "monitor" / "src" / "review_monitor",
    "comment_wake": REPO / "src" / "comment_wake",
}
# What each package may import from the project (itself aside).
ALLOWED = {
    "untrusted_fence": set(),
    "review_monitor": {"untrusted_fence"},
    "comment_wake": {"untrusted_fence", "review_monitor"},
}
# Third-party imports the fence may use at run time: GitHub's renderer and an HTML5 parser
# (pinned in fence/pyproject.toml), and the pinned Unicode tables.
FENCE_THIRD_PARTY = {"cmarkgfm", "regex", "selectolax", "unicodedata2"}


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
    return found


@pytest.mark.parametrize("package", sorted(PACKAGES))
def test_package_imports_only_packages_below_it(package: str) -> None:
    forbidden = set(PACKAGES) - ALLOWED[package] - {package}
    offenders = {
        str(path.relative_to(REPO)): sorted(_imports(path) & forbidden)
        for path in PACKAGES[package].rglob("*.py")
        if _imports(path) & forbidden
    }
    assert {} == offenders


def test_fence_uses_no_third_party_library_but_its_renderer_parser_and_tables() -> None:
    import sys

    stdlib = set(sys.stdlib_module_names)
    offenders = {
        str(path.relative_to(REPO)): sorted(
            _imports(path) - stdlib - FENCE_THIRD_PARTY - {"untrusted_fence"}
        )
        for path in PACKAGES["untrusted_fence"].rglob("*.py")
        if _imports(path) - stdlib - FENCE_THIRD_PARTY - {"untrusted_fence"}
    }
    assert {} == offenders


def test_fence_never_uses_the_interpreters_unicode_tables() -> None:
    offenders = [
        str(path.relative_to(REPO))
        for path in PACKAGES["untrusted_fence"].rglob("*.py")
        if "unicodedata" in _imports(path)
    ]
    assert [] == offenders
