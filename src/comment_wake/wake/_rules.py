"""The trust rules that need no reads beyond the badge and the detail read."""

from __future__ import annotations

from collections.abc import Iterable

from review_monitor import BadgeItem, ItemDetail, is_bot, is_valid_login
from untrusted_fence import is_blank

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


def is_verdict(item: BadgeItem) -> bool:
    """A review that approves, requests changes or was dismissed: not a comment."""
    return item.kind == "review" and item.state != "COMMENTED"


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
