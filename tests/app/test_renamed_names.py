"""Renamed names keep their old ones for one release (issue 26, item 5)."""

from __future__ import annotations

from datetime import UTC, datetime

from comment_wake.events import NoticeQueued, WorkerWoken, decode_event, encode_event
from review_monitor import PrRef

QUEUED = NoticeQueued(
    at=datetime(2026, 3, 2, 9, 0, tzinfo=UTC),
    pr=PrRef("octo", "repo", 1),
    worker="w-1",
    notice_key="k" * 64,
    comments=("IC_1",),
)


def test_a_queued_notice_is_written_with_the_tag_queued() -> None:
    assert b'"type":"queued"' in encode_event(QUEUED)


def test_an_event_an_earlier_release_wrote_as_woke_is_read_back() -> None:
    old = encode_event(QUEUED).replace(b'"type":"queued"', b'"type":"woke"')
    assert QUEUED == decode_event(old)


def test_the_old_class_name_still_imports() -> None:
    assert NoticeQueued is WorkerWoken


def test_the_planned_delivery_keeps_its_old_name() -> None:
    from comment_wake.delivery import Decision, PlannedDelivery

    assert PlannedDelivery is Decision


def test_a_comments_fate_keeps_its_old_name() -> None:
    from comment_wake.store import CommentFate, Outcome

    assert CommentFate is Outcome


def test_a_command_compares_in_command_form() -> None:
    from comment_wake.wake._rules import command_form, normalise_body

    assert ("please review", command_form) == (command_form("  Please \n REVIEW "), normalise_body)


def test_the_fence_marker_check_keeps_its_old_name() -> None:
    import untrusted_fence

    assert untrusted_fence.holds_marker is untrusted_fence.has_marker
