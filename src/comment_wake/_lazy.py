"""Lazy package exports: a package's public names are imported on first use."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(
    name: str, namespace: dict[str, Any], modules: Mapping[str, Sequence[str]]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` (PEP 562) of module ``name``, whose ``globals()``
    is ``namespace``, that import each public name's module on first use, so importing
    ``name`` costs nothing until a name is used.

    ``modules`` maps a module, written as in the module's own ``from ... import``
    (``"._inbox"``, or absolute), to the names it gives; ``"OWN as PUBLIC"`` renames.  A
    command that needs one light name (a hook's ``inbox take``) then never pays for the
    package's heavy parts.
    """
    where: dict[str, tuple[str, str]] = {}
    for module, names in modules.items():
        for entry in names:
            own, _, public = entry.partition(" as ")
            where[public or own] = (module, own)

    def getattr_(attr: str) -> Any:
        found = where.get(attr)
        if found is None:
            raise AttributeError(f"module {name!r} has no attribute {attr!r}")
        module, own = found
        value = getattr(importlib.import_module(module, namespace["__package__"]), own)
        namespace[attr] = value
        return value

    def dir_() -> list[str]:
        # The public names and the module's own private ones; not the names the lazy
        # table's own code brings in (``TYPE_CHECKING``, ``lazy_exports``, ``annotations``).
        return sorted({*where, *(n for n in namespace if n.startswith("_"))})

    return getattr_, dir_
