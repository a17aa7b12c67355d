"""The comment-wake notice: a plain first line, each comment fenced, then the instruction."""

from __future__ import annotations

import random
from collections.abc import Sequence
from datetime import datetime

from review_monitor import (
    NOTICE_VERSION,
    BadgeItem,
    ItemDetail,
    Notice,
    NoticeItem,
    NoticePr,
    PrStatus,
    notice_key,
)
from untrusted_fence import fence, is_blank, one_line

from ._prompt import NOTICE_HEADER, NOTICE_INSTRUCTION

__all__ = ["NOTICE_KIND", "build_notice", "one_line_title"]

NOTICE_KIND = "comment-wake"
_TITLE_MAX = 100
_COMMENT_MAX = 8_000


def one_line_title(title: str) -> str:
    """The PR title is attacker-editable: cleaned, one line, capped."""
    return one_line(title, _TITLE_MAX)


def _authors(items: Sequence[BadgeItem]) -> list[str]:
    seen = dict.fromkeys(f"@{i.author.login}" for i in items if i.author is not None)
    return list(seen)


def _first_line(items: Sequence[BadgeItem], status: PrStatus) -> str:
    names = _authors(items)
    who = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    noun = "Comment" if len(items) == 1 else "Comments"
    return f"{noun} from {who} on {one_line_title(status.title)} #{status.pr.number}."


def _fences(item: BadgeItem, detail: ItemDetail, rng: random.Random | None) -> list[str]:
    login = f"@{item.author.login}" if item.author is not None else "@ghost"
    parts: list[str] = []
    if not is_blank(detail.body):
        source = login if item.kind == "comment" else f"{login}, review"
        parts.append(_fence(detail.body, source, rng))
    for inline in detail.inline:
        if is_blank(inline.body):
            continue
        line = inline.line if inline.line is not None else inline.original_line
        where = inline.path if line is None else f"{inline.path}:{line}"
        parts.append(_fence(inline.body, f"{login} on {where}", rng))
    return parts


def _fence(text: str, source: str, rng: random.Random | None) -> str:
    return fence(text, kind="comment", source=source, max_chars=_COMMENT_MAX, rng=rng).text


def _notice_items(item: BadgeItem, detail: ItemDetail) -> list[NoticeItem]:
    author = item.author.login if item.author is not None else None
    items = [NoticeItem(item.id, item.database_id, detail.url, author, item.kind)]
    items += [
        NoticeItem(i.id, i.database_id, i.url, author, "review-comment") for i in detail.inline
    ]
    return items


def build_notice(
    worker: str,
    status: PrStatus,
    comments: Sequence[tuple[BadgeItem, ItemDetail]],
    *,
    now: datetime,
    rng: random.Random | None,
) -> Notice:
    """One notice for the comments woken together, oldest first."""
    items = [item for item, _ in comments]
    body = [_first_line(items, status), "", NOTICE_HEADER, ""]
    for item, detail in comments:
        for part in _fences(item, detail, rng):
            body += [part, ""]
    body.append(NOTICE_INSTRUCTION)
    pr = status.pr
    return Notice(
        version=NOTICE_VERSION,
        kind=NOTICE_KIND,
        key=notice_key(worker, pr, NOTICE_KIND, [i.id for i in items]),
        worker=worker,
        pr=NoticePr(pr.host, pr.repo, pr.number, status.url, one_line_title(status.title)),
        items=tuple(n for item, detail in comments for n in _notice_items(item, detail)),
        text="\n".join(body),
        created_at=now,
    )
