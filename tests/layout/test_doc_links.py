"""Every relative link in the README and docs/ names a file that exists."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
_LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def test_relative_links_in_readme_and_docs_resolve() -> None:
    pages = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]
    broken = [
        f"{page.relative_to(REPO)} -> {target}"
        for page in pages
        for target in _LINK.findall(page.read_text(encoding="utf-8"))
        if "://" not in target
        and not target.startswith("mailto:")
        and not (page.parent / target).exists()
    ]
    assert [] == broken
