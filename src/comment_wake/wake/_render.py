"""The comment-wake notice: a plain first line, each comment fenced, then the instruction."""

from __future__ import annotations

import random
from collections.abc import Sequence
from datetime import datetime

from comment_wake._limits import NOTICE_TEXT_LIMIT
from review_monitor import (
    NOTICE_VERSION,
    BadgeItem,
    InlineComment,
    ItemDetail,
    Notice,
    NoticeItem,
    NoticePr,
    PrStatus,
    notice_key,
)
from untrusted_fence import View, fence, one_line, render

from ._prompt import NOTICE_HEADER, NOTICE_INSTRUCTION

__all__ = ["NOTICE_KIND", "build_notice", "build_notices", "one_line_title"]

NOTICE_KIND = "comment-wake"
"""The kind of a comment-wake notice in the outbox and on the wire."""
_TITLE_MAX = 100
_URL_MAX = 500  # a GitHub comment URL: host, owner (39), repository (100), number, anchor
_COMMENT_MAX = 8_000
_MIN_CUT = 200  # a cut comment keeps at least this many characters


def one_line_title(title: str) -> str:
    """The PR title is attacker-editable: cleaned, one line, capped."""
    return one_line(title, _TITLE_MAX)


def _link(url: str) -> str:
    """A URL from GitHub's data, never from a comment's text; the owner and repository names
    in it are still someone's choice, so it is cleaned like a title."""
    return one_line(url, _URL_MAX) if url.strip() else ""


def _authors(items: Sequence[BadgeItem]) -> list[str]:
    seen = dict.fromkeys(f"@{i.author.login}" for i in items if i.author is not None)
    return list(seen)


def _first_line(items: Sequence[BadgeItem], status: PrStatus) -> str:
    names = _authors(items)
    who = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    noun = "Comment" if len(items) == 1 else "Comments"
    # The seed's sentence, with the PR named as GitHub writes a reference across repositories
    # (owner/repo#N), in parentheses as the verdict notices have it: the title before it is
    # anyone's text, and the parentheses keep it from running into the reference.
    ref = one_line(str(status.pr), _URL_MAX)
    return f"{noun} from {who} on {one_line_title(status.title)} ({ref})."


# One text to fence: its view (rendered once, cut as often as the fit needs), the fence's
# source line and GitHub's URL of it.
_Text = tuple[View, str, str]


def _texts(item: BadgeItem, detail: ItemDetail) -> list[_Text]:
    """The comment's texts a reader sees anything of, each rendered once."""
    login = f"@{item.author.login}" if item.author is not None else "@ghost"
    texts: list[_Text] = []
    view = render(detail.body)
    if view.shows_anything:
        texts.append((view, login if item.kind == "comment" else f"{login}, review", detail.url))
    for inline in detail.inline:
        view = render(inline.body)
        if not view.shows_anything:
            continue
        texts.append((view, f"{login} on {_where(inline)}", inline.url))
    return texts


def _where(inline: InlineComment) -> str:
    """``path:line``, ``path:first-last`` for a comment on several lines, the lines it was
    on when the diff has changed since (then ``(outdated)``)."""
    line, start = inline.line, inline.start_line
    if inline.outdated or line is None:
        line, start = inline.original_line, inline.original_start_line
    where = inline.path
    if line is not None:
        where += f":{start}-{line}" if start is not None and start != line else f":{line}"
    return where + (" (outdated)" if inline.outdated else "")


def _fences(
    texts: Sequence[_Text], status: PrStatus, rng: random.Random | None, max_chars: int
) -> list[str]:
    return [_fence(view, source, url, status, rng, max_chars) for view, source, url in texts]


def _fence(
    text: View,
    source: str,
    url: str,
    status: PrStatus,
    rng: random.Random | None,
    max_chars: int,
) -> str:
    """One comment fenced, then its URL (GitHub's, outside the fence), then for a comment cut
    to fit a note pointing to that URL.  The notice header says once that the text grants
    nothing, so the fence's header leaves that sentence out."""
    fenced = fence(
        text, kind="comment", source=source, max_chars=max_chars, rng=rng, grants_sentence=False
    )
    link = _link(url)
    lines = [fenced.text, link or _link(status.url)]
    if fenced.truncated:
        where = "the link above" if link else "the pull request above"
        lines.append(f"Cut to fit this notice: read the whole comment at {where}.")
    return "\n".join(line for line in lines if line)


