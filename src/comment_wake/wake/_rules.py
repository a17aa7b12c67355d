"""The trust rules that need no reads beyond the badge and the detail read."""

from __future__ import annotations

import re
from collections.abc import Iterable

from review_monitor import Author, BadgeItem, ItemDetail

from ._text import is_blank

__all__ = [
    "is_agent_login",
    "is_blank_item",
    "is_bot",
    "is_rereview_command",
    "is_valid_login",
    "is_verdict",
    "item_texts",
    "normalise_body",
]

# GitHub's login character set: 1 to 39 letters, digits and single hyphens, not at
# either end; an Enterprise Managed User adds ``_`` and its enterprise short code.
_LOGIN = re.compile(r"([A-Za-z0-9](?:-?[A-Za-z0-9])*)(?:_[A-Za-z0-9]+)?", re.ASCII)
_LOGIN_MAX = 39
_BOT_SUFFIX = "[bot]"


def _bare(login: str) -> str:
    login = login.casefold()
    return login[: -len(_BOT_SUFFIX)] if login.endswith(_BOT_SUFFIX) else login


def is_bot(author: Author, review_bots: Iterable[str]) -> bool:
    """``__typename`` Bot, a ``[bot]`` login, or a configured review bot.

    Review bots compare case-insensitively, with any ``[bot]`` suffix removed on both sides.
    """
    if author.type == "Bot" or author.login.casefold().endswith(_BOT_SUFFIX):
        return True
    bare = _bare(author.login)
    return any(bare == _bare(bot) for bot in review_bots)


def is_verdict(item: BadgeItem) -> bool:
    """A review that approves, requests changes or was dismissed: not a comment."""
    return item.kind == "review" and item.state != "COMMENTED"


def is_valid_login(login: str) -> bool:
    m = _LOGIN.fullmatch(login)
    return m is not None and len(m[1]) <= _LOGIN_MAX


def is_agent_login(login: str, agent_logins: Iterable[str]) -> bool:
    folded = login.casefold()
    return any(folded == agent.casefold() for agent in agent_logins)


def item_texts(detail: ItemDetail) -> tuple[str, ...]:
    """Every text a comment carries: its body and, for a review, each inline comment."""
    return (detail.body, *(inline.body for inline in detail.inline))


def is_blank_item(detail: ItemDetail) -> bool:
    """No visible text anywhere in it (hidden regions do not count as text)."""
    return all(is_blank(text) for text in item_texts(detail))


def normalise_body(text: str) -> str:
    """Trimmed, runs of whitespace made one space, case folded."""
    return " ".join(text.split()).casefold()


def is_rereview_command(detail: ItemDetail, commands: Iterable[str]) -> bool:
    """Every non-blank text it carries equals a configured re-review command."""
    wanted = {normalise_body(c) for c in commands}
    wanted.discard("")
    texts = [normalise_body(t) for t in item_texts(detail) if not is_blank(t)]
    return bool(wanted) and bool(texts) and all(t in wanted for t in texts)
