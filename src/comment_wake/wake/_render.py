"""The comment-wake notice: a plain first line, each comment fenced, then the instruction."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from comment_wake._limits import NOTICE_BUILD_LIMIT
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
from untrusted_fence import View, fence, one_line

from ._prompt import NOTICE_HEADER, NOTICE_INSTRUCTION_POSTING, instruction
from ._views import view_of

__all__ = ["NOTICE_KIND", "build_notice", "build_notices", "one_line_title"]

NOTICE_KIND = "comment-wake"
"""The kind of a comment-wake notice in the outbox and on the wire."""
_TITLE_MAX = 100
_URL_MAX = 500  # a GitHub comment URL: host, owner (39), repository (100), number, anchor
_COMMENT_MAX = 8_000
_MIN_CUT = 200  # a cut comment keeps at least this many characters
_LABEL_MAX = len(" (part 999 of 999)")


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


def _first_line(items: Sequence[BadgeItem], status: PrStatus, label: str = "") -> str:
    names = _authors(items)
    who = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    noun = "Comment" if len(items) == 1 else "Comments"
    # The seed's sentence, with the PR named as GitHub writes a reference across repositories
    # (owner/repo#N), in parentheses as the verdict notices have it: the title before it is
    # anyone's text, and the parentheses keep it from running into the reference.
    ref = one_line(str(status.pr), _URL_MAX)
    # A wake in several notices says which part this is, at the end of the first line (an
    # addition to the seed's sentence; docs/notice.md).
    return f"{noun} from {who} on {one_line_title(status.title)} ({ref}){label}."


@dataclass(frozen=True, slots=True)
class _Text:
    """One text of a comment: its view (rendered once, cut as often as the fit needs), the
    fence's source line, GitHub's URL of it, and its notice item."""

    view: View
    source: str
    url: str
    item: NoticeItem


def _texts(item: BadgeItem, detail: ItemDetail) -> tuple[NoticeItem, list[_Text]]:
    """The comment's own notice item, and its texts (the body, then each inline comment, in
    the notice items' order), each rendered once."""
    author = item.author.login if item.author is not None else None
    login = f"@{author or 'ghost'}"
    own = NoticeItem(item.id, item.database_id, detail.url, author, item.kind)
    texts = [
        _Text(
            view_of(detail.body),
            login if item.kind == "comment" else f"{login}, review",
            detail.url,
            own,
        )
    ]
    for inline in detail.inline:
        texts.append(
            _Text(
                view_of(inline.body),
                f"{login} on {_where(inline)}",
                inline.url,
                NoticeItem(inline.id, inline.database_id, inline.url, author, "review-comment"),
            )
        )
    return own, texts


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


@dataclass(frozen=True, slots=True)
class _Block:
    """One text of a comment, fenced, with its URL line: the unit a notice is split at (never
    inside a fence).  ``items`` are the notice items it carries."""

    comment: BadgeItem
    items: tuple[NoticeItem, ...]
    text: str


def _blocks(
    item: BadgeItem, detail: ItemDetail, status: PrStatus, rng: random.Random | None
) -> list[_Block]:
    """The comment's fenced texts, each cut until a notice of it alone fits.  A text a reader
    sees nothing of is left out; its item, and the comment's own, go with the first block."""
    own, texts = _texts(item, detail)
    shown = [t for t in texts if t.view.shows_anything]
    unshown = [t.item for t in texts if not t.view.shows_anything]
    blocks = [
        _Block(item, (t.item,), _fitted(t.view, t.source, t.url, item, status, rng)) for t in shown
    ]
    if not blocks:  # nothing shows (a comment edited empty before its release): the link
        blocks.append(_Block(item, (), _link(detail.url) or _link(status.url)))
    first = blocks[0]
    carried = [own, *(i for i in unshown if i != own)] if own not in first.items else unshown
    blocks[0] = _Block(item, (*carried, *first.items), first.text)
    return blocks


