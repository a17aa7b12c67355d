"""The REST ETag cache: a 304 answers from here and costs nothing against the hourly limit."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

import msgspec

__all__ = ["CachedAnswer", "EtagCache"]


class CachedAnswer(msgspec.Struct, frozen=True):
    etag: str
    status: int
    body: Any
    link: str | None = None  # the answer's Link header: a 304 of a page needs its pages


class EtagCache:
    """Answers keyed by host and URL, the least recently used dropped beyond ``max_entries``."""

    def __init__(self, max_entries: int = 2048) -> None:
        if max_entries < 1:
            raise ValueError("max_entries must be at least 1")
        self._max = max_entries
        self._entries: OrderedDict[tuple[str, str], CachedAnswer] = OrderedDict()

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, host: str, url: str) -> CachedAnswer | None:
        key = (host.casefold(), url)
        entry = self._entries.get(key)
        if entry is not None:
            self._entries.move_to_end(key)
        return entry

    def put(self, host: str, url: str, answer: CachedAnswer) -> None:
        key = (host.casefold(), url)
        self._entries[key] = answer
        self._entries.move_to_end(key)
        while len(self._entries) > self._max:
            self._entries.popitem(last=False)

    def drop(self, host: str, url: str) -> None:
        self._entries.pop((host.casefold(), url), None)
