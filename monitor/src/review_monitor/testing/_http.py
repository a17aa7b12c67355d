"""What FakeGitHub's endpoints answer with: an ``Answer`` and its JSON body."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["DOCS", "Answer", "json_answer"]

DOCS = "https://docs.github.com/rest"


@dataclass
class Answer:
    status: int
    body: bytes
    headers: dict[str, str]


def json_answer(status: int, payload: Any, headers: Mapping[str, str] | None = None) -> Answer:
    body = json.dumps(payload, separators=(",", ":")).encode()
    out = {"content-type": "application/json; charset=utf-8"}
    out.update(headers or {})
    return Answer(status, body, out)
