"""Shared helpers for the fence tests: the vector corpus, strategies and invariant checks."""

from __future__ import annotations

import html
import json
import os
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import regex  # type: ignore[import-untyped]
import unicodedata2  # type: ignore[import-not-found]
from hypothesis import HealthCheck, settings

import untrusted_fence as uf
from untrusted_fence._chars import fold

# The test modules import this directory's helper modules (_oracle, _timing) by name; the
# import mode (importlib) does not put it on the path.
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _oracle import view_classes

settings.register_profile(
    "fence",
    max_examples=int(os.environ.get("FENCE_EXAMPLES", "40")),
    deadline=None,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.function_scoped_fixture,
    ],
)
settings.load_profile("fence")

VECTORS = Path(__file__).resolve().parents[2] / "fixtures" / "fence" / "vectors.json"
_ESCAPE = re.compile(r"\{U\+([0-9A-F]{4,6})\}")
_DI = regex.compile(r"\p{Default_Ignorable_Code_Point}|\p{Noncharacter_Code_Point}")
_BAD_GC = {"Cc", "Cf", "Zl", "Zp", "Co", "Cs", "Cn"}
_COMPACT = re.compile(r"[\s._\-*|/\\'°₀]+")


def decode(text: str) -> str:
    """Turn the corpus's {U+XXXX} escapes into code points."""
    return _ESCAPE.sub(lambda m: chr(int(m.group(1), 16)), text)


def load_vectors() -> list[dict[str, Any]]:
    data = json.loads(VECTORS.read_text(encoding="ascii"))
    return list(data["vectors"])


def forbidden_in(body: str) -> list[str]:
    """Code points of ``body`` in the forbidden set or unassigned, by an independent oracle."""
    bad = []
    for ch in body:
        if ch in "\t\n":
            continue
        if unicodedata2.category(ch) in _BAD_GC or _DI.match(ch) or ch == "\ufffc":
            bad.append(f"U+{ord(ch):04X}")
    return bad


def views(body: str) -> list[str]:
    """The detection views of section 7: casefold, NFD minus marks, lookalike fold,
    entity-decoded, visible projection, each also with separators removed."""
    base = [body, html.unescape(body), visible(body)]
    out = []
    for v in base:
        demarked = "".join(
            c for c in unicodedata2.normalize("NFD", v) if unicodedata2.category(c) not in "MnMe"
        )
        for w in (v.casefold(), demarked.casefold(), fold(v)):
            out += [w, _COMPACT.sub("", w)]
    return out


_MARK = re.compile("\u27e6hidden: [^\u27e6\u27e7]*\u27e7")


def visible(body: str) -> str:
    """``body`` with every hidden mark cut out: what a reader on GitHub saw."""
    return _MARK.sub("", body)


def hidden_parts(body: str) -> list[str]:
    parts = []
    pos = 0
    while (start := body.find(uf.HIDDEN_OPEN, pos)) >= 0:
        end = body.index(uf.HIDDEN_CLOSE, start)
        parts.append(body[start + len(uf.HIDDEN_OPEN) : end])
        pos = end + 1
    return parts


def check_fenced(fenced: uf.Fenced) -> None:
    """Every structural invariant of one fenced output (I-1 to I-5, I-7, I-9, I-15)."""
    text, body, nonce = fenced.text, fenced.body, fenced.nonce
    lines = text.split("\n")
    assert re.fullmatch(r"[0-9a-f]{16,}", nonce)
    assert lines.count(fenced.opener) == 1
    assert lines.count(fenced.footer) == 1
    assert lines[-1] == fenced.footer
    opener_at = lines.index(fenced.opener)
    assert "\n".join(lines[opener_at + 1 : -1]) == body
    assert nonce in fenced.opener
    assert nonce in fenced.footer
    assert nonce not in body
    for view in views(body):
        assert nonce not in view
        assert fold(nonce) not in view
    assert forbidden_in(body) == []
    assert body.splitlines() == (body.split("\n") if body else [])
    assert unicodedata2.normalize("NFKC", body) == body
    assert not uf.holds_marker(body)
    assert body.count(uf.HIDDEN_OPEN[0]) == body.count(uf.HIDDEN_CLOSE)
    for part in hidden_parts(body):
        assert uf.HIDDEN_OPEN not in part
    text.encode("utf-8", errors="strict")


def classes(text: str) -> tuple[str, str, str, str]:
    """What the view of ``text`` shows, hides, collapses and links to."""
    return view_classes(uf.render(text))


@pytest.fixture
def check() -> Callable[[uf.Fenced], None]:
    return check_fenced


@pytest.fixture
def vectors() -> list[dict[str, Any]]:
    return load_vectors()


@pytest.fixture
def unescape() -> Callable[[str], str]:
    return decode


@pytest.fixture
def parts_hidden() -> Callable[[str], list[str]]:
    return hidden_parts


@pytest.fixture
def shown() -> Callable[[str], str]:
    return visible


@pytest.fixture
def all_views() -> Callable[[str], list[str]]:
    return views
