"""A consistent copy of a live store, for the dry run."""

from __future__ import annotations

import sqlite3
from pathlib import Path

__all__ = ["snapshot_store"]


def snapshot_store(source: Path, target: Path) -> None:
    """Copy the store at ``source`` (if any) to ``target`` with SQLite's backup API, which
    reads a consistent snapshot even while a daemon writes."""
    if not source.exists():
        return
    src = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
    try:
        dst = sqlite3.connect(target)
        try:
            src.backup(dst)
        finally:
            dst.close()
    finally:
        src.close()
