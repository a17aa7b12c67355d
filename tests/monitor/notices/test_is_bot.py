"""``is_bot``: the one bot rule shared by the monitor's notices and the comment wake."""

from __future__ import annotations

import pytest

from review_monitor import Author
from review_monitor._notices import is_bot


@pytest.mark.parametrize(
    ("author", "review_bots"),
    [
        (Author("copilot-pull-request-reviewer", "Bot"), ()),
        (Author("renovate[bot]", "User"), ()),
        (Author("Renovate[BOT]", "User"), ()),
        (Author("coderabbitai", "User"), ("coderabbitai",)),
        (Author("CodeRabbitAI", "User"), ("coderabbitai[bot]",)),
        (Author("coderabbitai", "User"), ("CODERABBITAI",)),
    ],
)
def test_a_bot_is_recognised(author: Author, review_bots: tuple[str, ...]) -> None:
    assert is_bot(author, review_bots)


@pytest.mark.parametrize(
    ("author", "review_bots"),
    [
        (Author("alice", "User"), ("coderabbitai",)),
        (Author("botany", "User"), ()),
        (Author("alice-bot", "User"), ()),
        (None, ("ghost",)),
    ],
)
def test_a_person_or_a_deleted_account_is_not_a_bot(
    author: Author | None, review_bots: tuple[str, ...]
) -> None:
    assert not is_bot(author, review_bots)