def _notice_items(item: BadgeItem, detail: ItemDetail) -> list[NoticeItem]:
    author = item.author.login if item.author is not None else None
    items = [NoticeItem(item.id, item.database_id, detail.url, author, item.kind)]
    items += [
        NoticeItem(i.id, i.database_id, i.url, author, "review-comment") for i in detail.inline
    ]
    return items


def _text(items: Sequence[BadgeItem], status: PrStatus, parts: Sequence[str]) -> str:
    body = [_first_line(items, status), "", NOTICE_HEADER, ""]
    for part in parts:
        body += [part, ""]
    body.append(NOTICE_INSTRUCTION)
    return "\n".join(body)


def _fitted(
    item: BadgeItem, detail: ItemDetail, status: PrStatus, rng: random.Random | None
) -> list[str]:
    """The comment's fences, cut until a notice of it alone fits ``NOTICE_TEXT_LIMIT``."""
    max_chars = _COMMENT_MAX
    texts = _texts(item, detail)
    while True:
        parts = _fences(texts, status, rng, max_chars)
        over = len(_text([item], status, parts)) - NOTICE_TEXT_LIMIT
        if over <= 0 or max_chars <= _MIN_CUT:
            return parts
        # Each cut part gives back about ``over / len(parts)``, plus the cut note.
        max_chars = max(_MIN_CUT, max_chars - over // max(1, len(parts)) - 200)


def build_notices(
    worker: str,
    status: PrStatus,
    comments: Sequence[tuple[BadgeItem, ItemDetail]],
    *,
    now: datetime,
    rng: random.Random | None,
) -> tuple[Notice, ...]:
    """The notices for the comments woken together, oldest first, each of whose text fits
    ``NOTICE_TEXT_LIMIT``: a comment too long is cut (its URL says where to read the rest),
    and a batch too long for one notice becomes several, in order."""
    groups: list[list[tuple[BadgeItem, ItemDetail, list[str]]]] = []
    for item, detail in comments:
        parts = _fitted(item, detail, status, rng)
        if groups:
            joined = [*groups[-1], (item, detail, parts)]
            if len(_text([g[0] for g in joined], status, _parts(joined))) <= NOTICE_TEXT_LIMIT:
                groups[-1] = joined
                continue
        groups.append([(item, detail, parts)])
    return tuple(_notice(worker, status, group, now) for group in groups)


def _parts(group: Sequence[tuple[BadgeItem, ItemDetail, list[str]]]) -> list[str]:
    return [part for _, _, parts in group for part in parts]


def _notice(
    worker: str,
    status: PrStatus,
    group: Sequence[tuple[BadgeItem, ItemDetail, list[str]]],
    now: datetime,
) -> Notice:
    items = [item for item, _, _ in group]
    pr = status.pr
    return Notice(
        version=NOTICE_VERSION,
        kind=NOTICE_KIND,
        key=notice_key(worker, pr, NOTICE_KIND, [i.id for i in items]),
        worker=worker,
        pr=NoticePr(pr.host, pr.repo, pr.number, status.url, one_line_title(status.title)),
        items=tuple(n for item, detail, _ in group for n in _notice_items(item, detail)),
        text=_text(items, status, _parts(group)),
        created_at=now,
    )


def build_notice(
    worker: str,
    status: PrStatus,
    comments: Sequence[tuple[BadgeItem, ItemDetail]],
    *,
    now: datetime,
    rng: random.Random | None,
) -> Notice:
    """The one notice for comments that fit in one (``build_notices`` splits a batch);
    ``ValueError`` when they need more than one."""
    notices = build_notices(worker, status, comments, now=now, rng=rng)
    if len(notices) != 1:
        raise ValueError(f"the comments need {len(notices)} notices: use build_notices")
    return notices[0]
