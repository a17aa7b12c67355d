"""docs/notice.md states the key algorithm and an example; both must match the code."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from review_monitor import Notice, PrRef, notice_key


def _blocks(doc: str, lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", doc, flags=re.DOTALL)


def test_the_documented_key_algorithm_is_the_code(repo_root: Path) -> None:
    doc = (repo_root / "docs" / "notice.md").read_text()
    (source,) = [b for b in _blocks(doc, "python") if "def notice_key" in b]
    namespace: dict[str, Any] = {}
    exec(source, namespace)
    documented = namespace["notice_key"](
        "w-42", "ghe.example", "o/r", 7, "comment-wake", ["b", "a"]
    )
    expected = notice_key(
        "w-42", PrRef("o", "r", 7, host="ghe.example"), "comment-wake", ["a", "b"]
    )
    assert expected == documented


def test_the_documented_example_decodes_with_its_own_key(repo_root: Path) -> None:
    import msgspec

    doc = (repo_root / "docs" / "notice.md").read_text()
    example = next(b for b in _blocks(doc, "json") if '"version": 1' in b)
    notice = msgspec.json.decode(example, type=Notice)
    owner, name = notice.pr.repo.split("/")
    ref = PrRef(owner, name, notice.pr.number, host=notice.pr.host)
    key = notice_key(notice.worker, ref, notice.kind, [i.id for i in notice.items])
    assert (key, 1) == (notice.key, json.loads(example)["version"])
