"""docs/configuration.md lists every key of every table, with the model's unit and default."""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path

from comment_wake.config import key_rows, parse_config

_ROW = re.compile(r"^\| `([a-z_]+)` \| (.+?) \| `(.+?)` \| .+ \|$")
_HEADING = re.compile(r"^## (?:\[([a-z]+)\]|Top-level keys)$")


def _documented(text: str) -> list[tuple[str | None, str, str, str]]:
    rows: list[tuple[str | None, str, str, str]] = []
    table: str | None = None
    in_keys = False
    for line in text.splitlines():
        heading = _HEADING.match(line)
        if heading:
            table, in_keys = heading[1], True
            continue
        if line.startswith("## "):
            in_keys = False
            continue
        row = _ROW.match(line)
        if in_keys and row:
            rows.append((table, row[1], row[2].replace("\\|", "|"), row[3]))
    return rows


def test_the_document_lists_every_key_with_its_unit_and_default(repo_root: Path) -> None:
    text = (repo_root / "docs" / "configuration.md").read_text(encoding="utf-8")
    expected = [(r.table, r.key, r.unit, r.default) for r in key_rows()]
    assert expected == _documented(text)


def test_the_documented_example_is_a_valid_configuration(repo_root: Path) -> None:
    text = (repo_root / "docs" / "configuration.md").read_text(encoding="utf-8")
    example = text.split("```toml\n", 1)[1].split("```", 1)[0]
    config = parse_config(example, source="docs/configuration.md")
    assert timedelta(seconds=2) == config.monitor.poll_interval
