"""Every adversarial vector of fixtures/fence/vectors.json through the invariants."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import untrusted_fence as uf

CORPUS = Path(__file__).resolve().parents[2] / "fixtures" / "fence" / "vectors.json"


def test_corpus_file_is_plain_ascii_with_enough_vectors_in_every_category(
    vectors: list[dict[str, Any]],
) -> None:
    CORPUS.read_bytes().decode("ascii")
    categories = {v["category"] for v in vectors}
    assert len(vectors) >= 60
    assert {"invisible", "marker", "hidden", "ansi", "structure"} == categories


def test_every_vector_keeps_the_structural_invariants(
    vectors: list[dict[str, Any]],
    unescape: Callable[[str], str],
    check: Callable[[uf.Fenced], None],
) -> None:
    for vector in vectors:
        raw = unescape(vector["input"])
        fenced = uf.fence(raw, source="@mallory", rng=random.Random(7))
        check(fenced)
        shown = [t for k, t in uf.plain(raw).pieces if k == "raw"]
        assert shown == [uf.clean(t) for t in shown], vector["id"]


@pytest.mark.parametrize(
    "field", ["absent", "visible", "hidden", "target", "no_code_points", "blank"]
)
def test_every_vector_meets_its_own_expectations(
    field: str,
    vectors: list[dict[str, Any]],
    unescape: Callable[[str], str],
    parts_hidden: Callable[[str], list[str]],
    shown: Callable[[str], str],
) -> None:
    failures = []
    for vector in vectors:
        if field not in vector:
            continue
        view = uf.render(unescape(vector["input"]))
        body = view.text
        visible = shown(body)
        targets = "\n".join(t for k, t in view.pieces if k == "target")
        hidden = "\n".join(parts_hidden(body))
        for item in vector[field] if isinstance(vector[field], list) else [vector[field]]:
            want = unescape(item) if isinstance(item, str) else item
            if field == "absent":
                ok = want.casefold() not in body.casefold()
            elif field == "visible":
                ok = want in visible
            elif field == "hidden":
                ok = want in hidden and want not in visible
            elif field == "target":
                ok = want in targets
            elif field == "no_code_points":
                ok = chr(int(want, 16)) not in body
            else:
                ok = uf.shows_nothing(unescape(vector["input"])) == want
            if not ok:
                failures.append((vector["id"], item, body))
    assert failures == []