def _fitted(
    view: View,
    source: str,
    url: str,
    item: BadgeItem,
    status: PrStatus,
    rng: random.Random | None,
) -> str:
    """One text fenced, cut until a notice of it alone fits ``NOTICE_BUILD_LIMIT`` (a fence
    is never split across notices: it is cut, with a note, instead)."""
    max_chars = _COMMENT_MAX
    while True:
        fenced = _fence(view, source, url, status, rng, max_chars)
        over = _length([item], status, [fenced]) - NOTICE_BUILD_LIMIT
        if over <= 0 or max_chars <= _MIN_CUT:
            return fenced
        max_chars = max(_MIN_CUT, max_chars - over - 200)  # the cut note comes back too


def _text(
    items: Sequence[BadgeItem],
    status: PrStatus,
    parts: Sequence[str],
    label: str = "",
    last: str = NOTICE_INSTRUCTION_POSTING,
) -> str:
    body = [_first_line(items, status, label), "", NOTICE_HEADER, ""]
    for part in parts:
        body += [part, ""]
    body.append(last)
    return "\n".join(body)


def _length(items: Sequence[BadgeItem], status: PrStatus, parts: Sequence[str]) -> int:
    """A notice's length with the longest part label and instruction line it could get (so
    a batch splits alike whether the worker's posting tools are on or off)."""
    return len(_text(items, status, parts)) + _LABEL_MAX


def _comments(blocks: Sequence[_Block]) -> list[BadgeItem]:
    return list({b.comment.id: b.comment for b in blocks}.values())


def build_notices(
    worker: str,
    status: PrStatus,
    comments: Sequence[tuple[BadgeItem, ItemDetail]],
    *,
    now: datetime,
    rng: random.Random | None,
    posting: bool = False,
) -> tuple[Notice, ...]:
    """The notices for the comments woken together, oldest first, each of whose text fits
    ``NOTICE_BUILD_LIMIT``: a text too long is cut (its URL says where to read the rest),
    and a batch too long for one notice becomes several parts, split only between one
    fence's URL line and the next fence (a review's inline comments may go in several).
    Each part repeats the first line, with ``(part i of n)``, and the instruction, which
    names ``reply`` when the worker's posting tools are on (``posting``)."""
    groups: list[list[_Block]] = [[]]
    # The items' order in every part: as GitHub lists them, a review before its inline
    # comments (an inline comment that shows nothing rides with the first block).
    rank: dict[str, int] = {}
    for item, detail in comments:
        for n in (item.id, *(i.id for i in detail.inline)):
            rank.setdefault(n, len(rank))
        for block in _blocks(item, detail, status, rng):
            joined = [*groups[-1], block]
            texts = [b.text for b in joined]
            if groups[-1] and _length(_comments(joined), status, texts) > NOTICE_BUILD_LIMIT:
                groups.append([block])
            else:
                groups[-1] = joined
    return tuple(
        _notice(worker, status, group, now, part, len(groups), rank, instruction(posting))
        for part, group in enumerate(groups, 1)
    )


def _notice(
    worker: str,
    status: PrStatus,
    group: Sequence[_Block],
    now: datetime,
    part: int,
    parts: int,
    rank: Mapping[str, int],
    last: str,
) -> Notice:
    listed = [i for block in group for i in block.items]
    items = tuple(sorted(listed, key=lambda i: rank[i.id]))
    pr = status.pr
    label = f" (part {part} of {parts})" if parts > 1 else ""
    return Notice(
        version=NOTICE_VERSION,
        kind=NOTICE_KIND,
        key=notice_key(worker, pr, NOTICE_KIND, [i.id for i in items]),
        worker=worker,
        pr=NoticePr(pr.host, pr.repo, pr.number, status.url, one_line_title(status.title)),
        items=items,
        text=_text(_comments(group), status, [b.text for b in group], label, last),
        created_at=now,
        part=part,
        parts=parts,
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
