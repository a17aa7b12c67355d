"""The suite's check that every notice enqueued fits a hook (``NOTICE_TEXT_LIMIT``):
the autouse fixture in conftest.py applies it to each test, and a fixture of a wider
scope may apply it to what it runs."""

from __future__ import annotations

from typing import Any

import pytest

__all__ = ["check_notices_fit_a_hook"]


def check_notices_fit_a_hook(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make the outbox's one insert refuse a notice over ``NOTICE_TEXT_LIMIT`` while
    ``monkeypatch`` lasts."""
    from comment_wake._limits import NOTICE_TEXT_LIMIT
    from review_monitor._store import _outbox

    insert = _outbox._insert

    def checked(tx: Any, notice: Any) -> int | None:
        if len(notice.text) > NOTICE_TEXT_LIMIT:
            raise AssertionError(
                f"a {notice.kind} notice of {len(notice.text)} characters was enqueued "
                f"(NOTICE_TEXT_LIMIT is {NOTICE_TEXT_LIMIT})"
            )
        return insert(tx, notice)

    monkeypatch.setattr(_outbox, "_insert", checked)
