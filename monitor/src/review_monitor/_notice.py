"""The notice: what a worker receives, for every kind (the wire contract, ``docs/notice.md``)."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from datetime import datetime

import msgspec

from ._model import PrRef

__all__ = ["NOTICE_VERSION", "Notice", "NoticeItem", "NoticePr", "notice_key"]

NOTICE_VERSION = 1
"""The notice format's version (docs/notice.md); a change a receiver must know of bumps it."""


class NoticePr(msgspec.Struct, frozen=True):
    """The pull request a notice is about: host, ``owner/name``, number, URL and title."""

    host: str
    repo: str
    number: int
    url: str
    title: str


class NoticeItem(msgspec.Struct, frozen=True):
    """One thing a notice is about: a comment, a review, a check."""

    id: str
    database_id: int | None
    url: str
    author: str | None
    kind: str  # comment, review, review-comment, check, pr


class Notice(msgspec.Struct, frozen=True):
    version: int
    # comment-wake, review-verdict, bot-review, pr-merged, pr-closed, check-failed, handoff
    kind: str
    key: str
    worker: str
    pr: NoticePr
    items: tuple[NoticeItem, ...]
    text: str
    created_at: datetime
    # A wake too long for one notice goes out as several, each whole: this one is ``part``
    # of ``parts`` (its first line says so too).  1 of 1 for every other notice.
    part: int = 1
    parts: int = 1


def notice_key(worker: str, pr: PrRef, kind: str, item_ids: Iterable[str]) -> str:
    """SHA-256 over worker, PR, kind and the sorted item ids: stable across restarts."""
    h = hashlib.sha256()
    for part in (worker, pr.host, pr.repo, str(pr.number), kind, *sorted(item_ids)):
        h.update(part.encode("utf-8"))
        h.update(b"\x00")
    return h.hexdigest()
