"""The hand-off notice (pure)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

from comment_wake.delivery import handoff_notice
from review_monitor import Notice

NoticeFactory = Callable[..., Notice]
AT = datetime(2026, 3, 2, tzinfo=UTC)


def test_the_hand_off_key_is_stable_for_the_same_notice(make_notice: NoticeFactory) -> None:
    notice = make_notice()
    first = handoff_notice(notice, "orch", "gone: HTTP 410", at=AT)
    again = handoff_notice(notice, "orch", "gone: another reason", at=datetime.now(UTC))
    assert first.key == again.key


def test_hand_offs_of_different_notices_have_different_keys(make_notice: NoticeFactory) -> None:
    a = handoff_notice(make_notice(kind="comment-wake"), "orch", "gone", at=AT)
    b = handoff_notice(make_notice(kind="check-failed"), "orch", "gone", at=AT)
    assert a.key != b.key


def test_the_reason_is_flattened_to_one_printable_line(make_notice: NoticeFactory) -> None:
    got = handoff_notice(make_notice(), "orch", "gone:\x1b[2J\nHTTP 410", at=AT)
    assert "gone: [2J HTTP 410" in got.text.splitlines()[0]
