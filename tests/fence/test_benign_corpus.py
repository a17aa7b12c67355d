"""The benign corpus (fixtures/fence/benign-comments.json): ordinary review text is left
alone apart from NFKC, forbidden code points and hidden marks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import unicodedata2  # type: ignore[import-not-found]

import untrusted_fence as uf

CORPUS = Path(__file__).resolve().parents[2] / "fixtures" / "fence" / "benign-comments.json"
COMMENTS: list[str] = json.loads(CORPUS.read_text(encoding="utf-8"))["comments"]


def _unmarked(cleaned: str) -> str:
    """The cleaned text with each hidden mark replaced by what it holds."""
    out, pos = [], 0
    while (start := cleaned.find(uf.HIDDEN_OPEN, pos)) >= 0:
        end = cleaned.index(uf.HIDDEN_CLOSE, start)
        out += [cleaned[pos:start], cleaned[start + len(uf.HIDDEN_OPEN) : end]]
        pos = end + 1
    out.append(cleaned[pos:])
    return "".join(out)


def _expected(text: str) -> str:
    kept = "".join(c for c in text if c in "\t\n" or not uf.is_forbidden(ord(c)))
    normal: str = unicodedata2.normalize("NFKC", kept)
    return normal


def test_the_corpus_holds_at_least_200_comments() -> None:
    assert len(COMMENTS) >= 200


@pytest.mark.parametrize("comment", COMMENTS)
def test_clean_leaves_a_benign_comment_unchanged(comment: str) -> None:
    assert _expected(comment) == _unmarked(uf.clean(comment))
