"""The app is assembled in one place: only ``comment_wake/app/_root.py`` builds the parts.

The daemon, the replay and the demo build the app through ``open_app``.  A package's own
``testing`` module may build its own class alone (the service's unit rig builds
``CommentWake`` to inject a permission checker); ``doctor`` asks GitHub through the
root's ``open_monitor``; nothing else in ``src/`` may.
"""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SRC = REPO / "src" / "comment_wake"
ROOT = SRC / "app" / "_root.py"
PARTS = {"Monitor", "CommentWake", "DeliveryLoop", "Poller", "MonitorNotices", "Permissions"}


def _constructed(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call):
            f = node.func
            name = f.id if isinstance(f, ast.Name) else getattr(f, "attr", "")
            if name in PARTS:
                found.add(name)
    return found


def _allowed(path: Path) -> set[str]:
    if path == ROOT:
        return {"Monitor", "CommentWake", "DeliveryLoop"}
    if path == SRC / "service" / "testing.py":
        return {"CommentWake", "Permissions"}
    return set()


def test_only_the_composition_root_constructs_the_apps_parts() -> None:
    offenders = {
        str(path.relative_to(REPO)): sorted(_constructed(path) - _allowed(path))
        for path in sorted(SRC.rglob("*.py"))
        if _constructed(path) - _allowed(path)
    }
    assert {} == offenders


def test_the_composition_root_constructs_each_part_once() -> None:
    tree = ast.parse(ROOT.read_text(encoding="utf-8"))
    calls = [
        node.func.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in PARTS
    ]
    assert ["CommentWake", "DeliveryLoop", "Monitor"] == sorted(calls)
