"""Every public module's ``__all__`` both ways: each public name it defines or re-exports is
listed, and each listed name exists and is documented.

A module's own public names are those it defines (a class, a function, an assignment)
and, for a package, those its ``__init__`` takes from its own modules by a relative
import; names imported from elsewhere are not its own.  Documented means a docstring of
its own, a string right after its assignment (an attribute docstring, in any of the
three packages, since a package may re-export a name of the one below it), or the name
in backticks somewhere in docs/.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
ROOTS = {
    "untrusted_fence": REPO / "fence" / "src",
    "review_monitor": REPO / "monitor" / "src",
    "comment_wake": REPO / "src",
}


def _public_modules() -> list[str]:
    found: list[str] = []
    for package, root in ROOTS.items():
        for path in sorted((root / package).rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            if any(p.startswith("_") for p in parts) or parts[-1] == "__main__":
                continue
            source = path.read_text(encoding="utf-8")
            if "__all__" in source:
                found.append(".".join(parts))
    return found


MODULES = _public_modules()
DOCS = "\n".join(p.read_text(encoding="utf-8") for p in sorted((REPO / "docs").rglob("*.md")))


def _tree(name: str) -> ast.Module:
    module = importlib.import_module(name)
    assert module.__file__ is not None
    return ast.parse(Path(module.__file__).read_text(encoding="utf-8"))


def _is_type_checking(node: ast.stmt) -> bool:
    return isinstance(node, ast.If) and ast.unparse(node.test) in (
        "TYPE_CHECKING",
        "typing.TYPE_CHECKING",
    )


def _statements(tree: ast.Module) -> list[ast.stmt]:
    """The module's top-level statements, those under ``if TYPE_CHECKING:`` included: a
    package that loads its names on first use (``lazy_exports``) imports them there."""
    out: list[ast.stmt] = []
    for node in tree.body:
        out += node.body if _is_type_checking(node) else [node]  # type: ignore[attr-defined]
    return out


def _own_names(tree: ast.Module, is_package: bool) -> set[str]:
    names: set[str] = set()
    for node in _statements(tree):
        if isinstance(node, ast.ImportFrom) and node.level > 0 and is_package:
            names.update(a.asname or a.name for a in node.names)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    # ``TYPE_CHECKING = False``: the idiom that spares a module importing ``typing``.
    return {n for n in names if not n.startswith("_")} - {"TYPE_CHECKING"}


def _attribute_docstring(name: str, module_name: str) -> bool:
    """``name = ...`` followed by a string literal in the module that defines it."""
    for candidate in (module_name, *[m for m in sys.modules if m.startswith(module_name)]):
        module = sys.modules.get(candidate)
        if module is None or getattr(module, "__file__", None) is None:
            continue
        body = ast.parse(Path(module.__file__).read_text(encoding="utf-8")).body  # type: ignore[arg-type]
        for i, node in enumerate(body):
            targets = (
                node.targets
                if isinstance(node, ast.Assign)
                else [node.target]
                if isinstance(node, ast.AnnAssign)
                else []
            )
            if any(isinstance(t, ast.Name) and t.id == name for t in targets):
                after = body[i + 1] if i + 1 < len(body) else None
                if isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant):
                    return isinstance(after.value.value, str)
    return False


def _documented(module_name: str, name: str) -> bool:
    value = getattr(importlib.import_module(module_name), name)
    if inspect.isclass(value):
        if vars(value).get("__doc__"):
            return True
    elif callable(value) and value.__doc__:  # a function, also behind functools.cache
        return True
    return f"`{name}`" in DOCS or any(_attribute_docstring(name, p) for p in ROOTS)


@pytest.mark.parametrize("module_name", MODULES)
def test_every_public_name_is_listed_in_all(module_name: str) -> None:
    module = importlib.import_module(module_name)
    is_package = hasattr(module, "__path__")
    own = _own_names(_tree(module_name), is_package)
    assert [] == sorted(own - set(module.__all__))


@pytest.mark.parametrize("module_name", MODULES)
def test_every_listed_name_exists_and_is_documented(module_name: str) -> None:
    module = importlib.import_module(module_name)
    missing = [n for n in module.__all__ if not hasattr(module, n)]
    undocumented = [
        n for n in module.__all__ if hasattr(module, n) and not _documented(module_name, n)
    ]
    assert ([], []) == (missing, undocumented)
